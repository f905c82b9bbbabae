"""pyhudi CLI: metadata create/validate/stats/perf/delete and timeline, on a real table."""
import os
import re
import subprocess
import sys
from pathlib import Path

from conftest import PROJECT
from pyhudi.hudi_table import HudiTable


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
    said = _cli("metadata", "validate", path)[1]
    assert "files: agrees with the data" in said, said
    assert "listed 2 partitions of storage (2 in the metadata table)" in said, said
    rc, out = _cli("metadata", "stats", path)
    assert rc == 0 and "data partitions listed: 2" in out and "column_stats" in out
    rc, out = _cli("metadata", "perf", path)
    assert rc == 0 and "getAllPartitions" in out and "getAllFilesInPartition(eu)" in out
    victim = next(Path(path, "eu").glob("*.parquet"))
    victim.unlink()
    rc, out = _cli("metadata", "validate", path)
    assert rc == 15 and victim.name in out.replace("\n", ""), out  # the files, stats and filter of eu's only file
    rc, out = _cli("metadata", "delete", path)
    assert rc == 0 and not Path(path, ".hoodie", "metadata").exists()
    rc, out = _cli("timeline", path)
    assert rc == 0 and "commit" in out and "completed" in out
    assert _cli("timeline", path, module="pyhudi.cli") == (rc, out)  # the module the `pyhudi` script runs


def test_services_with_nothing_to_do_start_no_spark(spark, tmp_path):
    """Nothing to compact or log-compact is known from the timeline, nothing to cluster from the listing: the CLI
    says so without a Spark session (one that tried to start here would fail: SPARK_HOME names no Spark)."""
    path = str(tmp_path / "t")
    t = HudiTable(spark, path, {"hoodie.table.name": "cli_mor", "hoodie.datasource.write.recordkey.field": "id",
                                "hoodie.datasource.write.table.type": "MERGE_ON_READ"})
    rows = [(f"k{i}", i) for i in range(4)]
    t.insert(spark.createDataFrame(rows, "id string, ts long"))
    t.upsert(spark.createDataFrame(rows[:2], "id string, ts long"))
    assert t.compact()
    for command in ("compact", "log-compact", "cluster"):  # one base file: nothing to stitch either
        done = _without_spark(tmp_path, command, path)
        assert done.returncode == 0 and f"nothing to {command}" in done.stdout, done.stdout + done.stderr
    t.upsert(spark.createDataFrame(rows[2:], "id string, ts long"))  # log files again: Spark is needed now
    for command in ("compact", "log-compact"):
        done = _without_spark(tmp_path, command, path)
        assert done.returncode != 0 and "nothing to" not in done.stdout


def test_cluster_starts_spark_only_for_small_files_to_stitch(spark, tmp_path):
    path = str(tmp_path / "t")
    t = HudiTable(spark, path, {"hoodie.table.name": "cli_cow", "hoodie.datasource.write.recordkey.field": "id"})
    t.bulk_insert(spark.createDataFrame([("k0", 0)], "id string, ts long"))
    assert _without_spark(tmp_path, "cluster", path).stdout.startswith("nothing to cluster")
    t.bulk_insert(spark.createDataFrame([("k1", 1)], "id string, ts long"))  # a second small file group
    done = _without_spark(tmp_path, "cluster", path)
    assert done.returncode != 0 and "nothing to" not in done.stdout


def _without_spark(tmp_path, command: str, path: str) -> subprocess.CompletedProcess:
    """The CLI run where a Spark session could not start (SPARK_HOME names no Spark)."""
    no_jvm = {**os.environ, "COLUMNS": "200", "SPARK_HOME": str(tmp_path / "no-spark")}
    return subprocess.run([sys.executable, "-m", "pyhudi", command, path], cwd=str(PROJECT), capture_output=True,
                          text=True, timeout=300, env=no_jvm)


def test_a_service_draws_its_spark_tasks_and_says_what_ran(spark, tmp_path, capsys, monkeypatch):
    """compact's Spark work is drawn as one bar of tasks (pyhudi.cli.progress) and closed with a line of it."""
    import pyhudi.cli.common as cli_common
    from pyhudi.cli import main as cli

    monkeypatch.setattr(cli_common, "spark", lambda: spark)
    path = str(tmp_path / "t")
    t = HudiTable(spark, path, {"hoodie.table.name": "cli_bar", "hoodie.datasource.write.recordkey.field": "id",
                                "hoodie.datasource.write.table.type": "MERGE_ON_READ",
                                "hoodie.compact.inline": "false"})
    rows = [(f"k{i}", i) for i in range(4)]
    t.insert(spark.createDataFrame(rows, "id string, ts long"))
    t.upsert(spark.createDataFrame(rows[:2], "id string, ts long"))
    assert cli(["compact", path]) == 0
    out = capsys.readouterr().out
    ran = re.search(r"compaction: (\d+) Spark tasks in (\d+) stages", out)
    assert ran and int(ran[1]) >= int(ran[2]) > 0, out
    assert re.search(r"compaction \d{17} completed", out), out
    assert spark.sparkContext.getLocalProperty("spark.jobGroup.id") is None  # later jobs are not the service's
