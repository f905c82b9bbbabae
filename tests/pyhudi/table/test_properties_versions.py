"""Table versions: pyhudi reads tables of versions 6, 8 and 9 (the timeline, index and metadata commands, the
show_* procedures) and writes version 8 only; a write on a version-9 table (Apache Hudi 1.1 and later) is
refused before anything changes, saying what to do (properties.check_writable)."""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from pyhudi import HudiTable
from pyhudi.cli import main as cli
from tests.table_checks import unchanged_after

V9 = "sample_table_mor_avro__v9_txns_simple_meta"  # Apache Hudi 1.1: record, secondary and column stats indexes
READABLE = [V9, "sample_table_cow__v9_txns_simple_meta", "sample_table_cow__v8_complexkeygen_hivestyle",
            "quickstart_trips_table_mor_avro__v8_trips_8i3u1d", "sample_table_mor_parquet__v6_complexkeygen_hivestyle"]
REFUSED = "is table version 9 .*downgrade_table"


@pytest.mark.parametrize("name", READABLE)
def test_the_read_only_commands_read_every_version(fixture_tables, capsys, name):
    path = fixture_tables[name]
    has_mdt = (Path(path) / ".hoodie" / "metadata" / ".hoodie" / "hoodie.properties").exists()
    assert cli(["timeline", path, "--archived"]) == 0
    assert cli(["index", "list", path]) == 0
    assert cli(["savepoint", "list", path]) == 0
    assert cli(["metadata", "stats", path]) == (0 if has_mdt else 1)
    assert cli(["metadata", "validate", path]) == (0 if has_mdt else 1)
    out = capsys.readouterr().out
    assert "error" not in out and ("files: agrees with the data" in out) == has_mdt, out


def test_the_indexes_of_a_version_9_table_answer(fixture_tables, capsys):
    path = fixture_tables[V9]
    assert cli(["index", "list", path]) == 0
    listed = capsys.readouterr().out
    assert "record_index: built" in listed and "secondary_index_merchant_idx: built" in listed, listed
    assert cli(["index", "lookup", path, "TXN-001", "nothing"]) == 0
    found = capsys.readouterr().out
    assert "TXN-001: partition region=us, file group" in found and "nothing: not in the table" in found, found


@pytest.mark.parametrize("command", [["compact"], ["log-compact"], ["cluster"], ["clean"], ["archive"],
                                     ["rollback"], ["metadata", "delete"], ["metadata", "create"],
                                     ["savepoint", "create"], ["index", "create"], ["index", "drop"]])
def test_a_cli_write_on_version_9_is_refused_first(fixture_tables, tmp_path, capsys, command):
    path = str(tmp_path / "t")
    shutil.copytree(fixture_tables[V9], path)
    unchanged_after(path, lambda: _fails(cli([*command, path])), "failed")
    said = " ".join(capsys.readouterr().out.split())  # rich wraps the line
    assert "is table version 9" in said and "to_version => 'EIGHT'" in said, said


def test_a_dataframe_write_on_version_9_is_refused_before_an_instant(spark, fixture_tables, tmp_path):
    path = str(tmp_path / "t")
    shutil.copytree(fixture_tables[V9], path)
    read = spark.read.format("hudi-meta").load(path)
    rows = read.drop(*[c for c in read.columns if c.startswith("_hoodie_")]).limit(1)
    for metadata in ("true", "false"):  # without the metadata table too: the write itself asks
        table = HudiTable(spark, path, {"hoodie.metadata.enable": metadata})
        unchanged_after(path, lambda t=table: t.upsert(rows), REFUSED)


@pytest.mark.parametrize("call", ["show_commits", "show_metadata_table_stats", "show_metadata_table_partitions",
                                  "validate_metadata_table_files", "show_table_properties", "show_fsview_latest",
                                  "show_fsview_all", "show_savepoints", "show_compaction"])
def test_the_show_procedures_read_a_version_9_table(spark, fixture_tables, call):
    rows = spark.sql(f"CALL {call}(path => '{fixture_tables[V9]}')").collect()
    if call not in ("show_savepoints", "validate_metadata_table_files", "show_compaction"):
        assert rows, call


def _fails(rc: int) -> None:
    if rc != 0:
        raise RuntimeError(f"failed with {rc}")
