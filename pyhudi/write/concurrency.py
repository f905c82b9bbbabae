"""Several writers on one table (Apache Hudi's optimistic concurrency control): a writer plans and writes its
files without a lock, then commits under the table lock after checking that no write that completed since it
started touched its file groups (Hudi's SimpleConcurrentFileWritesConflictResolutionStrategy); on a conflict its
instant is rolled back and the caller gets a HudiConflictError naming the other instant.

A pending instant keeps a heartbeat (`.hoodie/.heartbeat/<instant>`, refreshed every
hoodie.client.heartbeat.interval_in_ms); with hoodie.cleaner.policy.failed.writes=LAZY the next writer rolls
back only pending writes whose heartbeat stopped, never a live writer's.

The table lock (hoodie.write.lock.provider): FileSystemBasedLockProvider is `.hoodie/lock` (on local disk an
exclusive flock, which dies with its holder; on HDFS and object storage a file made with create-if-absent,
broken after hoodie.write.lock.filesystem.expire minutes); InProcessLockProvider a lock of this process.
"""
from __future__ import annotations

import contextlib
import logging
import posixpath
import threading
from dataclasses import dataclass
from typing import Iterable, Iterator, Mapping

from pyhudi.config import options as o
from pyhudi.errors import HudiError
from pyhudi.metadata import locks
from pyhudi.storage import Storage
from pyhudi.table import instant_metadata as im
from pyhudi.table.pending_plans import held_file_groups
from pyhudi.table.rollback import rollback
from pyhudi.table.timeline import Instant, Timeline

log = logging.getLogger(__name__)

OCC = "OPTIMISTIC_CONCURRENCY_CONTROL"
HEARTBEAT_DIR = ".hoodie/.heartbeat"
WRITES = ("commit", "deltacommit", "replacecommit")
_IN_PROCESS: dict[str, threading.Lock] = {}
_IN_PROCESS_GUARD = threading.Lock()


class HudiConflictError(HudiError, RuntimeError):
    """A write that overlapped another one: nothing of it is visible; write it again."""


class LockTimeoutError(HudiError, TimeoutError):
    """The table lock could not be taken in time."""


@dataclass(frozen=True)
class Concurrency:
    mode: str
    lazy: bool              # failed writes are rolled back lazily (by expired heartbeat)
    provider: str
    wait_s: float
    retries: int
    expire_s: float | None  # stale lock files are broken after this (None: never)
    heartbeat_s: float
    misses: int

    @classmethod
    def of(cls, options: Mapping[str, str]) -> "Concurrency":
        mode = o.CONCURRENCY_MODE.get(options)
        policy = o.FAILED_WRITES_POLICY.get(options) or ("LAZY" if mode == OCC else "EAGER")
        if mode == OCC and policy == "EAGER":
            raise o.OptionError(f"{o.FAILED_WRITES_POLICY.key}=EAGER rolls back the pending writes of the other "
                                f"writers; with {o.CONCURRENCY_MODE.key}={OCC} set it to LAZY (or leave it unset)")
        expire = o.LOCK_FILESYSTEM_EXPIRE.get(options)
        return cls(mode, policy == "LAZY", o.LOCK_PROVIDER.get(options), o.LOCK_WAIT_MS.get(options) / 1000,
                   o.LOCK_NUM_RETRIES.get(options), expire * 60 if expire else None,
                   o.HEARTBEAT_INTERVAL_MS.get(options) / 1000, o.HEARTBEAT_MISSES.get(options))

    @property
    def optimistic(self) -> bool:
        return self.mode == OCC

    @contextlib.contextmanager
    def table_lock(self, storage: Storage, base: str) -> Iterator[None]:
        """The table lock, waited for up to (1 + retries) x wait time."""
        timeout = self.wait_s * (1 + self.retries)
        if self.provider.endswith("InProcessLockProvider"):
            with _IN_PROCESS_GUARD:
                lock = _IN_PROCESS.setdefault(base, threading.Lock())
            if not lock.acquire(timeout=timeout):
                raise LockTimeoutError(f"the in-process lock of {base} was held for over {timeout:.0f} s "
                                       f"({o.LOCK_WAIT_MS.key} x (1 + {o.LOCK_NUM_RETRIES.key}))")
            try:
                yield
            finally:
                lock.release()
            return
        path = posixpath.join(base, ".hoodie", "lock")
        try:
            held = locks.HandoffLock(storage, path, timeout, stale_after_s=self.expire_s)
            held.__enter__()
        except locks.MetadataTableError as e:
            raise LockTimeoutError(f"{e} (waited {o.LOCK_WAIT_MS.key} x (1 + {o.LOCK_NUM_RETRIES.key}))") from e
        try:
            yield
        finally:
            held.__exit__(None, None, None)

    # ---- heartbeats -----------------------------------------------------------------------------------
    def heartbeat(self, storage: Storage, base: str, instant: str) -> locks.Heartbeat:
        return locks.Heartbeat(storage, posixpath.join(base, HEARTBEAT_DIR, instant), self.heartbeat_s)

    def failed_writes(self, storage: Storage, base: str, timeline: Timeline) -> list[Instant]:
        """The pending writes to roll back before this write: all of them (EAGER), or those whose heartbeat
        stopped more than the tolerable misses ago or never started (LAZY)."""
        pending = [i for i in timeline.pending() if i.action in WRITES]
        if not self.lazy:
            return pending
        limit = self.heartbeat_s * self.misses
        dead = []
        for i in pending:
            age = locks.age_s(storage, posixpath.join(base, HEARTBEAT_DIR, i.requested_time))
            if age is None or age > limit:
                dead.append(i)
        return dead


@dataclass(frozen=True)
class Start:
    """What the timeline held when a write started: the instants completed then, and every instant."""
    completed: frozenset[str]
    known: frozenset[str]

    @classmethod
    def of(cls, timeline: Timeline) -> "Start":
        instants = timeline.instants()
        return cls(frozenset(i.requested_time for i in instants if i.is_completed),
                   frozenset(i.requested_time for i in instants))


def conflicts(timeline: Timeline, start: Start, mine: Iterable[tuple[str, str]], instant: str) -> str | None:
    """The first write completed since this one started that touched one of `mine` (partition, file id), or a
    table-service plan scheduled since that holds one; None when there is none. Inserts into new file groups
    touch none of another write's."""
    mine = set(mine)
    for other in timeline.completed(WRITES):
        if other.requested_time in start.completed or other.requested_time == instant:
            continue
        meta = im.decode(timeline.read(other), layout_version=timeline.layout)
        if meta.get("operationType") in ("COMPACT", "LOG_COMPACT") and other.requested_time in start.known:
            continue  # planned before this write started: its log files went to the slice the plan opens
        theirs = {(p, s.get("fileId")) for p, s in im.write_stats(meta)}
        theirs |= {(p, f) for p, ids in im.replaced_file_ids(meta).items() for f in ids}
        if mine & theirs:
            return f"{other.action} {other.requested_time}"
    for group, plan in held_file_groups(timeline, ("compaction", "logcompaction", "clustering")).items():
        if plan.requested_time not in start.known and group in mine:
            return f"{plan.action} plan {plan.requested_time}"
    return None


class Guard:
    """One write's part in concurrency control: the failed writes it rolls back first, the heartbeat of its
    instant, and its commit - under the table lock after the conflict check, with optimistic concurrency
    control."""

    def __init__(self, options: Mapping[str, str], storage: Storage, base: str):
        self.cc = Concurrency.of(options)
        self.storage, self.base = storage, base
        self._start: Start | None = None
        self._beat: locks.Heartbeat | None = None

    def begin(self, timeline: Timeline) -> None:
        for failed in self.cc.failed_writes(self.storage, self.base, timeline):
            rollback(self.storage, self.base, timeline, failed)
        self._start = Start.of(timeline)

    def requested(self, instant: str) -> None:
        if self.cc.lazy:
            self._beat = self.cc.heartbeat(self.storage, self.base, instant).__enter__()

    def end(self) -> None:
        if self._beat is not None:
            self._beat.__exit__(None, None, None)
            self._beat = None

    @contextlib.contextmanager
    def committing(self, timeline: Timeline, inflight: Instant, stats: Iterable, replaced: Mapping[str, list[str]]
                   ) -> Iterator[None]:
        if not self.cc.optimistic:
            yield
            return
        mine = {(s.partition, s.file_id) for s in stats} | {(p, f) for p, ids in replaced.items() for f in ids}
        try:
            lock = self.cc.table_lock(self.storage, self.base)
            lock.__enter__()
        except LockTimeoutError:
            rollback(self.storage, self.base, timeline, inflight)  # the table as it was
            raise
        try:
            other = conflicts(timeline, self._start, mine, inflight.requested_time)
            if other is None:
                yield
                return
            rollback(self.storage, self.base, timeline, inflight)
        finally:
            lock.__exit__(None, None, None)
        raise HudiConflictError(f"the write {inflight.requested_time} to {self.base} overlaps {other}, which "
                                "completed first: it touched the same file groups. Nothing of this write is "
                                "visible; write it again")
