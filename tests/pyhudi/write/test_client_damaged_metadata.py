"""A write on a table whose metadata table is damaged (a log file cut short) fails with MetadataDamagedError
naming the file and `pyhudi metadata repair`: refused before any change when the damage is met while tagging
(the record index), rolled back when met at the metadata commit (column stats); either way no row changes and
nothing is left pending; after the repair the same write goes through."""
import shutil
from pathlib import Path

import pytest

from pyhudi.hudi_table import HudiTable
from pyhudi.metadata.errors import MetadataDamagedError
from pyhudi.services import metadata_repair
from pyhudi.services.instant import ServiceTable
from tests.pyhudi.services.test_metadata_check import (
    OPTS,
    SCHEMA,
    table,  # noqa: F401 - the fixture
)
from tests.table_checks import unchanged_after

WRITE = {**OPTS, "hoodie.index.type": "RECORD_INDEX"}


def _cut_logs(path: str, partition: str) -> list[str]:
    """Every log file of `partition` holding records, cut in half (whichever file group a key is in)."""
    logs = [f for f in (Path(path) / ".hoodie" / "metadata" / partition).glob(".*.log.*") if f.stat().st_size > 200]
    for log in logs:
        log.write_bytes(log.read_bytes()[: log.stat().st_size // 2])
    return [log.name for log in logs]


def _ids(spark, path) -> list[tuple]:
    return sorted(tuple(r) for r in spark.read.format("hudi-meta").load(path).select("id", "price").collect())


def test_damage_met_while_tagging_refuses_before_any_change(spark, table, tmp_path):  # noqa: F811
    path = str(shutil.copytree(table, tmp_path / "t"))
    _cut_logs(path, "record_index")
    rows = spark.createDataFrame([("k002", 9, "eu", "lima", 1.0)], SCHEMA)
    refused = "partition 'record_index' is damaged: .*log.*pyhudi metadata repair .*--partition record_index"
    unchanged_after(path, lambda: HudiTable(spark, path, WRITE).upsert(rows), refused)


def test_damage_met_at_the_metadata_commit_rolls_the_write_back(spark, table, tmp_path):  # noqa: F811
    path = str(shutil.copytree(table, tmp_path / "t"))
    before = _ids(spark, path)
    _cut_logs(path, "column_stats")
    rows = spark.createDataFrame([("k002", 9, "eu", "lima", 1.0)], SCHEMA)
    with pytest.raises(MetadataDamagedError, match="log.*pyhudi metadata repair .*--partition column_stats"):
        HudiTable(spark, path, OPTS).upsert(rows)
    assert _ids(spark, path) == before
    assert [i for i in ServiceTable.open(path).timeline.pending()] == []
    metadata_repair.repair(path, ["column_stats"], spark)
    HudiTable(spark, path, OPTS).upsert(rows)
    assert ("k002", 1.0) in _ids(spark, path)
