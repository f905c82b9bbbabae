"""Reads of a catalog table (CREATE TABLE ... USING `hudi-meta`) honour per-read options like load(path).

HudiCatalog hands Spark a HudiMetaTable over the table's location; Spark passes the options of
spark.read.option(...).table(name) to its newScanBuilder, where they must reach the scan.
"""
from __future__ import annotations

import json

import pytest

from pyhudi import HudiTable

SCHEMA = "id string, v int, ts long, region string"
QUERY_TYPE = "hoodie.datasource.query.type"
BEGIN = "hoodie.datasource.read.begin.instanttime"
END = "hoodie.datasource.read.end.instanttime"
AS_OF = "as.of.instant"


@pytest.fixture(scope="module")
def mor(spark, tmp_path_factory):
    """A MERGE_ON_READ table of three commits: path and the instant of each commit."""
    path = str(tmp_path_factory.mktemp("catalog_reads") / "trips")
    table = HudiTable(spark, path, {"hoodie.table.name": "trips", "hoodie.datasource.write.recordkey.field": "id",
                                    "hoodie.datasource.write.precombine.field": "ts",
                                    "hoodie.datasource.write.partitionpath.field": "region",
                                    "hoodie.datasource.write.table.type": "MERGE_ON_READ",
                                    # new keys open new file groups: updates stay in log files (read_optimized)
                                    "hoodie.parquet.small.file.limit": "0"})
    rows = [(f"k{i}", 1, 1, ("eu", "us")[i % 2]) for i in range(6)]
    first = table.insert(spark.createDataFrame(rows, SCHEMA))
    second = table.upsert(spark.createDataFrame([("k0", 2, 2, "eu"), ("k1", 2, 2, "us"), ("k6", 2, 2, "eu")], SCHEMA))
    third = table.upsert(spark.createDataFrame([("k0", 3, 3, "eu")], SCHEMA))
    return path, (first, second, third)


def completion_time(spark, path, requested):
    """Incremental bounds are completion times (table version 8): that of the commit requested at `requested`."""
    summary = json.loads(spark._jvm.io.hudimeta.table.TableSummary.json(spark._jsc.hadoopConfiguration(), path, ""))
    return next(i["completionTime"] for i in summary["instants"]
                if i["requestedTime"] == requested and i["completionTime"])


@pytest.fixture
def catalog_table(spark, mor):
    """The MOR table registered in the session catalog; yields its name."""
    spark.sql("DROP TABLE IF EXISTS catalog_reads")
    spark.sql(f"CREATE TABLE catalog_reads USING `hudi-meta` LOCATION '{mor[0]}'")
    yield "catalog_reads"
    spark.sql("DROP TABLE catalog_reads")


def values(df) -> dict[str, int]:
    return {r["id"]: r["v"] for r in df.select("id", "v").collect()}


def both(spark, table, path, options):
    """The values of a .table(name) read and of a .load(path) read with the same options."""
    by_name = values(spark.read.options(**options).table(table))
    by_path = values(spark.read.format("hudi-meta").options(**options).load(path))
    return by_name, by_path


def test_plain_read_is_the_latest_snapshot(spark, mor, catalog_table):
    by_name, by_path = both(spark, catalog_table, mor[0], {})
    assert by_name == by_path == {"k0": 3, "k1": 2, "k2": 1, "k3": 1, "k4": 1, "k5": 1, "k6": 2}


def test_incremental_returns_only_later_commits(spark, mor, catalog_table):
    path, (first, second, _) = mor
    first, second = completion_time(spark, path, first), completion_time(spark, path, second)
    by_name, by_path = both(spark, catalog_table, path, {QUERY_TYPE: "incremental", BEGIN: first})
    assert by_name == by_path == {"k0": 3, "k1": 2, "k6": 2}
    bounded = {QUERY_TYPE: "incremental", BEGIN: first, END: second}
    by_name, by_path = both(spark, catalog_table, path, bounded)
    assert by_name == by_path == {"k0": 2, "k1": 2, "k6": 2}


def test_as_of_instant_returns_old_values(spark, mor, catalog_table):
    path, (first, second, _) = mor
    by_name, by_path = both(spark, catalog_table, path, {AS_OF: first})
    assert by_name == by_path == {f"k{i}": 1 for i in range(6)}
    by_name, by_path = both(spark, catalog_table, path, {AS_OF: second})
    assert by_name == by_path == {"k0": 2, "k1": 2, "k2": 1, "k3": 1, "k4": 1, "k5": 1, "k6": 2}


def test_read_optimized_returns_base_file_values(spark, mor, catalog_table):
    by_name, by_path = both(spark, catalog_table, mor[0], {QUERY_TYPE: "read_optimized"})
    assert by_name == by_path
    # the upserts went to log files: the base files still hold the first commit's values
    assert {k: by_name[k] for k in (f"k{i}" for i in range(6))} == {f"k{i}": 1 for i in range(6)}


def test_table_options_apply_and_read_options_win(spark, mor):
    path = mor[0]
    spark.sql("DROP TABLE IF EXISTS catalog_reads_ro")
    spark.sql(f"CREATE TABLE catalog_reads_ro USING `hudi-meta` OPTIONS ('{QUERY_TYPE}' 'read_optimized') "
              f"LOCATION '{path}'")
    try:
        read_optimized = values(spark.read.format("hudi-meta").option(QUERY_TYPE, "read_optimized").load(path))
        assert values(spark.table("catalog_reads_ro")) == read_optimized
        assert values(spark.sql("SELECT * FROM catalog_reads_ro")) == read_optimized
        snapshot = values(spark.read.option(QUERY_TYPE, "snapshot").table("catalog_reads_ro"))
        assert snapshot == values(spark.read.format("hudi-meta").load(path))
        assert snapshot["k0"] == 3
    finally:
        spark.sql("DROP TABLE catalog_reads_ro")
