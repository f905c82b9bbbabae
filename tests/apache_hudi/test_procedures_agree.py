"""Hudi's `show_*` procedures of the file-system view and the metadata table answer on hudi-meta as on Apache Hudi:
the same rows, column for column, on a merge-on-read table pyhudi wrote and compacted (Hudi's own procedures are
the oracle; the file-system view's text of a log file is the release's that writes the table's version, 1.0.2)."""
from __future__ import annotations

import pytest

from apache_hudi.model import row
from apache_hudi.scenarios import options
from pyhudi import HudiTable
from pyhudi.services import compaction

SCHEMA = "id int, name string, ts long, city string, fare double"


@pytest.fixture(scope="module")
def compacted(spark, tmp_path_factory):
    """File groups of three partitions, those with log files compacted (two slices), then a log file more."""
    path = str(tmp_path_factory.mktemp("procedures") / "t")
    table = HudiTable(spark, path, options("procedures", "MERGE_ON_READ", hoodie__compact__inline="false"))
    for keys, version in (((1, 2, 3, 4), 1), ((1,), 2), ((2,), 3)):
        table.upsert(spark.createDataFrame([row(k, version) for k in keys], SCHEMA))
    compaction.compact(spark, path, {}, instant=None, schedule_only=False)
    table.upsert(spark.createDataFrame([row(3, 4)], SCHEMA))
    return path


def _ours(spark, call: str, path: str) -> list[dict]:
    return sorted((r.asDict() for r in spark.sql(call.format(table="path => '" + path + "'")).collect()), key=repr)


def _hudis(hudi, call: str, path: str) -> list[dict]:
    return sorted(hudi.sql(call.format(table="table => '" + hudi.register(path) + "'")).to_pylist(), key=repr)


@pytest.mark.parametrize("call", ["CALL show_fsview_all({table}, limit => 100)",
                                  "CALL show_fsview_latest({table}, limit => 100)",
                                  "CALL show_fsview_latest({table}, merge => false, path_regex => 'sf*')"])
def test_the_file_system_view_procedures_answer_as_hudis(spark, hudis, compacted, call):
    ours = _ours(spark, call, compacted)
    assert ours == _hudis(hudis["1.0.2"], call, compacted)
    if "show_fsview_all" in call:  # every slice: a compacted file group shows two, and slices with log files
        assert len(ours) > len({r["file_id"] for r in ours}) and any(r["num_delta_files"] for r in ours)


@pytest.mark.parametrize("release", ["1.0.2", "1.2.0"])
@pytest.mark.parametrize("call", ["CALL show_metadata_table_column_stats({table}, targetColumns => 'fare,name,ts')",
                                  "CALL show_metadata_table_column_stats({table}, partition => 'sf', "
                                  "targetColumns => 'id')",
                                  "CALL show_metadata_table_column_stats({table})"])
def test_the_column_stats_procedure_answers_as_hudis(spark, hudis, compacted, release, call):
    ours = _ours(spark, call, compacted)
    assert ours == _hudis(hudis[release], call, compacted)
    assert bool(ours) == ("targetColumns" in call)
