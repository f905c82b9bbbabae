"""Writes through pyhudi, read back three ways after every step: the expected state computed
here in plain Python, format("hudi-meta"), and hudi-rs (including time travel)."""
import datetime as dt
import decimal
import random

import pyarrow as pa
import pytest

from pyhudi.hudi_table import HudiTable
from tests.canonical import canon

N = 10_000
SCHEMA = ("id string, ts long, region string, seq int, amount double, ratio float, flag boolean, "
          "price decimal(10,2), day date, at timestamp, blob binary, tags array<string>, "
          "info struct<name:string,score:int>, attrs map<string,int>")
CONFIGS = {
    "cow_nonpart": ("COPY_ON_WRITE", {}, "avro"),
    "cow_hive": ("COPY_ON_WRITE", {"hoodie.datasource.write.partitionpath.field": "region",
                                   "hoodie.datasource.write.hive_style_partitioning": "true"}, "avro"),
    "cow_complex": ("COPY_ON_WRITE", {"hoodie.datasource.write.partitionpath.field": "region",
                                      "hoodie.datasource.write.recordkey.field": "id,seq"}, "avro"),
    "mor_nonpart": ("MERGE_ON_READ", {}, "avro"),
    "mor_hive": ("MERGE_ON_READ", {"hoodie.datasource.write.partitionpath.field": "region",
                                   "hoodie.datasource.write.hive_style_partitioning": "true"}, "avro"),
    "mor_complex": ("MERGE_ON_READ", {"hoodie.datasource.write.partitionpath.field": "region",
                                      "hoodie.datasource.write.recordkey.field": "id,seq"}, "avro"),
    "mor_hive_parquet_logs": ("MERGE_ON_READ", {"hoodie.datasource.write.partitionpath.field": "region",
                                                "hoodie.datasource.write.hive_style_partitioning": "true"}, "parquet"),
    "mor_bucket": ("MERGE_ON_READ", {"hoodie.datasource.write.partitionpath.field": "region",
                                     "hoodie.index.type": "BUCKET", "hoodie.bucket.index.num.buckets": "8"}, "avro"),
    "cow_bucket_complex": ("COPY_ON_WRITE", {"hoodie.datasource.write.partitionpath.field": "region",
                                             "hoodie.datasource.write.recordkey.field": "id,seq",
                                             "hoodie.index.type": "BUCKET", "hoodie.bucket.index.hash.field": "id",
                                             "hoodie.bucket.index.num.buckets": "3"}, "avro"),
}
REGIONS = ["eu", "us", "apac"]


def _row(i, ts, rng):
    return (f"key-{i:06d}", ts, REGIONS[i % 3], i % 7, rng.random() * 1000, float(i % 100) / 4, i % 2 == 0,
            decimal.Decimal(f"{i % 10000}.{i % 100:02d}"), dt.date(2024, 1, 1) + dt.timedelta(days=i % 365),
            dt.datetime(2024, 1, 1, tzinfo=dt.timezone.utc) + dt.timedelta(seconds=i * 37),
            bytes([i % 256, (i * 7) % 256]), [f"t{i % 5}", f"u{i % 3}"] if i % 11 else None,
            (f"n{i}", i % 1000) if i % 13 else None, {f"a{i % 4}": i % 9, "b": i % 2} if i % 17 else None)


def _canon(table: pa.Table) -> dict:
    """canon() with map entries sorted: a map's entries have no order, so readers may differ in it."""
    for i, field in enumerate(table.schema):
        if pa.types.is_map(field.type):
            values = [None if v is None else sorted(v) for v in table.column(i).to_pylist()]
            table = table.set_column(i, field, pa.array(values, field.type))
    return canon(table)


def _key(r, complex_key):
    return (r["id"], r["seq"]) if complex_key else r["id"]


def _hudi_rs(path, as_of=None, read_optimized=False):
    from hudi import HudiReadOptions, HudiTableBuilder

    opts = HudiReadOptions() if as_of is None else HudiReadOptions().with_as_of_timestamp(as_of)
    if read_optimized:
        opts = HudiReadOptions(hudi_options={"hoodie.read.use.read_optimized.mode": "true"})
    batches = HudiTableBuilder.from_base_uri(path).build().read(opts)
    return _canon(pa.Table.from_batches(batches))


@pytest.mark.parametrize("name", list(CONFIGS))
def test_write_scenario_three_readers_agree(spark, tmp_path, name):
    table_type, extra, log_format = CONFIGS[name]
    complex_key = "id,seq" in extra.get("hoodie.datasource.write.recordkey.field", "")
    path = str(tmp_path / name)
    opts = {"hoodie.table.name": name, "hoodie.datasource.write.recordkey.field": "id",
            "hoodie.datasource.write.precombine.field": "ts", "hoodie.datasource.write.table.type": table_type,
            "hoodie.logfile.data.block.format": log_format, **extra}
    table = HudiTable(spark, path, opts)
    rng = random.Random(7)
    first = spark.createDataFrame([_row(i, 100, rng) for i in range(N)], SCHEMA)
    arrow_schema = first.toArrow().schema
    state = {_key(r, complex_key): r for r in first.toArrow().to_pylist()}
    steps = []

    def check(instant):
        want = _canon(pa.Table.from_pylist(list(state.values()), schema=arrow_schema))
        assert _canon(table.read().toArrow()) == want
        assert _hudi_rs(path) == want
        if table_type == "MERGE_ON_READ":  # base files only: the two readers agree on them too
            ro = _canon(table.read(**{"hoodie.datasource.query.type": "read_optimized"}).toArrow())
            assert ro == _hudi_rs(path, read_optimized=True)
        steps.append((instant, want))

    check(table.insert(first))
    # upsert 20%: half of them lose on the ordering field
    upd_rows = [_row(i, 50 if i % 2 else 200, rng) for i in rng.sample(range(N), N // 5)]
    upd = spark.createDataFrame(upd_rows, SCHEMA)
    for r in upd.toArrow().to_pylist():
        if r["ts"] >= state[_key(r, complex_key)]["ts"]:
            state[_key(r, complex_key)] = r
    check(table.upsert(upd))
    dels = spark.createDataFrame([_row(i, 0, rng) for i in rng.sample(range(N), N // 20)], SCHEMA)
    for r in dels.toArrow().to_pylist():
        state.pop(_key(r, complex_key), None)
    check(table.delete(dels))
    if "partitionpath.field" in str(extra):
        fresh = spark.createDataFrame([_row(i, 300, rng) for i in range(N, N + 500) if REGIONS[i % 3] == "eu"], SCHEMA)
        state = {k: r for k, r in state.items() if r["region"] != "eu"}
        state.update({_key(r, complex_key): r for r in fresh.toArrow().to_pylist()})
        check(table.insert_overwrite(fresh))
    for instant, want in steps:
        assert _hudi_rs(path, instant) == want, instant


def test_a_write_asks_for_the_slices_of_the_partitions_it_touches(spark, tmp_path, monkeypatch):
    from pyhudi.write import view

    asked = []
    latest = view.latest_file_slices

    def recording(session, path, partitions, *rest):
        asked.append(None if partitions is None else sorted(partitions))
        return latest(session, path, partitions, *rest)

    def rows(keys, ts, region=None):
        return spark.createDataFrame([(f"k{i}", ts, region or REGIONS[i % 3]) for i in keys],
                                     "id string, ts long, region string")

    monkeypatch.setattr(view, "latest_file_slices", recording)
    opts = {"hoodie.table.name": "asked", "hoodie.datasource.write.recordkey.field": "id",
            "hoodie.datasource.write.precombine.field": "ts", "hoodie.datasource.write.partitionpath.field": "region"}
    table = HudiTable(spark, str(tmp_path / "simple"), opts)
    table.insert(rows(range(30), 1))
    table.upsert(rows(range(5), 2, "us"))  # the simple index looks for keys in the batch's partitions
    table.insert_overwrite(rows(range(100, 103), 3, "apac"))
    table.delete_partition(["eu"])
    table.insert_overwrite_table(rows(range(200, 202), 4))
    assert asked == [["apac", "eu", "us"], ["us"], ["apac"], ["eu"], None]
    assert sorted(r["id"] for r in table.read().collect()) == ["k200", "k201"]

    asked.clear()
    bucket = HudiTable(spark, str(tmp_path / "bucket"), {**opts, "hoodie.index.type": "BUCKET",
                                                         "hoodie.bucket.index.num.buckets": "2",
                                                         "hoodie.datasource.write.table.type": "MERGE_ON_READ"})
    bucket.insert(rows(range(30), 1))  # not cached: learning its partitions would cost a pass, so all
    cached = rows(range(3), 2, "us").cache()
    bucket.upsert(cached)  # cached: its partitions only
    cached.unpersist()
    assert asked == [None, ["us"]]
    assert sorted(r["id"] for r in bucket.read().filter("ts = 2").collect()) == ["k0", "k1", "k2"]
