"""Apache Hudi 1.0.2 and 1.2.0 read the tables pyhudi writes: after every step of each scenario both readers
equal the model; then read-optimized, time-travel and incremental answers equal ours, and Hudi's
metadata-table reader agrees with the files. The long matrix: `python -m apache_hudi matrix`."""
from __future__ import annotations

import pytest

from apache_hudi.matrix import COW_GLOBAL_BLOOM, LEAN, MOR_SECONDARY_INDEX


@pytest.mark.parametrize("scenario", LEAN, ids=[s.name for s in LEAN])
def test_apache_hudi_reads_what_pyhudi_writes(runner, scenario, tmp_path):
    outcome = runner.run(scenario, str(tmp_path / scenario.name))
    assert outcome.steps == len(scenario.steps)
    assert outcome.differences == []
    assert any(c.startswith("validator") for c in outcome.checked)


@pytest.mark.parametrize("scenario", [COW_GLOBAL_BLOOM, MOR_SECONDARY_INDEX], ids=lambda s: s.name)
def test_apache_hudi_reads_and_writes_on_our_global_bloom_and_secondary_index_tables(spark, runner, hudis, scenario,
                                                                                      tmp_path):
    """Apache Hudi 1.0.2's last upsert maintains what pyhudi built: after it, every metadata partition (the
    secondary index too) still agrees with the data by pyhudi's validator, and Hudi 1.2.0's read filtered on the
    indexed column equals ours."""
    from pyhudi.services import metadata_check

    path = str(tmp_path / scenario.name)
    outcome = runner.run(scenario, path)
    assert outcome.steps == len(scenario.steps) and outcome.differences == []
    after = metadata_check.validate(path, spark=spark)
    assert after == {p: [] for p in after}
    if scenario is MOR_SECONDARY_INDEX:
        assert "secondary_index_name_idx" in after
        where = "name = 'n3v5'"  # written by the last step (Apache Hudi 1.0.2)
        theirs = hudis["1.2.0"].read(path, where=where).column("id").to_pylist()
        ours = [r.id for r in spark.read.format("hudi-meta").load(path).where(where).collect()]
        assert theirs == ours == [3]
