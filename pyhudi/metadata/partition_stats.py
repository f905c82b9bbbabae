"""The `partition_stats` partition: per data partition and column, the range over the files of
the partition's latest file slices (tight bounds), recomputed whenever a write touches it.

Recomputing needs the column stats of every live file of the partition (1,000 files in a partition of a
100,000-file table). A base file's stats never change once its write committed (its name is its own), so a
long-running writer keeps those it read or wrote (`KnownStats`) and reads from the metadata table only the
files it has not seen: a commit costs its own files, not the partition's."""
from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Mapping

from pyhudi.metadata.keys import COLUMN_STATS, column_stats_prefix, hash_id128
from pyhudi.metadata.merge import aggregate_stats
from pyhudi.metadata.reader import read_files, read_partition
from pyhudi.metadata.records import ColumnStats, MetadataRecord, partition_stats_record, partition_stats_tombstone
from pyhudi.metadata.state import DataTimeline, MdtState
from pyhudi.table.file_names import is_base
from pyhudi.table.file_slices import build_slices

NEWEST = "9" * 17  # completion time standing in for the instant being committed
MAX_KNOWN_FILES = 300_000  # files whose column stats a process keeps (a few hundred MB at most)


class KnownStats:
    """Column stats of base files (file name -> column -> stats) per metadata table and data partition, kept
    across commits in this process; the partitions least recently used dropped past `max_files` files. Only
    stats found or written are kept: a column a file had none for is asked again (an index built since may
    hold it). Stats are shared: callers must not change them."""

    def __init__(self, max_files: int = MAX_KNOWN_FILES):
        self.max_files = max_files
        self._parts: OrderedDict[tuple, dict[str, dict[str, ColumnStats]]] = OrderedDict()
        self._lock = threading.Lock()

    def partition(self, state: MdtState, partition: str) -> dict[str, dict[str, ColumnStats]]:
        """What is known of a partition's files (a copy)."""
        with self._lock:
            return dict(self._parts.get(self._key(state, partition)) or {})

    def keep(self, state: MdtState, partition: str, per_file: Mapping[str, dict[str, ColumnStats]]) -> None:
        """The stats of a partition's live files now: base files' kept, files no longer live forgotten
        (replaced, cleaned or rolled back)."""
        key = self._key(state, partition)
        with self._lock:
            self._parts.pop(key, None)
            self._parts[key] = {n: stats for n, stats in per_file.items() if stats and is_base(n)}
            held = sum(map(len, self._parts.values()))
            while len(self._parts) > 1 and held > self.max_files:
                held -= len(self._parts.popitem(last=False)[1])

    @staticmethod
    def _key(state: MdtState, partition: str) -> tuple:
        return state.storage.uri, state.mdt_path, partition

    def forget(self, mdt_path: str | None = None) -> None:
        """Drops what is known of one metadata table's files (of all, with None)."""
        with self._lock:
            for key in [k for k in self._parts if mdt_path is None or k[1] == mdt_path]:
                del self._parts[key]


KNOWN = KnownStats()


def latest_slice_files(files: Mapping[str, tuple], data: DataTimeline, replaced: set[str],
                       current_instant: str | None = None) -> list[str]:
    """The files of the latest slices of the file groups not `replaced`, counting the instant
    being committed (`current_instant`) as committed last."""
    def committed(t):
        return t == current_instant or data.is_committed(t)

    def completion(t):
        return NEWEST if t == current_instant else data.completion(t)

    slices = build_slices(files, committed, completion)
    return [n for fid, s in slices.items() if fid not in replaced for n in s[-1].data_files()]


def partition_stats(partition: str, cols: list[str] | None,
                    per_file: Mapping[str, Mapping[str, ColumnStats]]) -> list[MetadataRecord]:
    """`per_file`: the stats of every file of the partition's latest slices. A column some file
    has no stats for (a log file, a file written before the column existed) gets no record:
    bounds over the other files could rule out rows that file holds (`for_commit` deletes the one an
    earlier commit left)."""
    out = []
    for c in cols or []:
        ranges = [r for by_col in per_file.values() if (r := by_col.get(c)) is not None]
        if not ranges or len(ranges) < len(per_file):  # some file has no stats for c
            continue
        out.append(partition_stats_record(partition, aggregate_stats(ranges, partition, c, tight=True)))
    return out


def _stored_stats(state: MdtState, partition: str, cols: list[str], names: list[str]) -> list[ColumnStats]:
    """The live `column_stats` of the given files of a partition."""
    prefixes = [column_stats_prefix(c, partition) for c in cols]
    wanted = [p + file_hash for file_hash in map(hash_id128, names) for p in prefixes]  # column_stats_key
    found = read_partition(state, COLUMN_STATS, keys=wanted) if wanted else {}
    return [r.stats for r in found.values() if r.is_present and r.stats is not None]


def for_commit(state: MdtState, partitions: list[str], cols: list[str], instant: str, added, deleted,
               replaced, new_stats) -> list[MetadataRecord]:
    """The partition statistics of the partitions a data instant wrote: its own files' stats
    (`new_stats`) and those the MDT holds for the other files of the latest slices."""
    current = read_files(state, partitions)
    replaced_before = state.data.replaced_file_groups()
    out = []
    for p in partitions:
        names = {n: (s, None, None) for n, s in current.get(p, {}).items()}
        names.update({n: (s, None, None) for n, s in added.get(p, {}).items()})
        for n in deleted.get(p, ()):
            names.pop(n, None)
        groups = replaced_before.get(p, set()) | replaced.get(p, set())
        live = latest_slice_files(names, state.data, groups, current_instant=instant)
        out += replacing(p, cols, _live_stats(state, p, cols, live, new_stats.get(p, {})))
    return out


def _live_stats(state: MdtState, partition: str, cols: list[str], live: list[str],
                mine: Mapping[str, Mapping[str, ColumnStats]]) -> dict[str, dict[str, ColumnStats]]:
    """file -> column -> stats of the `live` files: the instant's own (`mine`), those known in this process,
    the rest read from the metadata table."""
    known = KNOWN.partition(state, partition)
    per_file: dict[str, dict[str, ColumnStats]] = {n: dict(mine.get(n) or known.get(n) or {}) for n in live}
    unread = [n for n in live if n not in mine and any(c not in per_file[n] for c in cols)]
    for s in _stored_stats(state, partition, cols, unread):
        if s.file_name in per_file and s.column_name is not None:
            per_file[s.file_name][s.column_name] = s
    KNOWN.keep(state, partition, per_file)
    return per_file


def replacing(partition: str, cols: list[str] | None,
              per_file: Mapping[str, Mapping[str, ColumnStats]]) -> list[MetadataRecord]:
    """`partition_stats`, and a tombstone for each column it gives no record: a column some live file has no
    stats for loses the record an earlier commit left (its range may exclude that file's rows: a log file a
    catch-up took from commit metadata has no stats)."""
    ranged = partition_stats(partition, cols, per_file)
    kept = {r.stats.column_name for r in ranged if r.stats is not None}
    return ranged + [partition_stats_tombstone(partition, c) for c in cols or () if c not in kept]
