"""`pyhudi metadata repair`: what the validator finds differing is built again from the data (the partitions
that need it with it), a named partition is rebuilt while a writer commits in the middle of the build, a
truncated `files` HFile takes the whole metadata table's rebuild; the validator agrees after, rows unchanged."""
from pathlib import Path

from pyhudi import faults
from pyhudi.cli import main as cli
from pyhudi.hudi_table import HudiTable
from pyhudi.services import metadata_repair
from tests.pyhudi.services.test_metadata_check import (
    EVERY,
    OPTS,
    SCHEMA,
    SI,
    _copy,
    _rewrite_base,
    table,  # noqa: F401 - the fixture
    wrong_min,
)


def _ids(spark, path) -> list[str]:
    return sorted(r.id for r in spark.read.format("hudi-meta").load(path).select("id").collect())


def test_what_differs_is_found_and_built_again(spark, table, tmp_path):  # noqa: F811
    path = _copy(table, tmp_path)
    before = _ids(spark, path)
    _rewrite_base(path, "column_stats", wrong_min)
    _rewrite_base(path, SI, lambda rec: None if rec.key.startswith("paris$") else rec)
    rebuilt, after = metadata_repair.repair(path, spark=spark)
    assert rebuilt == ["column_stats", "partition_stats", SI]  # partition stats need column stats
    assert after == {p: [] for p in EVERY}
    assert _ids(spark, path) == before


def test_a_named_partition_is_built_again_while_a_writer_commits(spark, table, tmp_path):  # noqa: F811
    path = _copy(table, tmp_path)
    _rewrite_base(path, "record_index", lambda rec: None if rec.key == "k002" else rec)
    writer, writes, started = HudiTable(spark, path, OPTS), [], []

    def meanwhile():  # between a partition's snapshot build and its hand-over (the write passes here too)
        if not started:
            started.append(True)
            writes.append(writer.upsert(spark.createDataFrame([("k100", 5, "eu", "lima", 1.0),
                                                               ("k003", 5, "us", "paris", 2.0)], SCHEMA)))
    lines = []
    with faults.at("after_files", meanwhile):
        rebuilt, after = metadata_repair.repair(path, ["record_index"], spark, progress=lines.append)
    assert writes and rebuilt == ["record_index", SI]  # the record index takes its secondary indexes along
    assert any(line.startswith("dropped record_index, " + SI) for line in lines), lines
    assert after == {p: [] for p in EVERY}  # the write made during the build is in both
    assert "k100" in _ids(spark, path)


def test_a_truncated_files_hfile_rebuilds_the_whole_metadata_table(spark, table, tmp_path):  # noqa: F811
    path = _copy(table, tmp_path)
    base = sorted((Path(path) / ".hoodie" / "metadata" / "files").glob("*.hfile"))[-1]
    base.write_bytes(base.read_bytes()[:100])
    rebuilt, after = metadata_repair.repair(path, spark=spark)
    assert rebuilt == ["files", "column_stats", "bloom_filters", "partition_stats", "record_index", SI]
    assert after == {p: [] for p in EVERY}


def test_the_command_repairs_one_partition(table, tmp_path):  # noqa: F811
    path = _copy(table, tmp_path)
    assert cli(["metadata", "repair", path, "--partition", "bloom_filters"]) == 0
    assert cli(["metadata", "repair", path, "--partition", "no_such"]) == 2
