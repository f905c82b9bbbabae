"""WriterView.latestFileSlices: the latest file slices of some partitions, the writer's view of a table.

TableSummary (test jar) lists the whole table from storage; its "latest" slices are the reference.
"""
from __future__ import annotations

import json
import os

import pytest

from pyhudi import HudiTable

SCHEMA = "id string, v int, ts long, region string"
QUICKSTART = "quickstart_trips_table_mor_avro__v8_trips_8i3u1d"  # has a metadata table


def writer_view(spark, path, partitions=None) -> dict:
    jpartitions = None
    if partitions is not None:
        gateway = spark.sparkContext._gateway
        jpartitions = gateway.new_array(gateway.jvm.java.lang.String, len(partitions))
        for i, p in enumerate(partitions):
            jpartitions[i] = p
    conf = spark._jsc.hadoopConfiguration()
    return json.loads(spark._jvm.io.hudimeta.spark.bridge.WriterView.latestFileSlices(conf, path, jpartitions))


def summary_latest(spark, path) -> list[dict]:
    summary = spark._jvm.io.hudimeta.table.TableSummary.json(spark._jsc.hadoopConfiguration(), path, "")
    return json.loads(summary)["slices"]["latest"]


def by_group(slices) -> dict:
    """(partition, fileId) -> the slice without its base file size (TableSummary does not give it)."""
    return {(s["partitionPath"], s["fileId"]): {k: v for k, v in s.items() if k != "baseFileSize"} for s in slices}


def check_against_summary(spark, path, partitions=None) -> dict:
    view = writer_view(spark, path, partitions)
    expected = [s for s in summary_latest(spark, path) if partitions is None or s["partitionPath"] in partitions]
    assert expected, "the check needs slices to compare"
    assert by_group(view["slices"]) == by_group(expected)
    assert len(view["slices"]) == len(expected)
    for s in view["slices"]:
        if s["baseFile"] is None:
            assert s["baseFileSize"] is None
        else:
            assert s["baseFileSize"] == os.path.getsize(os.path.join(path, s["partitionPath"], s["baseFile"]))
    return view


@pytest.fixture(scope="module", params=["true", "false"], ids=["metadata", "no-metadata"])
def written(request, spark, tmp_path_factory):
    """A pyhudi MERGE_ON_READ table over three partitions, with or without a metadata table."""
    path = str(tmp_path_factory.mktemp("writer_view") / "t")
    table = HudiTable(spark, path, {"hoodie.table.name": "wv", "hoodie.datasource.write.recordkey.field": "id",
                                    "hoodie.datasource.write.precombine.field": "ts",
                                    "hoodie.datasource.write.partitionpath.field": "region",
                                    "hoodie.datasource.write.table.type": "MERGE_ON_READ",
                                    "hoodie.metadata.enable": request.param})
    regions = ("eu", "us", "apac")
    table.insert(spark.createDataFrame([(f"k{i}", 1, 1, regions[i % 3]) for i in range(30)], SCHEMA))
    table.upsert(spark.createDataFrame([(f"k{i}", 2, 2, regions[i % 3]) for i in range(0, 30, 4)], SCHEMA))
    return path, request.param == "true"


def test_pyhudi_table_all_partitions(spark, written):
    path, metadata = written
    view = check_against_summary(spark, path)
    assert view["listing"] == ("metadata" if metadata else "storage")
    assert {s["partitionPath"] for s in view["slices"]} == {"eu", "us", "apac"}
    assert any(s["logFiles"] for s in view["slices"])  # the upsert's log files are in the slices


def test_pyhudi_table_one_partition(spark, written):
    path, metadata = written
    view = check_against_summary(spark, path, ["us"])
    assert view["listing"] == ("metadata" if metadata else "storage")
    assert {s["partitionPath"] for s in view["slices"]} == {"us"}


def test_unknown_partition_has_no_slices(spark, written):
    path, _ = written
    assert writer_view(spark, path, ["mars"])["slices"] == []
    assert writer_view(spark, path, [])["slices"] == []


@pytest.mark.parametrize("name", [QUICKSTART, "sample_table_cow__v8_complexkeygen_hivestyle",
                                  "sample_table_cow__v8_nonpartitioned"])
def test_fixture_tables(spark, fixture_tables, name):
    path = fixture_tables[name]
    view = check_against_summary(spark, path)
    assert view["listing"] == ("metadata" if name == QUICKSTART else "storage")
    partitions = sorted({s["partitionPath"] for s in view["slices"]})
    one = check_against_summary(spark, path, partitions[-1:])
    assert {s["partitionPath"] for s in one["slices"]} == set(partitions[-1:])
