"""The record-level index (io.hudimeta.index.RecordIndex) on real Hudi tables with a record_index.

Every key a full read returns must be located in the partition and file group that hold it (the file
id of `_hoodie_file_name`: a base file's name starts with it, a log-only record carries it); deleted
and unknown keys are absent. The executor-side lookup must agree with the driver-side one.
"""
from __future__ import annotations

import json
import re
import shutil
import zipfile

import pytest
from py4j.protocol import Py4JJavaError
from pyspark.sql import DataFrame

from conftest import TABLE_ZIPS

RLI_TABLES = [z.stem for z in TABLE_ZIPS
              if any(n.endswith(".hoodie/metadata/record_index/.hoodie_partition_metadata")
                     or "/.hoodie/metadata/record_index/" in n for n in zipfile.ZipFile(z).namelist())]
V8_MDT = "quickstart_trips_table_mor_avro__v8_trips_8i3u1d"
V9_MOR_META = "sample_table_mor_avro__v9_txns_simple_meta"
NO_MDT = "sample_table_cow__v9_txns_simple_nometa"
UNKNOWN = ["no-such-key", "TXN-999", ""]
BASE_FILE = re.compile(r"(.+?)_[^_]+_[^_]+\.parquet")


@pytest.fixture(scope="module")
def index(spark):
    return spark._jvm.io.hudimeta.index.RecordIndex


def file_id(file_name: str) -> str:
    m = BASE_FILE.fullmatch(file_name)
    return m[1] if m else file_name


def holders(spark, path) -> dict:
    """key -> (partition path, file id) of every record of a full read."""
    rows = (spark.read.format("hudi-meta").load(path)
            .select("_hoodie_record_key", "_hoodie_partition_path", "_hoodie_file_name").collect())
    return {r[0]: (r[1], file_id(r[2])) for r in rows}


def lookup(index, path, keys, **options) -> dict:
    return json.loads(index.lookupJson(path, options, json.dumps(keys)))


def known_size(df):
    """df cached, so that Spark knows its size (a DataFrame made from Python rows has none)."""
    df.cache().count()
    return df


def shuffles(located) -> int:
    """Shuffles of packs in the lineage of what locate returned (a frame's own exchanges show as ShuffledRowRDD):
    the keys' packs reach their file group's task by one."""
    return located.queryExecution().toRdd().toDebugString().count("ShuffledRDD")


def test_fixtures_with_record_index():
    assert V8_MDT in RLI_TABLES and V9_MOR_META in RLI_TABLES
    assert len(RLI_TABLES) == 7, RLI_TABLES


@pytest.mark.parametrize("name", RLI_TABLES)
def test_lookup_finds_the_file_group_of_every_key(spark, index, fixture_tables, name):
    path = fixture_tables[name]
    expected = holders(spark, path)
    assert expected
    found = lookup(index, path, sorted(expected) + UNKNOWN + ["TXN-009"])
    assert {k: (v["partition"], v["fileId"]) for k, v in found.items()} == expected
    assert all(isinstance(v["instantTime"], int) for v in found.values())


def test_deleted_key_is_absent(spark, index, fixture_tables):
    path = fixture_tables[V9_MOR_META]
    assert "TXN-009" not in holders(spark, path)  # deleted through a delete block
    assert lookup(index, path, ["TXN-009", "TXN-008"]).keys() == {"TXN-008"}


@pytest.mark.parametrize("name", [V8_MDT, V9_MOR_META, "sample_table_cow__v9_txns_nonpart_meta"])
@pytest.mark.parametrize("cached", [True, False])
def test_executor_lookup_equals_driver_lookup(spark, index, fixture_tables, name, cached):
    path = fixture_tables[name]
    keys = sorted(holders(spark, path)) + UNKNOWN + ["TXN-009"]
    driver = {k: (v["partition"], v["fileId"]) for k, v in lookup(index, path, keys).items()}
    # duplicates (also far apart) and nulls in the input; one output row per distinct key found
    df = spark.createDataFrame([(k,) for k in keys + keys[::2] + [None]], "_hudi_bk string").repartition(3)
    jlocated = index.locate(spark._jsparkSession, path, {}, (known_size(df) if cached else df)._jdf)
    assert shuffles(jlocated) == 1
    located = DataFrame(jlocated, spark)
    rows = [tuple(r) for r in located.collect()]
    assert located.columns == ["_hudi_k", "_hudi_p", "_hudi_fg"]
    assert len(rows) == len(driver)
    assert {r[0]: (r[1], r[2]) for r in rows} == driver


def test_executor_lookup_of_no_keys(spark, index, fixture_tables):
    df = spark.createDataFrame([], "_hudi_bk string")
    assert index.locate(spark._jsparkSession, fixture_tables[V9_MOR_META], {}, df._jdf).count() == 0


# ---------------------------------------------------------------- no record index

def error_of(call) -> str:
    with pytest.raises(Py4JJavaError) as err:
        call()
    e = err.value.java_exception
    assert e.getClass().getName() == "io.hudimeta.index.NoRecordIndexException"
    return e.getMessage()


def set_property(base, key, value):
    props = base / ".hoodie" / "hoodie.properties"
    lines = [f"{key}={value}" if line.startswith(key + "=") else line for line in props.read_text().splitlines()]
    props.write_text("\n".join(lines) + "\n")


def test_table_without_record_index_is_a_clear_error(spark, index, fixture_tables, tmp_path):
    path = fixture_tables[NO_MDT]
    message = error_of(lambda: lookup(index, path, ["TXN-001"]))
    assert message.startswith(f"hudi-meta: the table at {path} has no record index")
    assert "enable hoodie.metadata.record.index.enable and write, or build it with pyhudi index create" in message
    df = spark.createDataFrame([("TXN-001",)], "_hudi_bk string")
    assert error_of(lambda: index.locate(spark._jsparkSession, path, {}, df._jdf)) == message


def test_record_index_being_built_is_a_clear_error(spark, index, fixture_tables, tmp_path):
    base = tmp_path / V9_MOR_META
    shutil.copytree(fixture_tables[V9_MOR_META], base)
    set_property(base, "hoodie.table.metadata.partitions", "column_stats,files,partition_stats")
    set_property(base, "hoodie.table.metadata.partitions.inflight", "record_index")
    message = error_of(lambda: lookup(index, str(base), ["TXN-001"]))
    assert "has no record index (record_index is still being built" in message


COUNTING = {"fs.file.impl": "io.hudimeta.metadata.CountingLocalFileSystem", "fs.file.impl.disable.cache": "true"}


def test_each_task_opens_only_its_file_group(spark, index, fixture_tables):
    """The driver resolves the slices (listing record_index only); tasks open the files of the file groups
    their keys hash to, each once, and nothing else of the metadata table or the data table."""
    path = fixture_tables[V9_MOR_META]
    slices = {s["fileId"]: s for s in json.loads(spark._jvm.io.hudimeta.metadata.MetadataInspect.slicesJson(
        path, spark._jsc.hadoopConfiguration(), "record_index"))}
    keys = ["TXN-008", "TXN-001", "TXN-001"]
    groups = {f"record-index-{spark._jvm.io.hudimeta.metadata.MetadataKeys.fileGroupIndex(k, len(slices)):04d}-0"
              for k in keys}
    counter = spark._jvm.io.hudimeta.metadata.CountingLocalFileSystem
    located = index.locate(spark._jsparkSession, path, COUNTING,
                           spark.createDataFrame([(k,) for k in keys], "_hudi_bk string")._jdf)
    counter.start()
    try:
        assert {r[0] for r in DataFrame(located, spark).collect()} == {"TXN-008", "TXN-001"}
    finally:
        counter.stop()
    opened = [str(p).rsplit("/", 2)[-2:] for p in counter.opens()]
    expected = [["record_index", f] for g in groups for f in
                ([slices[g]["base"]] if slices[g]["base"] else []) + slices[g]["logs"]]
    assert sorted(opened) == sorted(expected)


def test_file_groups_not_routable_by_hash_are_all_searched(spark, index, fixture_tables, tmp_path):
    """record_index file ids without the 4-digit index (e.g. a partitioned record index) cannot be routed by
    key hash: both lookups then search every file group and still find each key."""
    base = tmp_path / V9_MOR_META
    shutil.copytree(fixture_tables[V9_MOR_META], base)
    for f in (base / ".hoodie" / "metadata" / "record_index").iterdir():
        f.rename(f.with_name(re.sub(r"record-index-(\d{4})-", r"record-index-g\1x-", f.name)))
    path = str(base)
    keys = sorted(holders(spark, fixture_tables[V9_MOR_META])) + UNKNOWN
    expected = lookup(index, fixture_tables[V9_MOR_META], keys)
    assert lookup(index, path, keys) == expected
    df = known_size(spark.createDataFrame([(k,) for k in keys + keys], "_hudi_bk string"))
    located = index.locate(spark._jsparkSession, path, {}, df._jdf)
    rows = DataFrame(located, spark).collect()
    assert sorted(tuple(r) for r in rows) == sorted((k, v["partition"], v["fileId"]) for k, v in expected.items())


def test_lookup_tasks_are_the_file_groups_up_to_the_cores(spark, index, fixture_tables):
    """One task per file group up to the cores (more would only queue), each group in one task."""
    path = fixture_tables[V8_MDT]
    groups = len(json.loads(spark._jvm.io.hudimeta.metadata.MetadataInspect.slicesJson(
        path, spark._jsc.hadoopConfiguration(), "record_index")))
    keys = sorted(holders(spark, path))
    located = index.locate(spark._jsparkSession, path, {},
                           known_size(spark.createDataFrame([(k,) for k in keys], "_hudi_bk string"))._jdf)
    rdd = located.queryExecution().toRdd()
    assert rdd.getNumPartitions() == min(groups, spark.sparkContext.defaultParallelism)
    assert shuffles(located) == 1


def test_keys_past_a_pack_are_sent_in_several(spark, index, fixture_tables):
    """A task sends a file group's keys in packs of up to 4 MB: 60 MB of long absent keys, between halves of the
    table's keys in one partition, fill several packs per group; every key found is still found once."""
    path = fixture_tables[V9_MOR_META]
    keys = sorted(holders(spark, path))
    driver = {k: (v["partition"], v["fileId"]) for k, v in lookup(index, path, keys).items()}
    long_keys = [f"absent-{i:04d}-" + "x" * 60_000 for i in range(1000)]
    ordered = keys[::2] + long_keys + keys[1::2] + keys[:3]
    df = spark.createDataFrame([(k,) for k in ordered], "_hudi_bk string").coalesce(1)
    rows = DataFrame(index.locate(spark._jsparkSession, path, {}, df._jdf), spark).collect()
    assert len(rows) == len(driver)
    assert {r[0]: (r[1], r[2]) for r in rows} == driver
