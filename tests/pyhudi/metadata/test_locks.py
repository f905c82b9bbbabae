"""The hand-off lock: exactly one of several processes that find a stale lock (its holder died)
takes it, round after round; threads of one process exclude each other; a lock file elsewhere
than on local disk is broken when its stamp is stale."""
import multiprocessing as mp
import os
import threading
import time

import pyarrow.fs as pafs
import pytest

from pyhudi.metadata.errors import MetadataTableError
from pyhudi.metadata.locks import HEARTBEAT_EXPIRY_S, HandoffLock, Heartbeat, age_s
from pyhudi.storage import AlreadyExists, Storage

CONTENDERS = 6
ROUNDS = 5
LOSER_TIMEOUT_S = 1.5


def _contend(path: str, barrier, results, release) -> None:
    """Runs in a child: try the lock once everyone is ready; the winner dies holding it."""
    storage, _ = Storage.for_uri(os.path.dirname(path))
    barrier.wait()
    try:
        HandoffLock(storage, path, timeout_s=LOSER_TIMEOUT_S).__enter__()
    except MetadataTableError:
        results.put("lost")
        return
    results.put("won")
    release.wait(60)  # hold it until every other contender gave up
    os._exit(0)  # die without releasing: the next round starts from a stale lock


def test_exactly_one_process_takes_a_stale_lock_each_round(tmp_path):
    ctx = mp.get_context("fork")  # the children only run the lock: no re-import of the test module
    path = str(tmp_path / ".hoodie" / ".aux" / "metadata_build.lock")
    os.makedirs(os.path.dirname(path))
    with open(path, "w") as f:  # left by a holder that died long ago
        f.write(repr(time.time() - 10 * HEARTBEAT_EXPIRY_S))
    for round_ in range(ROUNDS):
        barrier, results, release = ctx.Barrier(CONTENDERS), ctx.Queue(), ctx.Event()
        procs = [ctx.Process(target=_contend, args=(path, barrier, results, release)) for _ in range(CONTENDERS)]
        for p in procs:
            p.start()
        outcomes = sorted(results.get(timeout=60) for _ in procs)
        release.set()
        for p in procs:
            p.join(60)
        assert outcomes == ["lost"] * (CONTENDERS - 1) + ["won"], f"round {round_}: {outcomes}"
        assert all(p.exitcode == 0 for p in procs)


def test_threads_wait_for_the_holder(tmp_path):
    storage, base = Storage.for_uri(str(tmp_path))
    path = f"{base}/lock"
    order = []

    def second():
        with HandoffLock(storage, path, timeout_s=30):
            order.append("second")

    with HandoffLock(storage, path):
        other = threading.Thread(target=second)
        other.start()
        time.sleep(0.3)
        with pytest.raises(MetadataTableError, match=r"held by pid \d+"):
            HandoffLock(storage, path, timeout_s=0.2).__enter__()
        order.append("first")
    other.join(30)
    assert order == ["first", "second"]
    assert storage.exists(path)  # kept: a new file could be locked while a waiter holds the old one


class _ObjectStore(Storage):
    """Local files seen as an object store sees them: no flock, only an atomic create-if-absent."""

    def __init__(self):
        super().__init__(pafs.LocalFileSystem(), local=False)

    def create_if_absent(self, path: str, data: bytes) -> None:
        try:
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL)
        except FileExistsError as e:
            raise AlreadyExists(path) from e
        with os.fdopen(fd, "wb") as f:
            f.write(data)


def test_lock_file_on_other_storage(tmp_path):
    storage = _ObjectStore()  # what object stores get: a stamped lock file
    path = f"{tmp_path}/lock"
    with HandoffLock(storage, path):
        assert age_s(storage, path) < 5
        with pytest.raises(MetadataTableError, match="taken 0 s ago"):
            HandoffLock(storage, path, timeout_s=0.2).__enter__()
    assert not storage.exists(path)
    storage.write(path, repr(time.time() - 2 * HEARTBEAT_EXPIRY_S).encode())  # its holder died
    with HandoffLock(storage, path, timeout_s=5):
        assert age_s(storage, path) < 5


def test_heartbeat_is_fresh_while_the_build_runs(tmp_path):
    storage, base = Storage.for_uri(str(tmp_path))
    path = f"{base}/.hoodie/.heartbeat/initialization"
    with Heartbeat(storage, path):
        assert age_s(storage, path) < 5
    assert age_s(storage, path) is None
