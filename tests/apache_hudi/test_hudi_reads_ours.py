"""Apache Hudi 1.0.2 and 1.2.0 read the tables pyhudi writes: after every step of each scenario both readers
equal the model; then read-optimized, time-travel and incremental answers equal ours, and Hudi's
metadata-table reader agrees with the files. The long matrix: `python -m apache_hudi matrix`."""
from __future__ import annotations

import pytest

from apache_hudi.matrix import LEAN


@pytest.mark.parametrize("scenario", LEAN, ids=[s.name for s in LEAN])
def test_apache_hudi_reads_what_pyhudi_writes(runner, scenario, tmp_path):
    outcome = runner.run(scenario, str(tmp_path / scenario.name))
    assert outcome.steps == len(scenario.steps)
    assert outcome.differences == []
    assert any(c.startswith("validator") for c in outcome.checked)
