"""latest_file_slices: the connector's answer for the partitions asked, as FileSlice values."""
import os

import pytest

from pyhudi.table.file_slices import FileSlice
from pyhudi.write.hudi_table import HudiTable
from pyhudi.write.view import latest_file_slices

SCHEMA = "id string, ts long, region string"


@pytest.fixture(scope="module")
def table(spark, tmp_path_factory):
    """A merge-on-read table over three partitions: base files, then log files in some groups."""
    path = str(tmp_path_factory.mktemp("view") / "t")
    t = HudiTable(spark, path, {"hoodie.table.name": "v", "hoodie.datasource.write.recordkey.field": "id",
                                "hoodie.datasource.write.precombine.field": "ts",
                                "hoodie.datasource.write.partitionpath.field": "region",
                                "hoodie.datasource.write.table.type": "MERGE_ON_READ"})
    regions = ("eu", "us", "apac")
    t.insert(spark.createDataFrame([(f"k{i}", 1, regions[i % 3]) for i in range(30)], SCHEMA))
    t.upsert(spark.createDataFrame([(f"k{i}", 2, regions[i % 3]) for i in range(0, 30, 3)], SCHEMA))
    return path


def test_one_partition(spark, table):
    slices = latest_file_slices(spark, table, ["us"])
    assert slices and all(isinstance(s, FileSlice) and s.partition == "us" for s in slices)
    for s in slices:
        assert s.base and s.base_size == os.path.getsize(os.path.join(table, "us", s.base))
        assert s.base_instant in s.base and s.file_id == s.base.split("_")[0]
    assert latest_file_slices(spark, table, ["eu"])[0].logs  # the upsert's log files


def test_every_partition_or_none(spark, table):
    every = latest_file_slices(spark, table, None)
    assert {s.partition for s in every} == {"eu", "us", "apac"}
    assert [s for s in every if s.partition == "us"] == latest_file_slices(spark, table, iter(["us"]))
    assert latest_file_slices(spark, table, []) == []
    assert latest_file_slices(spark, table, ["mars"]) == []
