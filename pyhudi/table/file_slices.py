"""Which base and log files form which file slices, given which instants are committed (timeline
layout 2), and which files of a table's storage are committed at all.

A file counts when its instant is committed. A committed base file opens the slice of its
instant, a pending compaction opens an empty one, and a committed log file joins the slice with
the greatest base instant at or before the log's completion time (its own instant when there is
none): a log written while a compaction was being planned belongs to the compacted slice.
Change-data (CDC) log files join their slice by the same rule but apart from its logs: only CDC
queries read them (as in Apache Hudi), and they go when the slice is cleaned.
"""
from __future__ import annotations

import bisect
import functools
import posixpath
from dataclasses import dataclass, field
from typing import Callable, Container, Iterable, Mapping, Sequence

from pyhudi.storage import Storage
from pyhudi.table import file_names, properties
from pyhudi.table.timeline import Instant, Timeline


@dataclass
class FileSlice:
    file_id: str
    base_instant: str
    base: str | None = None
    logs: list[str] = field(default_factory=list)
    partition: str = ""             # relative partition path ("" for a non-partitioned table)
    base_size: int | None = None    # bytes of the base file, when the listing gave them
    cdc_logs: list[str] = field(default_factory=list)  # change data, never merged into the slice's records

    def data_files(self) -> list[str]:
        """The files its records are read from: the base file and the logs."""
        return ([self.base] if self.base else []) + list(self.logs)

    def files(self) -> list[str]:
        """Every file of the slice, CDC logs included."""
        return self.data_files() + list(self.cdc_logs)


def file_groups(slices: Iterable[FileSlice], partitions: Container[str] | None = None) -> dict[str, list[str]]:
    """partition -> ids of the file groups of `slices` in `partitions` (None: every partition)."""
    out: dict[str, list[str]] = {}
    for s in slices:
        if partitions is None or s.partition in partitions:
            out.setdefault(s.partition, []).append(s.file_id)
    return out


COMMIT_LIKE = ("commit", "deltacommit", "replacecommit")  # compaction and clustering complete as these


@functools.lru_cache(maxsize=1 << 17)  # a writer parses the same partitions' names at every commit
def file_id_and_instant(name: str) -> tuple[str, str, bool] | None:
    """(file id, instant, is log) of a base or log file name; None for anything else."""
    if file_names.is_log(name):
        log = file_names.parse_log(name)
        return log.file_id, log.instant, True
    if file_names.is_base(name):
        base = file_names.parse_base(name)
        return base.file_id, base.instant, False
    return None


def committed_rule(instants: Sequence[Instant]) -> Callable[[str], bool]:
    """Whether files written at an instant are committed, on a timeline holding `instants`:
    the instant is completed, or absent and older than the first completed write (archived, as
    Hudi's file-system view judges with its timeline of completed commits)."""
    completed = {i.requested_time for i in instants if i.is_completed}
    pending = {i.requested_time for i in instants if not i.is_completed}
    first = min((i.requested_time for i in instants if i.is_completed and i.action in COMMIT_LIKE), default=None)

    def committed(instant: str) -> bool:
        if instant in completed:
            return True
        if instant in pending:
            return False
        return first is not None and instant < first

    return committed


def _committed_files(names: Iterable[str], committed: Callable[[str], bool], base_format: str | None):
    """(base files by file id and instant, [(sort key, name, instant)] of logs by file id, CDC logs
    sorting after the others); with a `base_format`, base files of another format are not the
    table's (Hudi's view keeps one)."""
    bases: dict[str, dict[str, str | None]] = {}
    logs: dict[str, list[tuple[tuple, str, str]]] = {}
    for name in names:
        parsed = file_id_and_instant(name)
        if parsed is None or not committed(parsed[1]):
            continue
        fid, instant, is_log = parsed
        if is_log:
            log = file_names.parse_log(name)
            logs.setdefault(fid, []).append(((bool(log.cdc_suffix), *log.sort_key()), name, instant))
        elif base_format is None or file_names.parse_base(name).ext == base_format:
            slot = bases.setdefault(fid, {})
            if (kept := slot.get(instant)) is None or name > kept:
                slot[instant] = name
    return bases, logs


def build_slices(names: Iterable[str], committed: Callable[[str], bool],
                 completion: Callable[[str], str | None],
                 pending_compactions: Mapping[str, str] | None = None,
                 base_format: str | None = None) -> dict[str, list[FileSlice]]:
    """File slices per file group, oldest first (module comment). `completion(instant)` is the
    completion time of a committed instant (None when unknown, e.g. archived);
    `pending_compactions` maps file ids to the instant of a compaction planned on them;
    `base_format` the table's base file extension (None: any)."""
    bases, logs = _committed_files(names, committed, base_format)
    for fid, instant in (pending_compactions or {}).items():
        if fid in bases or fid in logs:
            bases.setdefault(fid, {}).setdefault(instant, None)
    out: dict[str, list[FileSlice]] = {}
    for fid in sorted(set(bases) | set(logs)):
        slots = {t: FileSlice(fid, t, b) for t, b in bases.get(fid, {}).items()}
        for (is_cdc, *_), name, instant in sorted(logs.get(fid, [])):
            keys = sorted(slots)
            i = bisect.bisect_right(keys, completion(instant) or instant) - 1
            key = keys[i] if i >= 0 else instant
            if is_cdc and key not in slots:  # change data of no slice's base file: it opens none
                continue
            target = slots.setdefault(key, FileSlice(fid, key))
            (target.cdc_logs if is_cdc else target.logs).append(name)
        if slots:
            out[fid] = [slots[t] for t in sorted(slots)]
    return out


def listing_from_storage(storage: Storage, base_path: str, timeline: Timeline | None = None,
                         props: dict[str, str] | None = None,
                         listed: Callable[[str], None] = lambda partition: None
                         ) -> dict[str, list[tuple[str, int, None]]]:
    """partition -> [(file name, size, None)] for the base and log files of committed instants,
    as Hudi lists a table to initialise its metadata table (partitions are the directories
    holding a `.hoodie_partition_metadata`); `listed(partition)` is told of each one listed."""
    if timeline is None:
        timeline = Timeline.for_table(storage, base_path, props or properties.load(storage, base_path))
    ok = committed_rule(timeline.instants())
    out: dict[str, list[tuple[str, int, None]]] = {}

    def walk(rel: str) -> None:
        entries = storage.list(posixpath.join(base_path, rel) if rel else base_path)
        if any(e.name == file_names.PARTITION_METADATA and not e.is_dir for e in entries):
            parsed = ((e, None if e.is_dir else file_id_and_instant(e.name)) for e in entries)
            out[rel] = sorted((e.name, e.size, None) for e, p in parsed if p and ok(p[1]))
            listed(rel)
            return
        for e in entries:
            if e.is_dir and not e.name.startswith("."):
                walk(posixpath.join(rel, e.name) if rel else e.name)

    walk("")
    return out
