"""Several writers on one table. Optimistic concurrency control: a writer plans and writes its files without a
lock, then commits under the table lock after checking that no write that completed since it started touched its
file groups (Hudi's SimpleConcurrentFileWritesConflictResolutionStrategy; with the bucket index, its buckets: two
writers creating one bucket would make two file groups of it); on a conflict its instant is rolled back and the
caller gets a HudiConflictError naming the other instant. Non-blocking concurrency control (RFC-66, merge-on-read
with the simple bucket index): writers append log files to the same file groups without conflicting; only creating
the same bucket (a new bucket's file id follows from partition and bucket alone), replacing writes and clustering
plans conflict.
Compaction plans never do: a log file belongs to the file slice its completion time falls in. (Hudi writes a new
bucket as log files alone, so that its creation cannot conflict either; readers such as hudi-rs skip file groups
without a base file, so pyhudi writes the base file and lets a second creator of the bucket lose.)

A pending instant keeps a heartbeat (`.hoodie/.heartbeat/<instant>`, refreshed every
hoodie.client.heartbeat.interval_in_ms); with hoodie.cleaner.policy.failed.writes=LAZY the next writer rolls
back only pending writes whose heartbeat stopped, never a live writer's.

The table lock (hoodie.write.lock.provider): FileSystemBasedLockProvider is `.hoodie/lock` (on local disk an
exclusive flock, which dies with its holder; on HDFS and object storage a file made with create-if-absent,
broken after hoodie.write.lock.filesystem.expire minutes); InProcessLockProvider a lock of this process;
StorageBasedLockProvider Apache Hudi's lock object on S3 (pyhudi.write.storage_lock).
"""
from __future__ import annotations

import contextlib
import logging
import posixpath
import threading
from dataclasses import dataclass
from typing import Any, Iterable, Iterator, Mapping

from pyhudi.config import OptionError
from pyhudi.config import options as o
from pyhudi.errors import HudiError
from pyhudi.metadata import locks
from pyhudi.storage import Storage
from pyhudi.table import file_names
from pyhudi.table import instant_metadata as im
from pyhudi.table.pending_plans import held_file_groups
from pyhudi.table.rollback import rollback
from pyhudi.table.timeline import Instant, Timeline
from pyhudi.write.index.base import Index
from pyhudi.write.index.bucket import bucket_of
from pyhudi.write.storage_lock import StorageLock, StorageLockError

log = logging.getLogger(__name__)

OCC = "OPTIMISTIC_CONCURRENCY_CONTROL"
NBCC = "NON_BLOCKING_CONCURRENCY_CONTROL"
HEARTBEAT_DIR = ".hoodie/.heartbeat"
WRITES = ("commit", "deltacommit", "replacecommit")
_IN_PROCESS: dict[str, threading.Lock] = {}
_IN_PROCESS_GUARD = threading.Lock()
_HELD = threading.local()  # the tables whose lock this thread holds: taking it again inside is a no-op


class HudiConflictError(HudiError, RuntimeError):
    """A write that overlapped another one: nothing of it is visible; write it again."""

    def __init__(self, message: str, instant: str | None = None, other: str | None = None):
        super().__init__(message)
        self.instant, self.other = instant, other  # the instant rolled back, and the one it overlapped


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
    lock_validity_s: int = 300  # StorageBasedLockProvider's lease, and how often it is renewed
    lock_renew_s: int = 30

    @classmethod
    def of(cls, options: Mapping[str, str]) -> "Concurrency":
        mode = o.CONCURRENCY_MODE.get(options)
        policy = o.FAILED_WRITES_POLICY.get(options) or ("EAGER" if mode == "SINGLE_WRITER" else "LAZY")
        if mode != "SINGLE_WRITER" and policy == "EAGER":
            raise OptionError(f"{o.FAILED_WRITES_POLICY.key}=EAGER rolls back the pending writes of the other "
                                f"writers; with {o.CONCURRENCY_MODE.key}={mode} set it to LAZY (or leave it unset)")
        expire = o.LOCK_FILESYSTEM_EXPIRE.get(options)
        return cls(mode, policy == "LAZY", o.LOCK_PROVIDER.get(options), o.LOCK_WAIT_MS.get(options) / 1000,
                   o.LOCK_NUM_RETRIES.get(options), expire * 60 if expire else None,
                   o.HEARTBEAT_INTERVAL_MS.get(options) / 1000, o.HEARTBEAT_MISSES.get(options),
                   o.LOCK_STORAGE_VALIDITY.get(options), o.LOCK_STORAGE_RENEW.get(options))

    @property
    def multi_writer(self) -> bool:
        return self.mode != "SINGLE_WRITER"

    @property
    def non_blocking(self) -> bool:
        return self.mode == NBCC

    def check_table(self, table_type: str, index: Index) -> None:
        """Non-blocking concurrency control needs what Hudi requires: merge-on-read (conflicts are resolved by
        merging) and the simple bucket index (the same key lands in the same file group in every writer)."""
        if self.non_blocking and (table_type != "MERGE_ON_READ" or not index.hashes_keys):
            raise OptionError(f"{o.CONCURRENCY_MODE.key}={NBCC} needs a MERGE_ON_READ table with the simple bucket "
                                f"index ({o.INDEX_TYPE.key}=BUCKET, {o.BUCKET_ENGINE.key}=SIMPLE); this write has "
                                f"{table_type} and {index.name}. Use {OCC} otherwise")

    def shared_lock(self, storage: Storage, base: str) -> contextlib.AbstractContextManager:
        """The table lock when several writers are configured (Hudi takes it to schedule and commit table services
        too); nothing with one writer."""
        return self.table_lock(storage, base) if self.multi_writer else contextlib.nullcontext()

    @contextlib.contextmanager
    def table_lock(self, storage: Storage, base: str) -> Iterator[None]:
        """The table lock, waited for up to (1 + retries) x wait time; re-entrant within a thread (a service's
        commit inside its own locked planning)."""
        held = _HELD.__dict__.setdefault("bases", set())
        if base in held:
            yield
            return
        held.add(base)
        try:
            with self._acquired(storage, base):
                yield
        finally:
            held.discard(base)

    @contextlib.contextmanager
    def _acquired(self, storage: Storage, base: str) -> Iterator[None]:
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
        if self.provider.endswith("StorageBasedLockProvider"):
            try:
                with StorageLock(storage, base, timeout, self.lock_validity_s, self.lock_renew_s):
                    yield
            except StorageLockError as e:
                raise LockTimeoutError(f"{e} ({o.LOCK_WAIT_MS.key} x (1 + {o.LOCK_NUM_RETRIES.key}))") from e
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
        stopped (LAZY: a writer beats before it requests its instant)."""
        pending = [i for i in timeline.pending() if i.action in WRITES]
        return [i for i in pending if not self.lazy or self.is_dead(storage, base, i)]

    def is_dead(self, storage: Storage, base: str, instant: Instant) -> bool:
        """The pending instant's heartbeat stopped more than the tolerable misses ago, or never started."""
        age = locks.age_s(storage, posixpath.join(base, HEARTBEAT_DIR, instant.requested_time))
        return age is None or age > self.heartbeat_s * self.misses


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


def _unit(partition: str, file_id: str, bucketed: bool) -> tuple[str, str]:
    """What two writes must not both touch: a file group, or under the bucket index its bucket."""
    bucket = bucket_of(file_id) if bucketed else None
    return (partition, file_id) if bucket is None else (partition, f"bucket {bucket}")


def conflicts(timeline: Timeline, start: Start, mine: Iterable[tuple[str, str]], instant: str, *,
              bucketed: bool = False, non_blocking: bool = False) -> str | None:
    """The first write completed since this one started that touched one of `mine` (partition, file id), or a
    table-service plan scheduled since that holds one; None when there is none. Inserts into new file groups
    touch none of another write's. Non-blocking: `mine` are the file groups this write creates, and they
    conflict with groups other writes created or replaced and with clustering plans."""
    mine = {_unit(p, f, bucketed) for p, f in mine}
    for other in timeline.completed(WRITES):
        if other.requested_time in start.completed or other.requested_time == instant:
            continue
        meta = im.decode(timeline.read(other), layout_version=timeline.layout)
        if meta.get("operationType") in ("COMPACT", "LOG_COMPACT") and other.requested_time in start.known:
            continue  # planned before this write started: its log files went to the slice the plan opens
        created_only = non_blocking and other.action != "replacecommit"
        theirs: set[tuple[str, Any]]  # (partition, the stat's fileId as decoded)
        theirs = {(p, s.get("fileId")) for p, s in im.write_stats(meta)
                  if not created_only or _creates(s)}
        theirs |= {(p, f) for p, ids in im.replaced_file_ids(meta).items() for f in ids}
        if mine & {_unit(p, f, bucketed) for p, f in theirs}:
            return f"{other.action} {other.requested_time}"
    held = ("clustering",) if non_blocking else ("compaction", "logcompaction", "clustering")
    for (p, f), plan in held_file_groups(timeline, held).items():
        if plan.requested_time not in start.known and _unit(p, f, bucketed) in mine:
            return f"{plan.action} plan {plan.requested_time}"
    return None


def _creates(stat: Mapping) -> bool:
    """A write stat of a file group's first base file."""
    name = posixpath.basename(stat.get("path") or "")
    return stat.get("prevCommit") in (None, "null") and not file_names.is_log(name)


class Guard:
    """One write's part in concurrency control: the failed writes it rolls back first, the heartbeat of its
    instant, and its commit - under the table lock after the conflict check, with several writers."""

    def __init__(self, options: Mapping[str, str], storage: Storage, base: str, table_type: str, index: Index):
        self.cc = Concurrency.of(options)
        self.cc.check_table(table_type, index)
        self.bucketed = index.hashes_keys  # a bucket is the unit of conflict: two writers may create one
        self.storage, self.base = storage, base
        self._start: Start | None = None
        self._beat: locks.Heartbeat | None = None

    def begin(self, timeline: Timeline) -> None:
        """Rolls back the failed writes - with several writers under the table lock, decided again there, so two
        writers never roll back one instant together - and notes what the timeline holds."""
        if self.cc.failed_writes(self.storage, self.base, timeline):
            with self._lock_if_shared(timeline, None):
                for failed in self.cc.failed_writes(self.storage, self.base, timeline):
                    rollback(self.storage, self.base, timeline, failed)
                    self.storage.delete(posixpath.join(self.base, HEARTBEAT_DIR, failed.requested_time))
        self._start = Start.of(timeline)

    def fixed_bucket_ids(self, operation: str) -> bool:
        """Non-blocking: a new bucket's file id is the same in every writer (not for a replacing write, whose new
        file groups must differ from those it replaces)."""
        return self.cc.non_blocking and operation not in ("insert_overwrite", "insert_overwrite_table")

    def requested(self, instant: str) -> None:
        """Called before the instant is requested: another writer never sees it without a heartbeat."""
        if self.cc.lazy:
            self._beat = self.cc.heartbeat(self.storage, self.base, instant).__enter__()

    def end(self) -> None:
        if self._beat is not None:
            self._beat.__exit__(None, None, None)
            self._beat = None

    @contextlib.contextmanager
    def _lock_if_shared(self, timeline: Timeline, inflight: Instant | None) -> Iterator[None]:
        """The table lock with several writers; when it cannot be taken, `inflight` is rolled back first."""
        try:
            lock = self.cc.shared_lock(self.storage, self.base)
            lock.__enter__()
        except LockTimeoutError:
            if inflight is not None:
                rollback(self.storage, self.base, timeline, inflight)  # the table as it was
            raise
        try:
            yield
        finally:
            lock.__exit__(None, None, None)

    @contextlib.contextmanager
    def committing(self, timeline: Timeline, inflight: Instant, stats: Iterable, replaced: Mapping[str, list[str]]
                   ) -> Iterator[None]:
        if not self.cc.multi_writer:
            yield
            return
        non_blocking = self.cc.non_blocking and inflight.action != "replacecommit"
        mine = {(s.partition, s.file_id) for s in stats if not non_blocking or _creates(s.to_commit_stat())}
        mine |= {(p, f) for p, ids in replaced.items() for f in ids}
        assert self._start is not None  # begin() ran before the write was committed
        with self._lock_if_shared(timeline, inflight):
            other = conflicts(timeline, self._start, mine, inflight.requested_time, bucketed=self.bucketed,
                              non_blocking=non_blocking)
            if other is None:
                yield
                return
            rollback(self.storage, self.base, timeline, inflight)
        raise HudiConflictError(f"the write {inflight.requested_time} to {self.base} overlaps {other}, which "
                                "completed first: it touched the same file groups. Nothing of this write is "
                                "visible; write it again", inflight.requested_time, other)
