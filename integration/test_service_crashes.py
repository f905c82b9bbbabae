"""A table service killed with SIGKILL at each of its steps (plan written, inflight, files written,
metadata committed, before complete): readers see the old or the new state (compaction, log compaction,
clustering and cleaning never change the rows), the next run rolls back or resumes and completes, and no file of a dead
attempt is left. A restore killed at each step is resumed by the next restore to the same savepoint."""
import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import PROJECT
from pyhudi.cli import main as cli
from pyhudi.hudi_table import HudiTable
from pyhudi.services import restore
from pyhudi.services.instant import ServiceTable

sys.path.insert(0, str(Path(__file__).parent))
from scenario import SCHEMA, options, rows  # noqa: E402
from service_crasher import LOG_COMPACTION  # noqa: E402
from test_crash import _orphans, _state  # noqa: E402

STEPS = ("after_requested", "after_inflight", "after_files", "after_metadata", "before_complete")


def _crash(path, service, point, *args):
    env = {**os.environ, "PYHUDI_CRASH_AT": point,
           "PYTHONPATH": os.pathsep.join([str(PROJECT), str(Path(__file__).parent)])}
    done = subprocess.run([sys.executable, str(Path(__file__).parent / "service_crasher.py"), path, service, *args],
                          env=env, cwd=str(PROJECT), capture_output=True, text=True, timeout=600)
    assert done.returncode == -signal.SIGKILL, done.stderr[-3000:]


def _prepared(spark, tmp_path, table_type, extra):
    """A table with something for the service to do: small files (several inserts), updates (logs)."""
    path = str(tmp_path / "base")
    opts = {**options(table_type), "hoodie.compact.inline": "false", "hoodie.clean.automatic": "false",
            "hoodie.archive.automatic": "false", "hoodie.parquet.small.file.limit": "0", **extra}
    t = HudiTable(spark, path, opts)
    for first in (0, 20):
        t.insert(spark.createDataFrame(rows(first, 20, ts=1), SCHEMA))
    t.upsert(spark.createDataFrame(rows(0, 10, ts=2), SCHEMA))
    t.upsert(spark.createDataFrame(rows(5, 10, ts=3), SCHEMA))
    return path


def _finish(spark, path, service):
    if service == "compaction":
        from pyhudi.services import compaction
        return compaction.compact(spark, path)
    if service == "logcompaction":
        from pyhudi.services import log_compaction
        return log_compaction.log_compact(spark, path, LOG_COMPACTION)
    if service == "clustering":
        from pyhudi.services import clustering
        return clustering.cluster(spark, path, {"hoodie.clustering.plan.strategy.sort.columns": "val"})
    from pyhudi.services import clean
    return clean.clean(path, {"hoodie.cleaner.commits.retained": "1"})


@pytest.mark.parametrize("service,table_type", [("compaction", "MERGE_ON_READ"), ("logcompaction", "MERGE_ON_READ"),
                                                ("clustering", "COPY_ON_WRITE"), ("clean", "COPY_ON_WRITE")])
def test_sigkill_at_every_service_step(spark, tmp_path, service, table_type):
    prepared = _prepared(spark, tmp_path, table_type, {})
    expected = _state(spark, prepared)
    for point in STEPS:
        path = str(tmp_path / point)
        shutil.copytree(prepared, path)
        _crash(path, service, point)
        assert _state(spark, path) == expected, point  # the old state, or the new one: the same rows
        _finish(spark, path, service)
        assert _state(spark, path) == expected, point
        table = ServiceTable.open(path)
        assert not table.timeline.pending(), point
        assert not _orphans(path), point
        assert cli(["metadata", "validate", path]) == 0, point


def test_restore_killed_at_each_step_is_resumed(spark, tmp_path):
    base = str(tmp_path / "base")
    opts = {**options("MERGE_ON_READ"), "hoodie.compact.inline": "false", "hoodie.clean.automatic": "false",
            "hoodie.archive.automatic": "false"}
    t = HudiTable(spark, base, opts)
    t.insert(spark.createDataFrame(rows(0, 20, ts=1), SCHEMA))
    saved = t.upsert(spark.createDataFrame(rows(0, 5, ts=2), SCHEMA))
    t.savepoint()
    expected = _state(spark, base)
    t.upsert(spark.createDataFrame(rows(3, 10, ts=3), SCHEMA))
    t.delete(spark.createDataFrame(rows(10, 2, ts=4), SCHEMA))
    for point in STEPS:
        path = str(tmp_path / point)
        shutil.copytree(base, path)
        _crash(path, "restore", point, saved)
        pending = restore.pending_restore(ServiceTable.open(path))
        assert pending is not None and pending[1]["savepointToRestoreTimestamp"] == saved, point
        done = restore.restore(path, saved)
        assert done.requested_time == pending[0].requested_time, point  # the same restore, resumed
        assert _state(spark, path) == expected, point
        assert not _orphans(path), point
        assert cli(["metadata", "validate", path]) == 0, point
        assert restore.pending_restore(ServiceTable.open(path)) is None
