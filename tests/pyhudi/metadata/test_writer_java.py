"""Metadata tables written here are read by the independent Java reader of the connector
(io.hudimeta.metadata) and by hudi-rs: the same listing, slices and statistics."""
import base64
import datetime as dt
import decimal
import json
import posixpath
import shutil

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
import pytest

from pyhudi.avro import schema as avro_schema
from pyhudi.basefile import parquet as base_file
from pyhudi.metadata import COLUMN_STATS, FILES, MetadataWriter, listing_from_storage
from pyhudi.metadata.stats import column_stats_json
from pyhudi.storage import Storage
from pyhudi.table import file_names as filenames
from pyhudi.table import instant_metadata as im
from pyhudi.table import properties
from pyhudi.table.timeline import Timeline
from pyhudi.table.write_stat import WriteStat
from tests.pyhudi.metadata.synthetic import (
    SyntheticTable,
    non_partitioned_mor_table,
    pyarrow_min_max,
    start_write,
    two_partition_table,
)

TRIPS = {"hoodie.table.name": "trips", "hoodie.datasource.write.recordkey.field": "id",
         "hoodie.datasource.write.precombine.field": "ts", "hoodie.datasource.write.partitionpath.field": "city",
         "hoodie.datasource.write.hive_style_partitioning": "true",
         "hoodie.datasource.write.table.type": "COPY_ON_WRITE",
         # written without a metadata table: the tests build one by hand
         "hoodie.metadata.enable": "false"}


@pytest.fixture(scope="module")
def inspect(spark):
    return spark._jvm.io.hudimeta.metadata.MetadataInspect


def _java_listing(spark, inspect, base):
    return json.loads(inspect.listingJson(str(base), spark._jsc.hadoopConfiguration()))


def _java_stats(spark, inspect, base, partition, columns):
    return json.loads(inspect.columnStatsJson(str(base), spark._jsc.hadoopConfiguration(), partition,
                                              json.dumps(columns)))


def _java_value(v):
    """A Java reader [kind, value] pair as a pyarrow value."""
    if v is None:
        return None
    kind, value = v
    if kind == "decimal":
        return decimal.Decimal(value)
    if kind == "date":
        return dt.date.fromisoformat(value)
    return value


def _assert_java_agrees(spark, inspect, base, mdt: MetadataWriter):
    r = _java_listing(spark, inspect, base)
    assert r["mdt"] and r["inSync"], r
    assert r["metadata"]["partitions"] == r["storage"]["partitions"]
    assert r["metadata"]["files"] == r["storage"]["files"]
    assert r["metadata"]["slices"] == r["storage"]["slices"]
    mine = mdt.files_listing()
    assert {p: sorted([n, s] for n, s in f.items()) for p, f in mine.items()} == r["metadata"]["files"]
    return r


def _hudi_rs_ids(path):
    from hudi import HudiTableBuilder

    table = HudiTableBuilder.from_base_uri(path).build()
    batches = table.read_snapshot() if hasattr(table, "read_snapshot") else table.read()
    return sorted(pa.Table.from_batches(batches).column("id").to_pylist())


def test_hudi_rs_lists_files_through_the_metadata_table(tmp_path):
    """hudi-rs plans from the `files` partition when the table lists it: a file the metadata
    table says is gone is not read, though it is still on storage."""
    t, _ = two_partition_table(tmp_path / "t")

    def rows():
        return len(_hudi_rs_ids(t.base))

    assert rows() == 13
    mdt = t.mdt()
    mdt.initialize()
    assert rows() == 13
    t.commit(lambda i: [t.write_base(i, "c", range(90, 95))], mdt=mdt)
    mdt.compact()
    assert rows() == 18
    hidden = sorted(mdt.files_listing()["city=a"])[0]
    tl = t.timeline
    req = tl.create_requested("clean")
    inflight = tl.transition_to_inflight(req, b"")
    mdt.commit(req.requested_time, "clean", [], deleted_files={"city=a": [hidden]})
    tl.complete(inflight, b"")
    assert rows() == 18 - len(pq.ParquetFile(f"{t.base}/city=a/{hidden}").read(columns=["id"]))
    assert mdt.validate() == {"missing_files": {"city=a": [hidden]}}


def _check_java_stats(spark, inspect, base):
    """Column stats of every file and partition stats of `ts`, as the Java reader sees them,
    equal what pyarrow computes from the files."""
    for partition, files in _java_listing(spark, inspect, base)["metadata"]["files"].items():
        got = _java_stats(spark, inspect, base, partition, ["ts", "fare", "n", "id", "_hoodie_record_key"])
        for name, _ in files:
            for col in ("ts", "fare", "n", "id"):
                lo, hi, nulls, count = pyarrow_min_max(f"{base}/{partition}/{name}", col)
                s = got[name][col]
                assert (_java_value(s["min"]), _java_value(s["max"]), s["nullCount"], s["valueCount"]) == \
                    (lo, hi, nulls, count), (name, col)
                assert s["isTightBound"] is False
        pstats = json.loads(inspect.partitionStatsJson(str(base), spark._jsc.hadoopConfiguration(),
                                                       json.dumps([partition]), json.dumps(["ts"])))
        tsv = pa.chunked_array([pq.ParquetFile(f"{base}/{partition}/{n}").read(columns=["ts"]).column("ts")
                                .combine_chunks() for n, _ in files])
        p = pstats[partition]["ts"]
        assert (p["min"][1], p["max"][1], p["valueCount"], p["isTightBound"]) == \
            (pc.min(tsv).as_py(), pc.max(tsv).as_py(), len(tsv), True)


def _synthetic_view(storage, base, props) -> SyntheticTable:
    """A SyntheticTable over a table HudiTable wrote, to commit by hand."""
    synth = SyntheticTable.__new__(SyntheticTable)
    synth.storage, synth.base, synth.props = storage, base, props
    synth.partitioned, synth.table_type = True, "COPY_ON_WRITE"
    synth.timeline = Timeline.for_table(storage, base, props)
    synth.create_json = props["hoodie.table.create.schema"]
    synth.writer_schema = avro_schema.to_json(
        avro_schema.with_meta_fields(avro_schema.to_writer_style(synth.create_json)))
    return synth


def _second_write(synth, storage, base):
    def second(instant):
        partition = "city=sf"
        name = str(filenames.BaseFileName(filenames.new_file_id(), "0-1-0", instant))
        arrow = pa.table({"id": ["id-900", "id-901"], "ts": [900, 901], "city": ["sf", "sf"], "fare": [0.5, 99.0],
                          "n": pa.array([None, 7], pa.int32())})
        table = base_file.add_meta_columns(arrow, commit_time=instant, partition_path=partition, file_name=name,
                                           record_keys=arrow.column("id"), partition_id=0)
        st = base_file.write_base_file(f"{base}/{partition}/{name}", table, synth.writer_schema,
                                       filesystem=storage.fs)
        return [WriteStat(partition=partition, file_id=name.split("_")[0], path=f"{partition}/{name}",
                          file_size=st.file_size, num_writes=2, num_inserts=2, bloom=st.bloom_filter.serialize(),
                          column_stats=column_stats_json(table, st.parquet_metadata))]
    return second


def test_java_reader_and_hudi_rs_read_the_metadata_table(spark, inspect, tmp_path):
    from pyhudi.hudi_table import HudiTable

    path = str(tmp_path / "trips")
    rows = [(f"id-{i:03d}", i * 10, ["sf", "nyc", "la"][i % 3], i * 1.25, i if i % 4 else None) for i in range(30)]
    df = spark.createDataFrame(rows, "id string, ts long, city string, fare double, n int")
    HudiTable(spark, path, TRIPS).insert(df)
    storage, base = Storage.for_uri(path)
    props = properties.load(storage, base)
    mdt = MetadataWriter(storage, base, props)
    assert _java_listing(spark, inspect, base)["mdt"] is False
    mdt.initialize(listing=listing_from_storage(storage, base))
    r = _assert_java_agrees(spark, inspect, base, mdt)
    assert r["metadata"]["partitions"] == ["city=la", "city=nyc", "city=sf"]
    _check_java_stats(spark, inspect, base)
    assert _hudi_rs_ids(path) == [r[0] for r in rows]

    # a second write by the protocol, the MDT committed before the data instant
    synth = _synthetic_view(storage, base, props)
    synth.commit(_second_write(synth, storage, base), mdt=mdt)
    _assert_java_agrees(spark, inspect, base, mdt)
    _check_java_stats(spark, inspect, base)
    assert _hudi_rs_ids(path) == sorted([r[0] for r in rows] + ["id-900", "id-901"])
    assert sorted(spark.read.format("hudi-meta").load(path).select("id").toPandas()["id"]) == _hudi_rs_ids(path)

    # compaction: the Java reader reads the new base HFiles to the same listing
    c = mdt.compact()
    slices = json.loads(inspect.slicesJson(str(base), spark._jsc.hadoopConfiguration(), "files"))
    assert slices == [{"fileId": "files-0000-0", "base": slices[0]["base"], "logs": []}]
    assert slices[0]["base"].endswith(f"_{c}.hfile")
    _assert_java_agrees(spark, inspect, base, mdt)
    _check_java_stats(spark, inspect, base)
    assert mdt.clean(retain=1)
    _assert_java_agrees(spark, inspect, base, mdt)
    assert _hudi_rs_ids(path) == sorted([r[0] for r in rows] + ["id-900", "id-901"])
    assert mdt.validate() == {}

    mdt.delete()
    assert _java_listing(spark, inspect, base)["mdt"] is False


def _skipping(df) -> str:
    return df._jdf.queryExecution().executedPlan().toString().split("dataSkipping=")[1].split()[0]


def test_the_connector_plans_without_a_dropped_column_stats(spark, inspect, tmp_path):
    from pyhudi.hudi_table import HudiTable

    path = str(tmp_path / "trips")
    rows = [(f"id-{i:03d}", i * 10, ["sf", "nyc", "la"][i % 3], i * 1.25, i) for i in range(30)]
    HudiTable(spark, path, TRIPS).insert(spark.createDataFrame(rows, "id string, ts long, city string, fare double,"
                                                                     " n int"))
    storage, base = Storage.for_uri(path)
    MetadataWriter(storage, base, properties.load(storage, base)).initialize()
    query = spark.read.format("hudi-meta").load(path).where("ts = 40")
    assert _skipping(query).startswith("column_stats") and [r.id for r in query.collect()] == ["id-004"]
    synth = _synthetic_view(storage, base, properties.load(storage, base))
    mdt = MetadataWriter(storage, base, synth.props, partitions=[FILES])
    synth.commit(_second_write(synth, storage, base), mdt=mdt)
    assert mdt.partitions() == [FILES] and not storage.exists(f"{mdt.mdt_path}/{COLUMN_STATS}")
    _assert_java_agrees(spark, inspect, base, mdt)
    query = spark.read.format("hudi-meta").load(path).where("ts = 40 or ts = 901")
    assert _skipping(query) == "off(no-column_stats)"
    assert sorted(r.id for r in query.collect()) == ["id-004", "id-901"] == \
        [i for i in _hudi_rs_ids(path) if i in ("id-004", "id-901")]


V8_WITHOUT_MDT = ["sample_table_cow__v8_complexkeygen_hivestyle", "sample_table_cow__v8_nonpartitioned",
                  "sample_table_cow__v8_simplekeygen_hivestyle_no_metafields",
                  "sample_table_cow__v8_simplekeygen_nonhivestyle", "sample_table_cow__v8_empty"]
TYPED_COLUMNS = ["id", "name", "isActive", "intField", "longField", "floatField", "doubleField", "decimalField",
                 "dateField", "timestampField", "binaryField"]


def _as_java(value, typ: pa.DataType):
    """A pyarrow min/max as the Java reader reports the v8 wrapper value."""
    import struct

    if value is None:
        return None
    if pa.types.is_timestamp(typ):  # LongWrapper of the stored epoch value
        return pa.scalar(value, typ).cast(pa.int64()).as_py()
    if pa.types.is_binary(typ):
        return base64.b64encode(value).decode()
    if pa.types.is_float32(typ):
        return struct.unpack("<f", struct.pack("<f", value))[0]
    return value


@pytest.mark.parametrize("name", V8_WITHOUT_MDT)
def test_metadata_table_for_hudi_written_v8_tables(spark, inspect, fixture_tables, tmp_path, name):
    """Real Hudi 1.0 tables without a metadata table get one; the Java reader lists them through it
    and its column statistics are the Parquet files' own (every column type of the fixtures)."""
    from hudi import HudiTableBuilder

    base = tmp_path / name
    shutil.copytree(fixture_tables[name], base)
    storage, b = Storage.for_uri(str(base))

    def hudi_rs_rows():
        return sum(x.num_rows for x in HudiTableBuilder.from_base_uri(b).build().read())

    before = hudi_rs_rows()
    mdt = MetadataWriter(storage, b, properties.load(storage, b))
    mdt.initialize()
    assert mdt.validate() == {}
    r = _assert_java_agrees(spark, inspect, b, mdt)
    assert hudi_rs_rows() == before
    meta_fields = properties.load(storage, b).get("hoodie.populate.meta.fields") != "false"
    for partition, files in r["metadata"]["files"].items():
        got = _java_stats(spark, inspect, b, partition, TYPED_COLUMNS + ["_hoodie_record_key", "_hoodie_file_name"])
        for fname, _ in files:
            path = f"{b}/{partition}/{fname}" if partition else f"{b}/{fname}"
            table = pq.ParquetFile(path).read()
            assert ("_hoodie_record_key" in got[fname]) == meta_fields and "_hoodie_file_name" not in got[fname]
            for col in TYPED_COLUMNS:
                s, c = got[fname][col], table.column(col)
                mm = pc.min_max(c)
                assert (_java_value(s["min"]), _java_value(s["max"])) == \
                    (_as_java(mm["min"].as_py(), c.type), _as_java(mm["max"].as_py(), c.type)), (fname, col)
                assert (s["nullCount"], s["valueCount"]) == (c.null_count, len(c))


def test_java_reader_on_mor_logs_and_non_partitioned(spark, inspect, tmp_path):
    t, fid = non_partitioned_mor_table(tmp_path / "np")
    mdt = t.mdt()
    mdt.initialize()
    _assert_java_agrees(spark, inspect, t.base, mdt)
    instant, stats = t.commit(lambda i: [t.write_log(i, "x", [1, 2], fid)], mdt=mdt)
    r = _assert_java_agrees(spark, inspect, t.base, mdt)
    assert r["metadata"]["partitions"] == [""]
    [sl] = r["metadata"]["slices"][""]
    assert sl["logs"] == [posixpath.basename(stats[0].path)]
    got = _java_stats(spark, inspect, t.base, "", ["amount", "day", "price", "flag", "qty"])
    s = got[sl["logs"][0]]
    assert (_java_value(s["amount"]["min"]), _java_value(s["amount"]["max"])) == (1.5, 3.0)
    assert _java_value(s["day"]["max"]) == dt.date(2024, 1, 3)
    assert _java_value(s["price"]["min"]) == decimal.Decimal("0.25")
    assert s["flag"]["min"] == ["boolean", False] and s["qty"]["valueCount"] == 2
    base_name = sl["base"]
    b = got[base_name]
    assert b["qty"]["nullCount"] == 1 and b["qty"]["min"] == ["int", 1] and b["price"]["max"][0] == "decimal"
    mdt.compact()
    _assert_java_agrees(spark, inspect, t.base, mdt)
    got_after = _java_stats(spark, inspect, t.base, "", ["amount", "day", "price", "flag", "qty"])
    assert got_after == got

    # a write whose MDT deltacommit follows an MDT compaction scheduled after it started (Hudi's order)
    tl = t.timeline
    inflight, i = start_write(t, "deltacommit")
    stats = [t.write_log(i, "x", [3, 4], fid)]
    assert mdt.compact() > i
    mdt.commit(i, "deltacommit", stats, {})
    pending = _java_listing(spark, inspect, t.base)["metadata"]["files"][""]  # not completed on the data table:
    assert posixpath.basename(stats[0].path) not in [n for n, _ in pending]  # its MDT blocks are not used yet
    meta = im.commit_metadata({"": [im.write_stat(fileId=fid, path=stats[0].path, partitionPath="",
                                                  fileSizeInBytes=stats[0].file_size)]}, "UPSERT", None)
    tl.complete(inflight, im.encode(im.COMMIT, meta))
    r = _assert_java_agrees(spark, inspect, t.base, mdt)
    assert posixpath.basename(stats[0].path) in r["metadata"]["slices"][""][0]["logs"]
