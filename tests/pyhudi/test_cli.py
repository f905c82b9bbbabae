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


def test_compact_with_nothing_to_do_starts_no_spark(spark, tmp_path):
    """Nothing to compact is known from the timeline: the CLI says so without a Spark session (one that tried
    to start here would fail: SPARK_HOME names no Spark)."""
    path = str(tmp_path / "t")
    t = HudiTable(spark, path, {"hoodie.table.name": "cli_mor", "hoodie.datasource.write.recordkey.field": "id",
                                "hoodie.datasource.write.table.type": "MERGE_ON_READ"})
    rows = [(f"k{i}", i) for i in range(4)]
    t.insert(spark.createDataFrame(rows, "id string, ts long"))
    t.upsert(spark.createDataFrame(rows[:2], "id string, ts long"))
    assert t.compact()
    no_jvm = {**os.environ, "COLUMNS": "200", "SPARK_HOME": str(tmp_path / "no-spark")}
    done = subprocess.run([sys.executable, "-m", "pyhudi", "compact", path], cwd=str(PROJECT), capture_output=True,
                          text=True, timeout=300, env=no_jvm)
    assert done.returncode == 0 and "nothing to compact" in done.stdout, done.stdout + done.stderr
    t.upsert(spark.createDataFrame(rows[2:], "id string, ts long"))  # log files again: Spark is needed now
    done = subprocess.run([sys.executable, "-m", "pyhudi", "compact", path], cwd=str(PROJECT), capture_output=True,
                          text=True, timeout=300, env=no_jvm)
    assert done.returncode != 0 and "nothing to compact" not in done.stdout
