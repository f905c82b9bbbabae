"""The timeline: instant files, their states and transitions, and instant times.

Layout 2 (table version 8/9) keeps instants in `.hoodie/timeline/`: pending ones as
`<t>.<action>.<state>` (a commit's inflight is `<t>.inflight`), completed ones as
`<t>_<completion>.<action>`. Layout 1 (version 6) keeps them in `.hoodie/` and completed ones are
`<t>.<action>` with no completion time.
"""
from __future__ import annotations

import datetime as dt
import fcntl
import functools
import hashlib
import os
import re
import tempfile
import threading
import time
from dataclasses import dataclass

from pyhudi.storage import AlreadyExists, Storage
from pyhudi.table import properties
from pyhudi.table.lsm_timeline import LSMTimeline

REQUESTED, INFLIGHT, COMPLETED = "requested", "inflight", "completed"
STATE_ORDER = {REQUESTED: 0, INFLIGHT: 1, COMPLETED: 2}

ACTIONS = ("commit", "deltacommit", "replacecommit", "clustering", "compaction", "logcompaction",
           "clean", "rollback", "savepoint", "restore", "indexing", "schemacommit")
# The action name a completed instant's file carries, when it differs from the pending one.
COMPLETED_ACTION = {"compaction": "commit", "clustering": "replacecommit", "logcompaction": "deltacommit"}
# Actions that change data files (what readers and incremental queries look at).
WRITE_ACTIONS = ("commit", "deltacommit", "replacecommit")

# The states whose files Hudi's active timeline loads, per action (ActiveTimelineV1/V2
# .VALID_EXTENSIONS_IN_ACTIVE_TIMELINE): a completed compaction, log compaction or clustering is
# written under its completed action, and clustering files exist only in layout 2.
_LOADED_STATES = {
    **dict.fromkeys(("commit", "deltacommit", "replacecommit", "clean", "rollback", "restore", "indexing",
                     "schemacommit"), (REQUESTED, INFLIGHT, COMPLETED)),
    "savepoint": (INFLIGHT, COMPLETED),
    **dict.fromkeys(("compaction", "logcompaction", "clustering"), (REQUESTED, INFLIGHT)),
}
# <requested>[_<completion>]<extension>, ASCII digits only (Java's \d)
_NAME = re.compile(r"([0-9]+)(?:_([0-9]+))?(\..+)")

TIME_FORMAT = "%Y%m%d%H%M%S"


def _extension(action: str, state: str) -> str:
    """What follows the time(s) in an instant file name; a commit's inflight is plain `.inflight`."""
    if state == INFLIGHT and action == "commit":
        return ".inflight"
    return f".{action}" if state == COMPLETED else f".{action}.{state}"


_EXTENSIONS = {layout: {_extension(a, s): (a, s) for a, states in _LOADED_STATES.items() for s in states
                        if layout == 2 or a != "clustering"} for layout in (1, 2)}


@dataclass(frozen=True)
class Instant:
    requested_time: str
    action: str
    state: str
    completion_time: str | None = None

    def file_name(self, layout: int = 2) -> str:
        """A completed instant without a completion time keeps the 0.x name, in either layout."""
        done = self.state == COMPLETED and layout == 2 and self.completion_time
        times = f"{self.requested_time}_{self.completion_time}" if done else self.requested_time
        return times + _extension(self.action, self.state)

    @property
    def is_completed(self) -> bool:
        return self.state == COMPLETED


@functools.lru_cache(maxsize=65536)  # a timeline directory is listed many times per write; its names repeat
def parse_instant_file(name: str, layout: int) -> Instant | None:
    """The instant an instant file stands for, or None for anything else in the directory
    (Hudi's InstantGeneratorV1/V2; tests/conformance/instant_file_names.json holds the cases).
    A layout-2 name without completion time is a completed 0.x instant, as in Hudi."""
    m = _NAME.fullmatch(name)
    if not m or (layout == 1 and m[2] is not None):
        return None
    found = _EXTENSIONS[layout].get(m[3])
    if found is None:
        return None
    action, state = found
    return Instant(m[1], action, state, m[2] if state == COMPLETED else None)


def format_instant_time(when: dt.datetime) -> str:
    return when.strftime(TIME_FORMAT) + f"{when.microsecond // 1000:03d}"


def parse_instant_time(text: str) -> dt.datetime:
    base = dt.datetime.strptime(text[:14], TIME_FORMAT)
    return base.replace(microsecond=int(text[14:17] or 0) * 1000)


def collapse(instants: list[Instant]) -> list[Instant]:
    """One Instant per requested time, its most advanced state, in requested-time order. A savepoint takes
    the time of the commit it keeps: it is an instant of its own beside that commit (after it)."""
    latest: dict[tuple[str, bool], Instant] = {}
    for inst in sorted(instants, key=lambda i: (i.requested_time, STATE_ORDER[i.state])):
        latest[(inst.requested_time, inst.action == "savepoint")] = inst
    return sorted(latest.values(), key=lambda i: (i.requested_time, i.action == "savepoint"))


def timeline_hash(instants: list[Instant]) -> str:
    """Apache Hudi's timeline hash (HoodieDefaultTimeline): hex SHA-256 over `<requested>_<action>_<STATE>`
    of each instant, in requested-time order."""
    md = hashlib.sha256()
    for i in instants:
        md.update(f"{i.requested_time}_{i.action}_{i.state.upper()}".encode())
    return md.hexdigest()


def last_write(instants: list[Instant]) -> str | None:
    """Requested time of the latest completed commit, deltacommit or replacecommit."""
    done = [i.requested_time for i in instants if i.is_completed and i.action in WRITE_ACTIONS]
    return max(done) if done else None


class InstantTimeGenerator:
    """Strictly increasing 17-digit instant times shared by every thread and process on this
    machine that writes the table: an exclusive file lock plus the last time handed out, and a
    wait until the clock passes it."""

    _thread_lock = threading.Lock()

    def __init__(self, lock_dir: str):
        os.makedirs(lock_dir, exist_ok=True)
        self.lock_path = os.path.join(lock_dir, "instant_time.lock")

    @classmethod
    def for_table(cls, storage: Storage, base_path: str) -> "InstantTimeGenerator":
        if storage.local:
            return cls(os.path.join(base_path, ".hoodie", ".aux", ".locks"))
        key = hashlib.sha1(f"{type(storage.fs).__name__}:{base_path}".encode()).hexdigest()[:16]
        return cls(os.path.join(tempfile.gettempdir(), "pyhudi-locks", key))

    def next(self, after: str | None = None) -> str:
        """A new instant time, greater than every one handed out before and than `after`."""
        with self._thread_lock, open(self.lock_path, "a+") as f:
            fcntl.flock(f, fcntl.LOCK_EX)
            try:
                f.seek(0)
                last = max(f.read().strip(), after or "")
                now = format_instant_time(dt.datetime.now())
                while now <= last:
                    time.sleep(0.0005)
                    now = format_instant_time(dt.datetime.now())
                f.seek(0)
                f.truncate()
                f.write(now)
                f.flush()
                return now
            finally:
                fcntl.flock(f, fcntl.LOCK_UN)


class Timeline:
    """The instants of one table, read from and written to its timeline directory."""

    def __init__(self, storage: Storage, base_path: str, layout: int = 2, timeline_path: str = "timeline",
                 history_path: str = "history", props: dict[str, str] | None = None):
        if layout not in (1, 2):
            raise ValueError(f"timeline layout version {layout} is not supported (1 or 2)")
        self.storage = storage
        self.base_path = base_path
        self.layout = layout
        hoodie = f"{base_path}/.hoodie"
        self.dir = f"{hoodie}/{timeline_path}" if layout == 2 else hoodie
        self.history_path = history_path
        self.times = InstantTimeGenerator.for_table(storage, base_path)
        self.props = props  # the table's hoodie.properties when known: no instant is requested on one pyhudi
        # does not write (properties.check_writable)

    @classmethod
    def for_table(cls, storage: Storage, base_path: str, props: dict[str, str]) -> "Timeline":
        layout = int(props.get(properties.TIMELINE_LAYOUT, "1"))
        return cls(storage, base_path, layout, props.get(properties.TIMELINE_PATH, "timeline"),
                   props.get(properties.HISTORY_PATH, "history"), props)

    # ---- reading ----------------------------------------------------------------------------
    def instant_files(self) -> list[Instant]:
        """Every instant file, one Instant per file (a completed instant also left its
        requested and inflight files behind)."""
        found = (parse_instant_file(e.name, self.layout) for e in self.storage.list(self.dir) if not e.is_dir)
        return sorted((i for i in found if i), key=lambda i: (i.requested_time, STATE_ORDER[i.state]))

    def instants(self) -> list[Instant]:
        """One Instant per requested time, in its most advanced state."""
        return collapse(self.instant_files())

    def completed(self, actions: tuple[str, ...] | None = None) -> list[Instant]:
        return [i for i in self.instants() if i.is_completed and (actions is None or i.action in actions)]

    def pending(self) -> list[Instant]:
        return [i for i in self.instants() if not i.is_completed]

    def last_instant_time(self) -> str | None:
        files = self.instant_files()
        times = [t for i in files for t in (i.requested_time, i.completion_time) if t]
        return max(times) if times else None

    def view_state(self) -> tuple[str | None, str]:
        """(latest completed write, timeline hash) from one listing: what a synced view compares with
        its own to know it is current (io.hudimeta.view.SyncedView.syncIfStale)."""
        instants = self.instants()
        return last_write(instants), timeline_hash(instants)

    def read(self, instant: Instant) -> bytes:
        """The instant file's bytes. One listed earlier may have been archived since (by another writer's
        archival): its content never changes, so it is read from the timeline history then."""
        try:
            return self.storage.read(f"{self.dir}/{instant.file_name(self.layout)}")
        except FileNotFoundError:
            archived = self._from_history(instant)
            if archived is None:
                raise
            return archived

    def _from_history(self, instant: Instant) -> bytes | None:
        """A completed instant's metadata or a pending one's plan, as archival put it in the history."""
        if self.layout != 2:
            return None
        history = LSMTimeline(self.storage, f"{self.dir}/{self.history_path}")
        for row in history.instants(instant.requested_time, instant.requested_time):
            if not instant.is_completed:
                return row.plan or b""
            if row.action == instant.action:
                return row.metadata or b""
        return None

    # ---- writing ----------------------------------------------------------------------------
    def new_instant_time(self) -> str:
        return self.times.next(after=self.last_instant_time())

    def create_requested(self, action: str, content: bytes = b"", requested_time: str | None = None) -> Instant:
        if action not in ACTIONS:
            raise ValueError(f"unknown action {action!r}; valid actions: {', '.join(ACTIONS)}")
        if self.props is not None:
            properties.check_writable(self.props, self.base_path)
        inst = Instant(requested_time or self.new_instant_time(), action, REQUESTED)
        self.storage.create_if_absent(f"{self.dir}/{inst.file_name(self.layout)}", content)
        return inst

    def transition_to_inflight(self, instant: Instant, content: bytes = b"") -> Instant:
        self._expect(instant, REQUESTED)
        inflight = Instant(instant.requested_time, instant.action, INFLIGHT)
        self.storage.create_if_absent(f"{self.dir}/{inflight.file_name(self.layout)}", content)
        return inflight

    def complete(self, instant: Instant, content: bytes) -> Instant:
        """Publish the completed instant: one atomic create-if-absent, the commit point."""
        self._expect(instant, INFLIGHT)
        completion = self.times.next(after=max(instant.requested_time, self.last_instant_time() or ""))
        action = COMPLETED_ACTION.get(instant.action, instant.action)
        done = Instant(instant.requested_time, action, COMPLETED,
                       completion if self.layout == 2 else None)
        try:
            self.storage.create_if_absent(f"{self.dir}/{done.file_name(self.layout)}", content)
        except AlreadyExists as e:
            raise RuntimeError(f"instant {instant.requested_time} was completed by another writer") from e
        return done

    def delete_pending(self, instant: Instant) -> None:
        """Remove a pending instant's files (after its rollback), inflight first so that a crash
        in between leaves it requested, never half-gone."""
        for state in (INFLIGHT, REQUESTED):
            pending = Instant(instant.requested_time, instant.action, state)
            self.storage.delete(f"{self.dir}/{pending.file_name(self.layout)}")

    @staticmethod
    def _expect(instant: Instant, state: str) -> None:
        if instant.state != state:
            raise ValueError(f"instant {instant.requested_time} {instant.action} is {instant.state}, expected {state}")
