"""pyhudi's validator (pyhudi.metadata.validation) beside Apache Hudi: every metadata partition of the tables
Apache Hudi 1.0.2 and 1.2.0 write (record index, bloom filters, column and partition stats) agrees with their
data by our checks; and on a table pyhudi wrote, whose base file was rewritten behind the metadata table's
back, both validators name the same file."""
from __future__ import annotations

import shutil

import pyarrow.compute as pc
import pyarrow.parquet as pq
import pytest

from apache_hudi.model import row, table
from apache_hudi.releases import RELEASES
from apache_hudi.scenarios import Scenario, Step, options
from apache_hudi.validate import validate as hudis_validate
from pyhudi.services import metadata_check

INDEXED = {"hoodie.metadata.record.index.enable": "true", "hoodie.index.type": "RECORD_INDEX",
           "hoodie.metadata.index.bloom.filter.enable": "true", "hoodie.metadata.index.column.stats.enable": "true",
           "hoodie.metadata.index.partition.stats.enable": "true"}


@pytest.mark.parametrize("release", RELEASES)
def test_every_partition_hudi_writes_agrees_with_its_data_by_our_checks(spark, hudis, tmp_path, release):
    hudi, path = hudis[release], str(tmp_path / "t")
    opts = {**options("hudis", "MERGE_ON_READ"), **INDEXED}
    for op, rows in (("insert", [row(k, 1) for k in range(30)]), ("upsert", [row(k, 2) for k in range(0, 36, 5)]),
                     ("delete", [row(7, 3)])):
        hudi.write(path, table(rows), **opts, **{"hoodie.datasource.write.operation": op})
    results = metadata_check.validate(path, spark=spark)
    assert {"files", "column_stats", "bloom_filters", "partition_stats", "record_index"} <= set(results)
    assert results == {p: [] for p in results}


@pytest.fixture(scope="module")
def ours(runner, tmp_path_factory):
    path = str(tmp_path_factory.mktemp("ours") / "t")
    scenario = Scenario("ours", {**options("ours", "COPY_ON_WRITE"), **INDEXED},
                        (Step("insert", tuple(range(24))), Step("upsert", tuple(range(0, 30, 4)))))
    runner.run(scenario, path)
    return path


def test_a_base_file_rewritten_behind_the_metadata_table_is_named_by_both_validators(spark, hudis, ours, tmp_path):
    broken = str(tmp_path / "t")
    shutil.copytree(ours, broken)
    before = metadata_check.validate(broken, spark=spark)
    assert "record_index" in before and before == {p: [] for p in before}
    assert hudis_validate(hudis["1.2.0"], broken) == []
    base = sorted(p for p in (tmp_path / "t").rglob("*.parquet") if ".hoodie" not in p.parts)[0]
    rows = pq.read_table(base)
    pq.write_table(rows.set_column(rows.schema.get_field_index("fare"), "fare", pc.add(rows.column("fare"), 1000.0)),
                   base, compression="snappy")
    named = f"{base.parent.name}/{base.name}"
    ours_found = metadata_check.validate(broken, ["files", "column_stats", "bloom_filters"])
    assert {d.what for d in ours_found["files"] if d.where == named} == {"size"}
    assert {d.what for d in ours_found["column_stats"] if d.where == named} >= {"min of fare", "max of fare"}
    theirs = hudis_validate(hudis["1.2.0"], broken)
    assert any(p.startswith(f"files: {named}") for p in theirs), theirs
    assert any(p.startswith(f"column_stats: {base.name} fare") for p in theirs), theirs
