"""A writer SIGKILLed while it holds the table lock (committing) or mid-write, with other writers on the table
(optimistic concurrency control): the lock is free at once (it died with its holder), the next writer goes on and
leaves the dead instant alone while its heartbeat could still be live, and once the heartbeat has expired a writer
rolls it back lazily; nothing of it is visible, and the table reads the same through hudi-rs."""
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pyarrow as pa
import pytest

from conftest import PROJECT
from pyhudi.hudi_table import HudiTable
from pyhudi.metadata import locks
from pyhudi.services.instant import ServiceTable
from pyhudi.table import instant_metadata as im
from pyhudi.table.file_slices import file_id_and_instant
from pyhudi.write.concurrency import HEARTBEAT_DIR

sys.path.insert(0, str(Path(__file__).parent))
from scenario import SCHEMA, options, rows  # noqa: E402

MULTI = {"hoodie.write.concurrency.mode": "optimistic_concurrency_control",
         "hoodie.client.heartbeat.interval_in_ms": "2000", "hoodie.client.heartbeat.tolerable.misses": "2",
         "hoodie.write.lock.wait_time_ms": "5000", "hoodie.write.lock.num_retries": "0"}
EXPIRY_S = 4.0


def _killed_writer(path: str, point: str) -> None:
    env = {**os.environ, "PYHUDI_CRASH_AT": point,
           "PYTHONPATH": os.pathsep.join([str(PROJECT), str(Path(__file__).parent)])}
    done = subprocess.run([sys.executable, str(Path(__file__).parent / "crash_writer.py"), path, "MERGE_ON_READ",
                           "100", json.dumps(MULTI)], env=env, cwd=str(PROJECT), capture_output=True, text=True,
                          timeout=600)
    assert done.returncode == -signal.SIGKILL, done.stderr[-3000:]


def _read(spark, path):
    ours = {r["id"]: r["val"] for r in spark.read.format("hudi-meta").load(path).collect()}
    from hudi import HudiTableBuilder
    t = pa.Table.from_batches(HudiTableBuilder.from_base_uri(path).build().read())
    assert ours == dict(zip(t.column("id").to_pylist(), t.column("val").to_pylist()))
    return ours


@pytest.mark.parametrize("point", ["before_complete", "after_files"])
def test_a_killed_writer_is_rolled_back_lazily_while_others_go_on(spark, tmp_path, point):
    path = str(tmp_path / "t")
    table = HudiTable(spark, path, {**options("MERGE_ON_READ"), **MULTI, "hoodie.compact.inline": "false"})
    table.insert(spark.createDataFrame(rows(0, 40, ts=1), SCHEMA))
    before = _read(spark, path)
    _killed_writer(path, point)  # under the lock at before_complete; writing files at after_files
    dead = [i for i in ServiceTable.open(path).timeline.pending() if i.action == "deltacommit"]
    assert len(dead) == 1 and _read(spark, path) == before
    dead_time = dead[0].requested_time
    # the lock (num_retries 0, 5 s) is free at once; the dead heartbeat is younger than the expiry: left alone
    table.upsert(spark.createDataFrame(rows(0, 2, ts=2), SCHEMA))
    assert [i.requested_time for i in ServiceTable.open(path).timeline.pending()] == [dead_time]
    beat = str(Path(path, HEARTBEAT_DIR, dead_time))
    while (locks.age_s(ServiceTable.open(path).storage, beat) or EXPIRY_S + 1) <= EXPIRY_S:
        time.sleep(0.2)
    table.upsert(spark.createDataFrame(rows(2, 2, ts=3), SCHEMA))  # expired: rolled back first
    tl = ServiceTable.open(path).timeline
    assert not tl.pending()
    rollbacks = [im.decode(tl.read(i), layout_version=tl.layout) for i in tl.completed(("rollback",))]
    assert [r["commitsRollback"] for r in rollbacks] == [[dead_time]]
    left = [f for f in Path(path).rglob("*") if ".hoodie" not in f.parts and f.is_file()
            and (file_id_and_instant(f.name) or (None, None))[1] == dead_time]
    assert left == [] and not Path(beat).exists()
    expected = {**before, **{f"k{i:05d}": f"v{i}-{ts}" for i, ts in ((0, 2), (1, 2), (2, 3), (3, 3))}}
    assert _read(spark, path) == expected
    validated = subprocess.run([sys.executable, "-m", "pyhudi", "metadata", "validate", path], cwd=str(PROJECT),
                               capture_output=True, text=True, timeout=600)
    assert validated.returncode == 0, validated.stdout[-2000:] + validated.stderr[-2000:]
