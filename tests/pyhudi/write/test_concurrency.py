"""Optimistic concurrency control: a write that overlaps one completed while it ran is rolled back and raises
HudiConflictError naming it, leaving nothing visible; disjoint writes both land; with LAZY failed-write
cleaning a live writer's pending instant (fresh heartbeat) is left alone and a dead one's rolled back; a lock
that cannot be taken fails the write with the table as it was; settings are checked as Hudi names them."""
from pathlib import Path

import pyarrow as pa
import pytest

from pyhudi import faults
from pyhudi.config import OptionError
from pyhudi.hudi_table import HudiTable
from pyhudi.metadata import locks
from pyhudi.services.instant import ServiceTable
from pyhudi.table import file_names
from pyhudi.write.concurrency import HEARTBEAT_DIR, HudiConflictError, LockTimeoutError

SCHEMA = "id string, ts long, region string, val string"
OCC = {"hoodie.table.name": "cc", "hoodie.datasource.write.recordkey.field": "id",
       "hoodie.datasource.write.precombine.field": "ts", "hoodie.datasource.write.partitionpath.field": "region",
       "hoodie.write.concurrency.mode": "optimistic_concurrency_control",
       "hoodie.clean.automatic": "false", "hoodie.archive.automatic": "false"}


def _rows(spark, ids, ts, region="eu"):
    return spark.createDataFrame([(f"k{i}", ts, region, f"v{i}-{ts}") for i in ids], SCHEMA)


def _read(spark, path):
    return {r["id"]: r["val"] for r in spark.read.format("hudi-meta").load(path).collect()}


def _hudi_rs(path):
    from hudi import HudiTableBuilder
    t = pa.Table.from_batches(HudiTableBuilder.from_base_uri(path).build().read())
    return dict(zip(t.column("id").to_pylist(), t.column("val").to_pylist()))


def _data_files(path):
    return {p.name for p in Path(path).rglob("*") if ".hoodie" not in p.parts
            and (file_names.is_base(p.name) or file_names.is_log(p.name))}


def _while_writing(action):
    """Runs `action` once, when the write in progress has written its files (another writer meanwhile)."""
    done = []

    def once():
        if not done:
            done.append(True)
            action()
    return faults.at("after_files", once)


@pytest.mark.parametrize("table_type", ["COPY_ON_WRITE", "MERGE_ON_READ"])
def test_an_overlapping_write_loses_and_leaves_nothing(spark, tmp_path, table_type):
    path = str(tmp_path / "t")
    opts = {**OCC, "hoodie.datasource.write.table.type": table_type, "hoodie.compact.inline": "false"}
    first = HudiTable(spark, path, opts)
    first.upsert(_rows(spark, range(4), 1))
    other = HudiTable(spark, path, opts)
    committed = []
    files_before = _data_files(path)
    with _while_writing(lambda: committed.append(other.upsert(_rows(spark, [1], 3)))):
        action = "commit" if table_type == "COPY_ON_WRITE" else "deltacommit"
        with pytest.raises(HudiConflictError, match=f"overlaps {action} "):
            first.upsert(_rows(spark, [0, 2], 2))
    expected = {"k0": "v0-1", "k1": "v1-3", "k2": "v2-1", "k3": "v3-1"}
    assert _read(spark, path) == expected == _hudi_rs(path)
    assert committed and committed[0] in str(_data_files(path))
    written = {n for n in _data_files(path) - files_before if committed[0] not in n}
    assert not written  # nothing of the losing write is left
    assert not ServiceTable.open(path).timeline.pending()


def test_writes_to_other_file_groups_both_land(spark, tmp_path):
    path = str(tmp_path / "t")
    first = HudiTable(spark, path, OCC)
    first.upsert(_rows(spark, range(2), 1))
    other = HudiTable(spark, path, OCC)
    with _while_writing(lambda: other.upsert(_rows(spark, [7], 2, region="us"))):
        first.upsert(_rows(spark, [0], 2))
    assert _read(spark, path) == {"k0": "v0-2", "k1": "v1-1", "k7": "v7-2"} == _hudi_rs(path)


def test_lazy_rollback_leaves_a_live_writer_alone(spark, tmp_path):
    path = str(tmp_path / "t")
    opts = {**OCC, "hoodie.client.heartbeat.interval_in_ms": "200", "hoodie.client.heartbeat.tolerable.misses": "2"}
    t = HudiTable(spark, path, opts)
    t.upsert(_rows(spark, range(2), 1))
    table = ServiceTable.open(path)
    live = table.timeline.create_requested("commit")
    dead = table.timeline.create_requested("commit")
    storage = table.storage
    live_beat = Path(path, HEARTBEAT_DIR, live.requested_time)
    with locks.Heartbeat(storage, str(live_beat), 0.1):
        t.upsert(_rows(spark, [0], 2))
        pending = {i.requested_time for i in ServiceTable.open(path).timeline.pending()}
        assert pending == {live.requested_time}  # the dead one (no heartbeat) was rolled back
    assert not Path(path, HEARTBEAT_DIR).exists() or not any(Path(path, HEARTBEAT_DIR).iterdir())
    assert dead.requested_time not in pending


def test_a_lock_not_taken_in_time_fails_the_write_and_leaves_the_table(spark, tmp_path):
    path = str(tmp_path / "t")
    t = HudiTable(spark, path, OCC)
    t.upsert(_rows(spark, range(2), 1))
    before = _read(spark, path)
    held = locks.HandoffLock(ServiceTable.open(path).storage, str(Path(path, ".hoodie", "lock")))
    with held:
        with pytest.raises(LockTimeoutError, match="hoodie.write.lock.wait_time_ms"):
            t.upsert(_rows(spark, [0], 2), {"hoodie.write.lock.wait_time_ms": "200",
                                            "hoodie.write.lock.num_retries": "0"})
    assert _read(spark, path) == before and not ServiceTable.open(path).timeline.pending()
    in_process = {"hoodie.write.lock.provider": "org.apache.hudi.client.transaction.lock.InProcessLockProvider"}
    t.upsert(_rows(spark, [0], 3), in_process)
    assert _read(spark, path)["k0"] == "v0-3"


def test_concurrency_settings_are_checked(spark, tmp_path):
    t = HudiTable(spark, str(tmp_path / "t"), OCC)
    df = _rows(spark, [0], 1)
    with pytest.raises(OptionError, match="EAGER rolls back the pending writes of the other writers"):
        t.upsert(df, {"hoodie.cleaner.policy.failed.writes": "EAGER"})
    with pytest.raises(OptionError, match="NON_BLOCKING_CONCURRENCY_CONTROL needs a MERGE_ON_READ table with the "
                                          r"simple bucket index \(hoodie.index.type=BUCKET"):
        t.upsert(df, {"hoodie.write.concurrency.mode": "NON_BLOCKING_CONCURRENCY_CONTROL"})
    with pytest.raises(OptionError, match="ZookeeperBasedLockProvider is not supported yet"):
        t.upsert(df, {"hoodie.write.lock.provider": "org.apache.hudi.client.transaction.lock."
                                                    "ZookeeperBasedLockProvider"})
    assert not (tmp_path / "t" / ".hoodie").exists()  # refused before anything was written


NBCC = {**OCC, "hoodie.write.concurrency.mode": "non_blocking_concurrency_control",
        "hoodie.datasource.write.table.type": "MERGE_ON_READ", "hoodie.index.type": "BUCKET",
        "hoodie.bucket.index.num.buckets": "2", "hoodie.compact.inline": "false"}


def _file_ids(path):
    return {file_names.parse_log(n).file_id if file_names.is_log(n) else file_names.parse_base(n).file_id
            for n in _data_files(path)}


def test_non_blocking_writers_append_to_the_same_file_groups(spark, tmp_path):
    """Overlapping updates of two writers both land (log files of one file group): the greater ordering value
    wins, whichever completed first. Creating one new bucket at once is the one conflict: a bucket has one file
    group, named alike by every writer (after partition and bucket alone)."""
    path = str(tmp_path / "t")
    first, other = HudiTable(spark, path, NBCC), HudiTable(spark, path, NBCC)
    first.upsert(_rows(spark, range(6), 1))
    eu = _file_ids(path)
    assert {f[:9] for f in eu} == {"00000000-", "00000001-"}
    with _while_writing(lambda: other.upsert(_rows(spark, range(4), 5))):
        first.upsert(_rows(spark, range(2, 6), 3))  # started first, completes second
    assert _read(spark, path) == {"k0": "v0-5", "k1": "v1-5", "k2": "v2-5", "k3": "v3-5", "k4": "v4-3", "k5": "v5-3"}
    with _while_writing(lambda: other.upsert(_rows(spark, [1, 4], 9))):
        first.upsert(_rows(spark, [1, 5], 7))
    expected = {"k0": "v0-5", "k1": "v1-9", "k2": "v2-5", "k3": "v3-5", "k4": "v4-9", "k5": "v5-7"}
    assert _read(spark, path) == expected == _hudi_rs(path)
    files_before = _data_files(path)
    with _while_writing(lambda: other.upsert(_rows(spark, [8], 1, region="us"))):
        with pytest.raises(HudiConflictError, match="overlaps deltacommit"):
            first.upsert(_rows(spark, [8, 9], 2, region="us"))
    assert _read(spark, path) == {**expected, "k8": "v8-1"} == _hudi_rs(path)
    assert len(_data_files(path) - files_before) == 1  # the winner's new file group; nothing of the loser


def test_non_blocking_write_goes_on_past_a_compaction_plan(spark, tmp_path):
    """A compaction scheduled while a non-blocking write runs does not stop it: its log file completes after the
    plan and belongs to the slice the plan opens (completion-time file slicing)."""
    from pyhudi.services import compaction
    path = str(tmp_path / "t")
    t = HudiTable(spark, path, NBCC)
    t.upsert(_rows(spark, range(4), 1))
    t.upsert(_rows(spark, [2, 3], 1))  # log files to compact
    plans = []
    with _while_writing(lambda: plans.append(compaction.schedule(spark, path))):
        t.upsert(_rows(spark, [0, 1], 2))
    assert plans[0] is not None
    compaction.execute(spark, path, plans[0].requested_time)
    expected = {"k0": "v0-2", "k1": "v1-2", "k2": "v2-1", "k3": "v3-1"}
    assert _read(spark, path) == expected == _hudi_rs(path)
    assert any(file_names.is_base(n) for n in _data_files(path))


def test_bucket_index_writers_creating_one_bucket_conflict_under_occ(spark, tmp_path):
    """Under OCC with the bucket index, two writers creating one new bucket conflict (Hudi's bucket-index
    conflict strategy): otherwise the bucket would get two file groups."""
    path = str(tmp_path / "t")
    opts = {**OCC, "hoodie.index.type": "BUCKET", "hoodie.bucket.index.num.buckets": "1"}
    first, other = HudiTable(spark, path, opts), HudiTable(spark, path, opts)
    with _while_writing(lambda: other.insert(_rows(spark, [1], 1))):
        with pytest.raises(HudiConflictError):
            first.insert(_rows(spark, [2], 1))
    assert _read(spark, path) == {"k1": "v1-1"} and len(_file_ids(path)) == 1


def test_a_compaction_another_writer_runs_is_left_to_it(spark, tmp_path):
    """With several writers, a compaction plan inflight with a live heartbeat is another writer's: running it
    fails with ServiceBusyError and inline/pending runs skip it; once its heartbeat stops it is rolled back and
    run again."""
    import time

    from pyhudi.services import compaction
    from pyhudi.services.instant import ServiceBusyError
    from pyhudi.table.timeline import Instant
    path = str(tmp_path / "t")
    opts = {**OCC, "hoodie.datasource.write.table.type": "MERGE_ON_READ", "hoodie.compact.inline": "false",
            "hoodie.client.heartbeat.interval_in_ms": "200", "hoodie.client.heartbeat.tolerable.misses": "2"}
    t = HudiTable(spark, path, opts)
    t.upsert(_rows(spark, range(4), 1))
    t.upsert(_rows(spark, [0, 1], 2))
    plan = compaction.schedule(spark, path, opts)
    table = ServiceTable.open(path)
    table.timeline.transition_to_inflight(Instant(plan.requested_time, "compaction", "requested"))
    with locks.Heartbeat(table.storage, str(Path(path, HEARTBEAT_DIR, plan.requested_time)), 0.1):
        with pytest.raises(ServiceBusyError, match="is being run by another writer"):
            compaction.execute(spark, path, plan.requested_time, opts)
        assert compaction.compact(spark, path, opts) == []  # the pending plan is left to its runner
    time.sleep(0.5)  # its heartbeat has stopped: a dead attempt
    assert compaction.compact(spark, path, opts) == [plan.requested_time]
    assert _read(spark, path) == {"k0": "v0-2", "k1": "v1-2", "k2": "v2-1", "k3": "v3-1"} == _hudi_rs(path)
