"""Partitions a clean plan found with nothing to delete, remembered in this process.

Until a clean deletes something (or an empty clean gives it a horizon), Hudi's incremental cleaning has no
earlier clean to start from and looks at every partition on every commit (CleanPlanner's full-table path).
At 100,000 files that is a listing of the whole `files` partition and a check of every partition at each
write. Most partitions are *quiet*: no file group in them holds more than one file and none is replaced, so
retention by commits or hours has nothing to delete there whatever the earliest commit to retain is.

Only a completed write can end that: files reach a partition through an instant whose commit metadata names
it (write stats or replaced file ids); cleans, rollbacks and restores only take files away. So a
long-running writer (a loop of upserts, a stream) remembers the quiet partitions with the completed instants
it saw, and at the next full clean plan looks again only at the partitions the instants completed since
then wrote: O(new instants), as RFC-03 asks of the writer's view. The plan is the same as a full look.

The memory is dropped when archival may have hidden an instant completed since: when its newest completed
instant, or an instant pending when it was made, has left the active timeline (archival takes the oldest
instants first); and when the retention policy changes."""
from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import Callable, Iterable

from pyhudi.table.timeline import Instant

MAX_TABLES = 64  # tables remembered per process; the oldest goes first


@dataclass(frozen=True)
class _Seen:
    policy: str
    completed: frozenset[tuple[str, str, str | None]]  # (requested time, action, completion time)
    newest: str | None  # requested time of the instant that completed last
    pending: frozenset[str]  # requested times of the instants pending then
    quiet: frozenset[str]


_SEEN: dict[str, _Seen] = {}
_LOCK = threading.Lock()


def _key(i: Instant) -> tuple[str, str, str | None]:
    return i.requested_time, i.action, i.completion_time


def still_quiet(table: str, policy: str, instants: list[Instant],
                partitions_of: Callable[[Instant], Iterable[str]]) -> set[str]:
    """The partitions of `table` known quiet now (`instants`: its active timeline): those found quiet at the
    last full look, less the partitions the instants completed since (`partitions_of` reads one's) wrote.
    Empty when this process has not looked yet, or cannot tell."""
    with _LOCK:
        seen = _SEEN.get(table)
    if seen is None or seen.policy != policy:
        return set()
    on_timeline = {i.requested_time for i in instants}
    if (seen.newest is not None and seen.newest not in on_timeline) or not seen.pending <= on_timeline:
        return set()
    quiet = set(seen.quiet)
    for i in instants:
        if i.is_completed and _key(i) not in seen.completed:
            quiet.difference_update(partitions_of(i))
    return quiet


def remember(table: str, policy: str, instants: list[Instant], quiet: Iterable[str]) -> None:
    """What a full look at the timeline `instants` found quiet."""
    done = [i for i in instants if i.is_completed]
    newest = max(done, key=lambda i: (i.completion_time or i.requested_time, i.requested_time), default=None)
    entry = _Seen(policy, frozenset(map(_key, done)), None if newest is None else newest.requested_time,
                  frozenset(i.requested_time for i in instants if not i.is_completed), frozenset(quiet))
    with _LOCK:
        _SEEN.pop(table, None)
        _SEEN[table] = entry
        while len(_SEEN) > MAX_TABLES:
            _SEEN.pop(next(iter(_SEEN)))


def forget(table: str | None = None) -> None:
    """Drops what is remembered of one table (all, with None)."""
    with _LOCK:
        if table is None:
            _SEEN.clear()
        else:
            _SEEN.pop(table, None)
