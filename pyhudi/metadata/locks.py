"""How a metadata-table build and the writers running meanwhile coordinate: the build's heartbeat
(writers leave the MDT alone while it is fresh) and the hand-off lock, held for the moment the
build hands the MDT over to writers.

On local disk the hand-off lock is an exclusive `flock` of the lock file. The kernel arbitrates
between waiters and releases the lock of a process that dies, so there is nothing stale to take
over: the takeover a lock file with a timestamp needs (judge it stale, delete it, create a fresh
one) lets two waiters judge the same stale file and both proceed, and renaming the stale file away
first does not close that (a waiter may rename the fresh lock another one just created). The file
stays in place after use: deleting it would let a waiter lock the deleted inode while another
locks a new file. HDFS and S3 have no such lock: there the lock is a file created with the store's
atomic create-if-absent, broken when its stamp is older than HEARTBEAT_EXPIRY_S (best effort: two
waiters may both break one stale file).
"""
from __future__ import annotations

import fcntl
import os
import threading
import time

from pyhudi.metadata.errors import MetadataTableError
from pyhudi.storage import AlreadyExists, Storage

HEARTBEAT_FILE = ".hoodie/.heartbeat/initialization"  # under the MDT; holds the builder's epoch seconds
HEARTBEAT_INTERVAL_S = 10.0
HEARTBEAT_EXPIRY_S = 60.0  # older than this, the build is taken for dead and may be redone
HANDOFF_LOCK = ".hoodie/.aux/metadata_build.lock"  # under the data table
POLL_S = 0.05


def stamp() -> bytes:
    """What heartbeat and lock files hold: the writer's clock, epoch seconds."""
    return repr(time.time()).encode()


def age_s(storage: Storage, path: str) -> float | None:
    """Seconds since the stamp in `path` was written; None when it is missing or unreadable."""
    try:
        return time.time() - float(storage.read(path).decode())
    except (OSError, ValueError):
        return None


class Heartbeat:
    """Refreshes `path` with the current time every few seconds while a build runs, so writers
    can tell a live build (leave the MDT alone) from one that died (build it again)."""

    def __init__(self, storage: Storage, path: str, interval_s: float = HEARTBEAT_INTERVAL_S):
        self.storage, self.path, self.interval_s = storage, path, interval_s
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="mdt-init-heartbeat", daemon=True)

    def beat(self) -> None:
        self.storage.write(self.path, stamp())

    def _run(self) -> None:
        while not self._stop.wait(self.interval_s):
            self.beat()

    def __enter__(self) -> "Heartbeat":
        self.beat()
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self._thread.join()
        if self.storage.exists(self.path):
            self.storage.delete(self.path)


class HandoffLock:
    """An exclusive lock on `path`, waited for up to `timeout_s` (module comment). Hold it briefly. Off local
    disk, a lock file older than `stale_after_s` is broken (None: never)."""

    def __init__(self, storage: Storage, path: str, timeout_s: float = 2 * HEARTBEAT_EXPIRY_S,
                 stale_after_s: float | None = HEARTBEAT_EXPIRY_S):
        self.path, self.timeout_s = path, timeout_s
        self._lock = _FlockFile(path) if storage.local else _StampFile(storage, path, stale_after_s)

    def __enter__(self) -> "HandoffLock":
        deadline = time.monotonic() + self.timeout_s
        while not self._lock.try_acquire():
            if time.monotonic() > deadline:
                raise MetadataTableError(f"{self.path} is held by another writer for over {self.timeout_s:.0f} s "
                                         f"({self._lock.holder()}); is a metadata build or a write stuck?")
            time.sleep(POLL_S)
        return self

    def __exit__(self, *exc) -> None:
        self._lock.release()


class _FlockFile:
    """flock(LOCK_EX) of a local file; one open file per holder, so threads exclude each other too."""

    def __init__(self, path: str):
        self.path = path
        self.fd: int | None = None

    def try_acquire(self) -> bool:
        os.makedirs(os.path.dirname(self.path), exist_ok=True)
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            return False
        if not self._still_at_path(fd):  # removed or replaced since we opened it: lock what is there now
            os.close(fd)
            return False
        os.ftruncate(fd, 0)
        os.write(fd, f"pid {os.getpid()} since {time.time()!r}".encode())  # for the message of a waiter
        self.fd = fd
        return True

    def _still_at_path(self, fd: int) -> bool:
        try:
            now = os.stat(self.path)
        except FileNotFoundError:
            return False
        mine = os.fstat(fd)
        return (mine.st_dev, mine.st_ino) == (now.st_dev, now.st_ino)

    def holder(self) -> str:
        try:
            with open(self.path, encoding="utf-8", errors="replace") as f:
                return f"held by {f.read() or 'an unknown holder'}"
        except OSError:
            return "holder unknown"

    def release(self) -> None:
        if self.fd is not None:
            fcntl.flock(self.fd, fcntl.LOCK_UN)  # even if a forked child still holds a copy of the descriptor
            os.close(self.fd)
            self.fd = None


class _StampFile:
    """A lock file created with create-if-absent, holding its creator's clock; broken when stale."""

    def __init__(self, storage: Storage, path: str, stale_after_s: float | None):
        self.storage, self.path, self.stale_after_s = storage, path, stale_after_s

    def try_acquire(self) -> bool:
        try:
            self.storage.create_if_absent(self.path, stamp())
            return True
        except AlreadyExists:
            age = age_s(self.storage, self.path)
            if age is not None and self.stale_after_s is not None and age > self.stale_after_s:
                self.storage.delete(self.path)
            return False

    def holder(self) -> str:
        age = age_s(self.storage, self.path)
        return "holder unknown" if age is None else f"taken {age:.0f} s ago"

    def release(self) -> None:
        self.storage.delete(self.path)
