"""pyhudi CLI: metadata create/validate/stats/perf/delete and timeline, on a real table."""
import os
import subprocess
import sys
from pathlib import Path

from conftest import PROJECT
from pyhudi.write.hudi_table import HudiTable


def _cli(*args, module="pyhudi"):
    done = subprocess.run([sys.executable, "-m", module, *args], cwd=str(PROJECT), capture_output=True,
                          text=True, timeout=300, env={**os.environ, "COLUMNS": "200"})
    return done.returncode, done.stdout + done.stderr


def test_metadata_commands(spark, tmp_path):
    path = str(tmp_path / "t")
    df = spark.createDataFrame([(f"k{i}", i, ("eu", "us")[i % 2]) for i in range(40)], "id string, ts long, r string")
    HudiTable(spark, path, {"hoodie.table.name": "cli", "hoodie.datasource.write.recordkey.field": "id",
                            "hoodie.datasource.write.partitionpath.field": "r",
                            "hoodie.metadata.enable": "false"}).insert(df)
    rc, out = _cli("metadata", "validate", path)
    assert rc == 1 and "no metadata table" in out
    rc, out = _cli("metadata", "create", path)
    assert rc == 0 and "metadata table created" in out and "files" in out
    assert _cli("metadata", "validate", path) == (0, _cli("metadata", "validate", path)[1])
    assert "no difference" in _cli("metadata", "validate", path)[1]
    rc, out = _cli("metadata", "stats", path)
    assert rc == 0 and "data partitions listed: 2" in out and "column_stats" in out
    rc, out = _cli("metadata", "perf", path)
    assert rc == 0 and "getAllPartitions" in out and "getAllFilesInPartition(eu)" in out
    victim = next(Path(path, "eu").glob("*.parquet"))
    victim.unlink()
    rc, out = _cli("metadata", "validate", path)
    assert rc == 1 and victim.name in out.replace("\n", "")
    rc, out = _cli("metadata", "delete", path)
    assert rc == 0 and not Path(path, ".hoodie", "metadata").exists()
    rc, out = _cli("timeline", path)
    assert rc == 0 and "commit" in out and "completed" in out
    assert _cli("timeline", path, module="pyhudi.cli") == (rc, out)  # the module the `pyhudi` script runs
