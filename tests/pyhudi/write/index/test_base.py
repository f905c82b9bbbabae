"""The Index seam: one class per hoodie.index.type, its facts as the write asks them, and the global indexes'
partition moves with Apache Hudi's defaults (hoodie.simple.index.update.partition.path and
hoodie.bloom.index.update.partition.path true, hoodie.record.index.update.partition.path false)."""
import pytest

from pyhudi.config import OptionError, values
from pyhudi.hudi_table import HudiTable
from pyhudi.write import index
from pyhudi.write.config import WriteConfig

SCHEMA = "id string, ts long, region string, val int"
OPTS = {"hoodie.table.name": "g", "hoodie.datasource.write.recordkey.field": "id",
        "hoodie.datasource.write.precombine.field": "ts", "hoodie.datasource.write.partitionpath.field": "region"}


def _index(index_type: str, **options: str) -> index.Index:
    return index.of(WriteConfig.from_options({**OPTS, "hoodie.index.type": index_type,
                                              "hoodie.datasource.write.table.type": "MERGE_ON_READ", **options}))


def test_every_index_type_the_option_takes_has_one_class():
    assert sorted(index.TYPES) == sorted(values.INDEX_TYPES.values())
    assert all(cls.name == name for name, cls in index.TYPES.items())


@pytest.mark.parametrize("index_type, is_global, logs, positions, in_driver", [
    ("SIMPLE", False, False, True, True),
    ("GLOBAL_SIMPLE", True, False, True, False),
    ("BLOOM", False, False, True, True),
    ("GLOBAL_BLOOM", True, False, True, False),
    ("BUCKET", False, False, False, False),
    ("RECORD_INDEX", True, True, False, True),
])
def test_what_each_index_says_of_itself(index_type, is_global, logs, positions, in_driver):
    idx = _index(index_type)
    assert (idx.is_global, idx.inserts_to_logs, idx.writes_positions, idx.tags_in_driver) == \
        (is_global, logs, positions, in_driver)
    assert idx.hashes_keys == (index_type == "BUCKET")
    assert ("record_index" in idx.metadata_partitions()) == (index_type == "RECORD_INDEX")


def test_index_options_are_checked_when_the_index_is_chosen():
    assert _index("BLOOM", **{"pyhudi.bloom.index.log.files.enable": "true"}).writes_key_summaries
    with pytest.raises(OptionError, match="RECORD_INDEX looks keys up in the metadata table"):
        _index("RECORD_INDEX", **{"hoodie.metadata.enable": "false"})


@pytest.mark.parametrize("index_type, option", [("GLOBAL_SIMPLE", "hoodie.simple.index.update.partition.path"),
                                                ("GLOBAL_BLOOM", "hoodie.bloom.index.update.partition.path")])
@pytest.mark.parametrize("moves", [None, "false"])
def test_a_global_index_finds_a_key_in_another_partition(spark, tmp_path, index_type, option, moves):
    """An upsert of a key living in another partition: moved there by default (Hudi's), updated where it lives
    with the option off; a delete finds the key wherever it lives. One row per key either way."""
    opts = {**OPTS, "hoodie.index.type": index_type, **({option: moves} if moves else {})}
    table = HudiTable(spark, str(tmp_path / "t"), opts)
    table.upsert(spark.createDataFrame([("a", 1, "eu", 1), ("b", 1, "eu", 1), ("c", 1, "us", 1)], SCHEMA))
    table.upsert(spark.createDataFrame([("a", 2, "us", 2)], SCHEMA))
    table.delete(spark.createDataFrame([("b", 3, "apac", 0)], SCHEMA))
    rows = sorted((r.id, r.val, r._hoodie_partition_path) for r in table.read().collect())
    assert rows == [("a", 2, "us" if moves is None else "eu"), ("c", 1, "us")]
