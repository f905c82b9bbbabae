"""Tables written with the metadata table: hudi-rs and hudi-meta read the same rows after several
commits, a delete_partition and a metadata-table compaction; validate finds no difference."""

import pyarrow as pa
import pytest

from pyhudi.hudi_table import HudiTable
from pyhudi.metadata import MetadataWriter
from pyhudi.storage import Storage
from pyhudi.table import properties
from pyhudi.table.timeline import Timeline
from tests.canonical import canon

SCHEMA = "id string, ts long, region string, amount double"


def _hudi_rs(path):
    from hudi import HudiTableBuilder
    return canon(pa.Table.from_batches(HudiTableBuilder.from_base_uri(path).build().read()))


@pytest.mark.parametrize("table_type", ["COPY_ON_WRITE", "MERGE_ON_READ"])
def test_metadata_table_interop(spark, tmp_path, table_type):
    path = str(tmp_path / table_type)
    t = HudiTable(spark, path, {"hoodie.table.name": "mdt", "hoodie.datasource.write.recordkey.field": "id",
                                "hoodie.datasource.write.precombine.field": "ts",
                                "hoodie.datasource.write.partitionpath.field": "region",
                                "hoodie.datasource.write.hive_style_partitioning": "true",
                                "hoodie.datasource.write.table.type": table_type,
                                "hoodie.metadata.compact.max.delta.commits": "3"})
    regions = ("eu", "us", "apac")
    t.insert(spark.createDataFrame([(f"k{i}", 1, regions[i % 3], float(i)) for i in range(300)], SCHEMA))
    for n in range(3):
        t.upsert(spark.createDataFrame([(f"k{i}", 2 + n, regions[i % 3], -float(i)) for i in range(n, 300, 7)], SCHEMA))
    t.delete_partition(["region=apac"])
    t.upsert(spark.createDataFrame([("k1", 9, "eu", 1.5), ("new", 1, "us", 2.5)], SCHEMA))

    storage, base = Storage.for_uri(path)
    props = properties.load(storage, base)
    assert set(props["hoodie.table.metadata.partitions"].split(",")) >= {"files", "column_stats"}
    mdt_timeline = Timeline(storage, f"{base}/.hoodie/metadata", 2)
    assert any(i.action == "commit" for i in mdt_timeline.completed())  # a metadata compaction ran
    ours = t.read()
    assert "listing=metadata" in ours._jdf.queryExecution().executedPlan().toString()
    got = canon(ours.toArrow())
    assert got == _hudi_rs(path)
    assert not [r for r in got["rows"] if "apac" in r]
    assert MetadataWriter(storage, base, props).validate() == {}
