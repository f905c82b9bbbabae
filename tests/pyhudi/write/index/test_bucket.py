"""The simple bucket index (hoodie.index.type=BUCKET): Hudi's hash, the file-group layout it
implies, writes that find every record's file group without reading the table, reads through
hudi-meta and hudi-rs, and the errors that keep a table's layout whole."""
import os

import pyarrow as pa
import pytest

from pyhudi.hudi_table import HudiTable
from pyhudi.write.config import WriteConfig, WriteOptionError
from pyhudi.write.index import bucket as bucket_index
from tests.table_checks import unchanged_after

SCHEMA = "id string, ts long, region string, val int"
OPTS = {"hoodie.table.name": "b", "hoodie.datasource.write.recordkey.field": "id",
        "hoodie.datasource.write.precombine.field": "ts", "hoodie.datasource.write.partitionpath.field": "region",
        "hoodie.index.type": "BUCKET", "hoodie.bucket.index.num.buckets": "4"}
REGIONS = ["eu", "us", "apac"]


def _java_bucket(spark, values, n):
    """The oracle: Java's own List<String>.hashCode() of the hashed values, as Hudi computes it."""
    jlist = spark._jvm.java.util.ArrayList()
    for v in values:
        jlist.add(v)
    return (jlist.hashCode() & 0x7FFFFFFF) % n


def _udf_buckets(spark, keys, options):
    cfg = WriteConfig.from_options({**OPTS, **options})
    df = spark.createDataFrame([(k,) for k in keys], "_hoodie_record_key string")
    rows = df.select("_hoodie_record_key", bucket_index.bucket_column(spark, cfg).alias("b")).collect()
    return {r[0]: r[1] for r in rows}


def test_bucket_ids_are_hudis_hash(spark):
    simple = ["k1", "0f8fad5b-d9cb-469f-a165-70867728950e", "ünïcødé", "emoji 😀 key", "", "x" * 500]
    for n in (1, 4, 256, 1000):
        got = _udf_buckets(spark, simple, {"hoodie.bucket.index.num.buckets": str(n)})
        assert got == {k: _java_bucket(spark, [k], n) for k in simple}
    # complex keys "field:value,...": the values of the hash fields; a value may hold ':' and ','
    complex_keys = {
        "id:a,seq:1": ["a"],
        "id:2024-10-22 13:50:42,seq:7": ["2024-10-22 13:50:42"],
        "id:x,y,seq:3": ["x,y"],
        "id:__null__,seq:4": [None],
        "id:__empty__,seq:5": [""],
    }
    got = _udf_buckets(spark, list(complex_keys), {"hoodie.datasource.write.recordkey.field": "id,seq",
                                                   "hoodie.bucket.index.hash.field": "id",
                                                   "hoodie.bucket.index.num.buckets": "97"})
    assert got == {k: _java_bucket(spark, v, 97) for k, v in complex_keys.items()}
    both = _udf_buckets(spark, ["id:a,seq:1"], {"hoodie.datasource.write.recordkey.field": "id,seq",
                                                "hoodie.bucket.index.num.buckets": "97"})
    assert both == {"id:a,seq:1": _java_bucket(spark, ["a", "1"], 97)}


def _rows(spark, ids, ts, val=None):
    return spark.createDataFrame([(f"k{i:05d}", ts, REGIONS[i % 3], i if val is None else val) for i in ids], SCHEMA)


def _files(path):
    out = set()
    for root, _, names in os.walk(path):
        if ".hoodie" not in root.split(os.sep):
            out |= {os.path.relpath(os.path.join(root, n), path) for n in names if not n.startswith(".hoodie")}
    return out


def _file_id(name):
    base = os.path.basename(name)
    return base[1:].split("_")[0] if base.startswith(".") else base.split("_")[0]


def _read_both(table, path):
    """{key: (ts, val)} as hudi-meta and as hudi-rs read the table (they must agree)."""
    from hudi import HudiTableBuilder

    meta = {r["id"]: (r["ts"], r["val"]) for r in table.read().select("id", "ts", "val").collect()}
    batches = HudiTableBuilder.from_base_uri(path).build().read()
    rs = pa.Table.from_batches(batches).select(["id", "ts", "val"]).to_pylist()
    assert {r["id"]: (r["ts"], r["val"]) for r in rs} == meta
    return meta


def _check_layout(spark, table, n):
    """Every record sits in the file group of its bucket, one file group per bucket."""
    rows = table.read().select("_hoodie_record_key", "_hoodie_partition_path", "_hoodie_file_name").collect()
    groups = {}
    for key, part, name in rows:
        fid = _file_id(name)
        assert bucket_index.bucket_of(fid) == _java_bucket(spark, [key], n), (key, fid)
        groups.setdefault((part, bucket_index.bucket_of(fid)), set()).add(fid)
    assert all(len(f) == 1 for f in groups.values())
    return {f for fids in groups.values() for f in fids}


@pytest.mark.parametrize("table_type", ["MERGE_ON_READ", "COPY_ON_WRITE"])
def test_writes_by_bucket_read_back_by_both_readers(spark, tmp_path, table_type):
    path = str(tmp_path / "t")
    table = HudiTable(spark, path, {**OPTS, "hoodie.datasource.write.table.type": table_type})
    table.bulk_insert(_rows(spark, range(3000), 1))
    expected = {f"k{i:05d}": (1, i) for i in range(3000)}
    groups = _check_layout(spark, table, 4)
    assert len(groups) == 12  # 4 buckets x 3 partitions
    assert _read_both(table, path) == expected

    before = _files(path)
    # 600 updates (a third lose on the ordering field) and 300 new keys, all landing in existing buckets
    updates = _rows(spark, range(0, 3000, 5), 2, -1).union(_rows(spark, range(1, 3000, 15), 0, -2))
    table.upsert(updates.union(_rows(spark, range(3000, 3300), 2, -3)))
    for i in range(0, 3000, 5):
        expected[f"k{i:05d}"] = (2, -1)
    expected.update({f"k{i:05d}": (2, -3) for i in range(3000, 3300)})
    written = _files(path) - before
    assert {_file_id(f) for f in written} <= groups  # no new file group: every key found its bucket
    if table_type == "MERGE_ON_READ":  # appended to logs: no base file rewritten
        assert written and all(".log." in f for f in written)
    else:
        assert all(f.endswith(".parquet") for f in written) and len(written) == 12
    assert _check_layout(spark, table, 4) == groups
    assert _read_both(table, path) == expected

    # deletes, some of keys that never existed
    table.delete(_rows(spark, list(range(2, 3000, 10)) + list(range(9000, 9010)), 3))
    for i in range(2, 3000, 10):
        expected.pop(f"k{i:05d}")
    assert _read_both(table, path) == expected
    # a new partition gets its buckets when its first records arrive
    table.upsert(spark.createDataFrame([(f"n{i}", 5, "latam", i) for i in range(40)], SCHEMA))
    expected.update({f"n{i}": (5, i) for i in range(40)})
    assert len(_check_layout(spark, table, 4)) == 16
    assert _read_both(table, path) == expected


def test_bucket_settings_are_kept_by_the_table(spark, tmp_path):
    path = str(tmp_path / "t")
    HudiTable(spark, path, OPTS).insert(_rows(spark, range(200), 1))
    with open(os.path.join(path, ".hoodie", "hoodie.properties")) as f:
        props = dict(line.strip().split("=", 1) for line in f if "=" in line and not line.startswith("#"))
    assert props["hoodie.index.type"] == "BUCKET"
    assert props["hoodie.bucket.index.num.buckets"] == "4"
    assert props["hoodie.bucket.index.hash.field"] == "id"
    plain = {k: v for k, v in OPTS.items() if "bucket" not in k and "index" not in k}
    table = HudiTable(spark, path, plain)  # no index options: the table's own apply
    groups = _check_layout(spark, table, 4)
    table.upsert(_rows(spark, range(100, 300), 2))
    assert _check_layout(spark, table, 4) == groups
    unchanged_after(path, lambda: HudiTable(spark, path, {**OPTS, "hoodie.bucket.index.num.buckets": "8"})
                     .upsert(_rows(spark, range(5), 3)), "num.buckets=8 contradicts the existing table")
    unchanged_after(path, lambda: HudiTable(spark, path, {**plain, "hoodie.index.type": "SIMPLE"})
                     .upsert(_rows(spark, range(5), 3)), "index.type=SIMPLE contradicts the existing table")
    assert len(table.read().collect()) == 300


def test_bucket_write_to_a_table_laid_out_otherwise_fails_cleanly(spark, tmp_path):
    path = str(tmp_path / "t")
    plain = {k: v for k, v in OPTS.items() if "bucket" not in k and "index" not in k}
    HudiTable(spark, path, plain).insert(_rows(spark, range(100), 1))
    unchanged_after(path, lambda: HudiTable(spark, path, OPTS).upsert(_rows(spark, range(50), 2)),
                     "is not one of 4 buckets: the table was written with another index")
    assert {r[0] for r in HudiTable(spark, path, plain).read().select("ts").distinct().collect()} == {1}


@pytest.mark.parametrize("options, match", [
    ({"hoodie.index.bucket.engine": "CONSISTENT_HASHING"}, "bucket.engine=CONSISTENT_HASHING is not valid"),
    ({"hoodie.bucket.index.hash.field": "region"}, "names region, not a record key field"),
    ({"hoodie.bucket.index.num.buckets": "0"}, "num.buckets=0 is not valid"),
    ({"hoodie.bucket.index.num.buckets": "four"}, "num.buckets=four is not valid"),
])
def test_bad_bucket_options_are_named(options, match):
    with pytest.raises(WriteOptionError, match=match):
        WriteConfig.from_options({**OPTS, **options})


def test_bucket_of_file_ids():
    assert bucket_index.bucket_of("00000003-8a3c-4b2e-9f3e-123456789abc-0") == 3
    assert bucket_index.bucket_of("00001234-0000-0000-0000-000000000000-0") == 1234
    assert bucket_index.bucket_of("c2e78cd5-5f94-4b19-9936-b14fffb52510-0") is None
    assert bucket_index.bucket_of("0000000-") is None
