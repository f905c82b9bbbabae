"""Archival: old instants leave the active timeline for the LSM timeline history
(`pyhudi.table.lsm_timeline`), so listing and loading the timeline stays cheap as a table ages.

Which instants go follows Apache Hudi's TimelineArchiverV2. Nothing happens until the active timeline
holds more than `hoodie.keep.max.commits` completed commits (commit, deltacommit, replacecommit); then
the oldest go until `hoodie.keep.min.commits` remain (both raised, as ArchivalUtils does, when the
cleaner retains more commits than that), never reaching:

* the earliest pending instant (of any action; Hudi looks at writes only), nor the last completed
  commit before it;
* merge-on-read: the last completed compaction (or, with `hoodie.compact.inline.max.delta.commits` delta
  commits after it, the first of those), so the compaction trigger still counts them;
* the first replacecommit or clustering the last clean has not cleaned after (its replaced files are
  still on storage, and only its metadata says they are replaced);
* the data table of a metadata table: the first data commit completed after the metadata table's last
  compaction (blocks of archived instants must be compacted, so readers never need to judge them);
  no metadata-table compaction yet, no archival;
* the last completed clean's `earliestCommitToRetain`, and the earliest savepoint;
* a delta commit that completed after a later compaction was requested, until a compaction requested
  after it completed has compacted its file groups (its log files join that slice by completion time,
  which readers know only from the active timeline).

With the commits go the completed cleans and rollbacks requested before the last of them. Each
archived action is one `HoodieLSMTimelineInstant` row; the rows form a new level-0 history file,
published (file, manifest, `_version_`) before any active file is deleted. Then the requested and
inflight files go, then the completed ones in time order, so a crash leaves either the instant on the
active timeline or (also) in the history, never a completed instant without its archive copy; the
next run first deletes what an interrupted run left of instants already in the history. Then full
history levels are compacted and files no retained manifest names are deleted.

The metadata table's timeline is archived after the data table's with its own rules (Hudi's
HoodieMetadataWriteUtils: keep one commit more than the data table, never past its last compaction,
nor past the data timeline's first commit or earliest pending instant: a data instant still active
keeps its metadata-table instant active). Table versions 8 and 9 only: a version-6 archive
(`.hoodie/archived`) is another format.
"""
from __future__ import annotations

import contextlib
import fcntl
import logging
import os
import posixpath
from dataclasses import dataclass, field
from typing import Iterator, Mapping

from pyhudi.config import options as o
from pyhudi.errors import HudiError
from pyhudi.faults import crash_point
from pyhudi.metadata.layout import completed_partitions
from pyhudi.services import clean as cleaning
from pyhudi.services.instant import Progress, ServiceTable, checked, no_progress
from pyhudi.services.savepoint import savepoint_times
from pyhudi.table import instant_metadata as im
from pyhudi.table import properties
from pyhudi.table.lsm_timeline import ArchivedInstant, LSMTimeline
from pyhudi.table.timeline import (
    COMPLETED,
    COMPLETED_ACTION,
    INFLIGHT,
    REQUESTED,
    WRITE_ACTIONS,
    Instant,
    InstantTimeGenerator,
    Timeline,
    collapse,
    parse_instant_time,
)

log = logging.getLogger(__name__)

ARCHIVED_WITH_COMMITS = ("clean", "rollback")
METADATA_FOLDER = "metadata"  # .hoodie/metadata: the metadata table


class ArchivalError(HudiError, ValueError):
    pass


def archive(path: str, options: Mapping[str, str] | None = None, progress: Progress = no_progress) -> list[Instant]:
    """Archives what Hudi's rules allow of the table at `path`, then of its metadata table; returns
    the data table's archived instants (completed, oldest first)."""
    options = checked(options)
    limits = _limits(options)
    table = ServiceTable.open(path, options)
    if table.timeline.layout != 2:
        raise ArchivalError(f"{path} has timeline layout {table.timeline.layout} (table version 6): its archive "
                            ".hoodie/archived is not the LSM history pyhudi writes; upgrade the table to version 8")
    with _lock(table), table.locked():
        done = _Archiver(table, options, limits).run(progress)
        mdt = metadata_table(table)
        if mdt is not None:
            _Archiver(mdt, options, (limits[0] + 1, limits[1] + 1), data=table).run(progress)
    return done


def archive_if_due(path: str, options: Mapping[str, str] | None = None) -> list[Instant]:
    """`archive` when the data table or its metadata table holds more completed commits than
    `hoodie.keep.max.commits` allows (one listing of each timeline otherwise)."""
    options = checked(options)
    _, keep_max = _limits(options)
    table = ServiceTable.open(path)
    if table.timeline.layout != 2:
        return []
    due = _commit_count(table.timeline) > keep_max
    if not due:
        mdt = metadata_table(table)
        due = mdt is not None and _commit_count(mdt.timeline) > keep_max + 1
    return archive(path, options) if due else []


def archived_instants(path: str, start: str | None = None, end: str | None = None,
                      of_metadata_table: bool = False) -> list[ArchivedInstant]:
    """The archived instants of a table, or of its metadata table (requested time in [start, end]), read
    from the timeline history."""
    table = ServiceTable.open(path)
    if of_metadata_table:
        mdt = metadata_table(table)
        if mdt is None:
            return []
        table = mdt
    return history(table).instants(start, end)


def history(table: ServiceTable, options: Mapping[str, str] | None = None) -> LSMTimeline:
    return LSMTimeline.for_table(table.storage, table.base, table.props, o.COMPRESSION.get(options or {}))


def metadata_table(table: ServiceTable) -> ServiceTable | None:
    """The metadata table of a data table as a ServiceTable; None when it has none."""
    base = posixpath.join(table.base, ".hoodie", METADATA_FOLDER)
    if not properties.exists(table.storage, base):
        return None
    props = properties.load(table.storage, base)
    return ServiceTable(table.storage, base, props, Timeline.for_table(table.storage, base, props))


def _limits(options: Mapping[str, str]) -> tuple[int, int]:
    keep_min, keep_max = o.KEEP_MIN_COMMITS.get(options), o.KEEP_MAX_COMMITS.get(options)
    if keep_max <= keep_min:
        raise ArchivalError(f"Increase {o.KEEP_MAX_COMMITS.key}={keep_max} to be greater than "
                            f"{o.KEEP_MIN_COMMITS.key}={keep_min}.")
    return keep_min, keep_max


def _commit_count(timeline: Timeline) -> int:
    return sum(1 for i in timeline.instants() if i.is_completed and i.action in WRITE_ACTIONS)


@contextlib.contextmanager
def _lock(table: ServiceTable) -> Iterator[None]:
    """One archival of a table at a time on this machine (Hudi takes its table lock): two runs would
    both add manifest N+1."""
    lock_dir = os.path.dirname(InstantTimeGenerator.for_table(table.storage, table.base).lock_path)
    with open(os.path.join(lock_dir, "archival.lock"), "a+") as f:
        fcntl.flock(f, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(f, fcntl.LOCK_UN)


def _family(action: str) -> str:
    """The action an instant's files share whatever their state (compaction -> commit, ...)."""
    return COMPLETED_ACTION.get(action, action)


@dataclass
class _Archiver:
    """One archival of one timeline (a data table's, or with `data` set, that table's metadata table's)."""
    table: ServiceTable
    options: Mapping[str, str]
    limits: tuple[int, int]
    data: ServiceTable | None = None
    files: list[Instant] = field(init=False)
    instants: list[Instant] = field(init=False)

    def __post_init__(self) -> None:
        self.lsm = history(self.table, self.options)
        self.merge_on_read = self.is_mdt or self.table.is_merge_on_read
        self._load()

    @property
    def is_mdt(self) -> bool:
        return self.data is not None

    @property
    def name(self) -> str:
        return "metadata table" if self.is_mdt else "table"

    def _load(self) -> None:
        self.files = self.table.timeline.instant_files()
        self.instants = collapse(self.files)
        self.commits = [i for i in self.instants if i.is_completed and i.action in WRITE_ACTIONS]

    # ---- the run ----------------------------------------------------------------------------
    def run(self, progress: Progress) -> list[Instant]:
        self._finish_interrupted()
        chosen = self.choose()
        if not chosen:
            return []
        rows = [self._row(i) for i in chosen]
        progress(f"archiving {len(chosen)} instants of the {self.name} ({chosen[0].requested_time} .. "
                 f"{chosen[-1].requested_time})")
        name = self.lsm.write(rows)
        crash_point("after_files")
        self._delete_active(chosen)
        written = self.lsm.compact_and_clean(o.TIMELINE_COMPACTION_BATCH_SIZE.get(self.options))
        log.info("archived %d instants of %s into %s%s", len(chosen), self.table.base, name,
                 f"; compacted the history into {', '.join(written)}" if written else "")
        return chosen

    def _finish_interrupted(self) -> None:
        """Deletes the active files of instants a run that died already put in the history."""
        top = self.lsm.max_instant()
        if top is None:
            return
        stale = [i for i in self.instants if i.is_completed and i.requested_time <= top
                 and i.action in (*WRITE_ACTIONS, *ARCHIVED_WITH_COMMITS)]
        if not stale:
            return
        kept = {(r.instant_time, r.action) for r in
                self.lsm.instants(stale[0].requested_time, top, columns=("instantTime", "action"))}
        done = [i for i in stale if (i.requested_time, i.action) in kept]
        if done:
            log.info("finishing an interrupted archival of %s: %d instants are in the history already",
                     self.table.base, len(done))
            self._delete_active(done)
            self._load()

    # ---- choosing ---------------------------------------------------------------------------
    def choose(self) -> list[Instant]:
        """The completed instants to archive, oldest first (TimelineArchiverV2.getInstantsToArchive)."""
        keep_min, keep_max = self._keep()
        if len(self.commits) <= keep_max:
            return []
        limit = min(self.bounds(), default=None, key=lambda b: b[0])
        savepoints = [] if self.is_mdt else savepoint_times(self.table.timeline)
        eligible = [c for c in self.commits
                    if (not savepoints or c.requested_time < savepoints[0])
                    and (limit is None or c.requested_time < limit[0])]
        chosen = eligible[:max(0, len(self.commits) - keep_min)]
        if self.merge_on_read:
            chosen = self._until_straddling(chosen)
        if not chosen:
            if limit is not None:
                log.info("not archiving %s: %s", self.table.base, limit[1])
            return []
        last = chosen[-1].requested_time
        chosen += [i for i in self.instants if i.is_completed and i.action in ARCHIVED_WITH_COMMITS
                   and i.requested_time < last]
        return sorted(chosen, key=lambda i: (i.requested_time, i.action))

    def _keep(self) -> tuple[int, int]:
        """(min, max) commits to keep; ArchivalUtils.getMinAndMaxInstantsToKeep raises both when the
        cleaner's earliest commit to retain needs more commits kept."""
        keep_min, keep_max = self.limits
        if self.is_mdt or not self.commits:
            return keep_min, keep_max
        tl = cleaning._Timeline(self.table)
        policy = cleaning._Policy.of(self.options)
        now = parse_instant_time(self.commits[-1].requested_time)
        earliest = cleaning.earliest_commit_to_retain(tl, policy, self.table.props, now=now)
        if earliest is None:
            return keep_min, keep_max
        needed = sum(1 for c in self.commits if c.requested_time > earliest.requested_time) + 2
        if keep_min < needed:
            log.warning("%s=%d is more aggressive than the cleaner, which retains commits from %s; keeping %d",
                        o.KEEP_MIN_COMMITS.key, keep_min, earliest.requested_time, needed)
            return needed, needed + keep_max - keep_min
        return keep_min, keep_max

    def bounds(self) -> list[tuple[str, str]]:
        """(requested time, why) of each instant archival must stop before ("": before everything)."""
        out: list[tuple[str, str]] = []
        pending = [i for i in self.instants if not i.is_completed]
        if pending:
            p = pending[0]
            before = [c for c in self.commits if c.requested_time < p.requested_time]
            keep = before[-1].requested_time if before else p.requested_time
            out.append((keep, f"{p.action} {p.requested_time} is pending"))
        if self.merge_on_read:
            out += self._compaction_bounds()
        if not self.is_mdt:
            clustering = self._clustering_bound()
            if clustering:
                out.append((clustering, f"replacecommit {clustering} is not cleaned after yet"))
            mdt = self._metadata_bound()
            if mdt:
                out.append(mdt)
            # no bound at the last clean's earliest commit to retain (Hudi 1.0 and 1.1 have none): the
            # cleaner's retention raises keep_min instead (_keep), and a clean whose horizon was archived
            # looks at every partition
        else:
            data = self._data_bound()
            if data:
                out.append(data)
        return out

    def _compaction_bounds(self) -> list[tuple[str, str]]:
        out = []
        if self.is_mdt:
            max_deltas = o.METADATA_COMPACT_AFTER.get(self.options)
            triggered = True
        else:
            max_deltas = o.COMPACT_MAX_DELTA_COMMITS.get(self.options)
            triggered = o.COMPACT_TRIGGER.get(self.options) in ("NUM_COMMITS", "NUM_AND_TIME")
        compactions = [i for i in self.instants if i.action == "commit" and i.is_completed]
        deltas = [i for i in self.instants if i.action == "deltacommit"]
        if triggered:  # CompactionUtils.getEarliestInstantToRetainForCompaction
            anchor = compactions[-1] if compactions else (deltas[0] if deltas else None)
            after = [d for d in deltas if d.requested_time > compactions[-1].requested_time] if compactions else deltas
            if anchor is not None:
                keep = (anchor if len(after) < max_deltas else after[len(after) - max_deltas]).requested_time
                out.append((keep, f"the compaction trigger counts delta commits from {keep}"))
        return out

    def _until_straddling(self, chosen: list[Instant]) -> list[Instant]:
        """`chosen` up to the first delta commit that completed after a later compaction was requested
        while some file group it wrote logs to has not been compacted since: its log files belong to
        the compaction's slice by completion time, which readers take from the active timeline only."""
        planned = [i.requested_time for i in self.instants if i.action in ("commit", "compaction")]
        compacted: dict[str, set[tuple[str, str]]] = {}  # compaction -> file groups it compacted
        for n, d in enumerate(chosen):
            if d.action != "deltacommit" or not d.completion_time or \
                    not any(d.requested_time < c < d.completion_time for c in planned):
                continue
            groups = self._file_groups(d)
            later = [c for c in self.instants if c.action == "commit" and c.is_completed
                     and c.requested_time > d.completion_time]
            covered = set().union(*(compacted.setdefault(c.requested_time, self._file_groups(c)) for c in later))
            if not groups <= covered:
                log.info("not archiving %s from %s: deltacommit %s completed after a later compaction was requested "
                         "and its log files are not compacted yet", self.table.base, d.requested_time, d.requested_time)
                return chosen[:n]
        return chosen

    def _file_groups(self, inst: Instant) -> set[tuple[str, str]]:
        meta = im.decode(self.table.timeline.read(inst), layout_version=self.table.timeline.layout)
        return {(p, s.get("fileId") or "") for p, s in im.write_stats(meta) if s.get("fileId")}

    def _clean_plan(self, clean: Instant) -> dict:
        try:
            data = self.table.timeline.read(Instant(clean.requested_time, "clean", REQUESTED))
        except FileNotFoundError:
            return {}
        return im.decode(data, im.CLEANER_PLAN) if data else {}

    def _clustering_bound(self) -> str | None:
        """ClusteringUtils.getEarliestInstantToRetainForClustering."""
        replaces = [i for i in self.instants if i.action in ("replacecommit", "clustering")]
        if not replaces:
            return None
        cleans = [i for i in self.instants if i.action == "clean" and i.is_completed]
        if not cleans:
            return replaces[0].requested_time
        plan = self._clean_plan(cleans[-1])
        retain = ((plan.get("earliestInstantToRetain") or {}).get("timestamp") or "").strip()
        lower = self._replaced_savepoint(plan, retain) or retain or cleans[-1].requested_time
        first = next((i for i in replaces if i.requested_time >= lower), None)
        return first.requested_time if first else None

    def _replaced_savepoint(self, plan: Mapping, retain: str) -> str | None:
        """ClusteringUtils.getEarliestReplacedSavepointInClean: a savepoint the clean had to keep
        replaced files for still holds replacecommits back."""
        if o.CLEANER_POLICY.get(self.options) == cleaning.KEEP_LATEST_FILE_VERSIONS or not retain:
            return None
        saved = sorted(t for t in ((plan.get("extraMetadata") or {}).get(cleaning.SAVEPOINTED_TIMESTAMPS) or "")
                       .split(",") if t)
        if not saved or retain <= saved[0]:
            return None
        replaced = [i for i in self.instants if i.action == "replacecommit" and i.is_completed
                    and saved[0] <= i.requested_time <= retain]
        return saved[0] if replaced else None

    def _metadata_bound(self) -> tuple[str, str] | None:
        """The data table's bound from its metadata table: the first commit completed after the
        metadata table's last compaction; before everything while it has no compaction yet."""
        mdt = metadata_table(self.table) if completed_partitions(self.table.props) else None
        if mdt is None:
            return None
        compactions = [i.requested_time for i in mdt.timeline.instants() if i.is_completed and i.action == "commit"]
        if not compactions:
            return "", "its metadata table has no compaction yet"
        last = compactions[-1]
        after = [c for c in self.commits if c.completion_time and c.completion_time > last and c.requested_time != last]
        if not after:
            return None
        return (after[0].requested_time,
                f"commit {after[0].requested_time} completed after the metadata table's last compaction {last}")

    def _data_bound(self) -> tuple[str, str] | None:
        """TimelineUtils.getEarliestInstantForMetadataArchival over the data table's active timeline."""
        assert self.data is not None  # asked only by the archiver of a metadata table, which has its data table
        data = collapse(self.data.timeline.instant_files())
        writes = [i for i in data if _family(i.action) in WRITE_ACTIONS]
        pending = [i for i in data if not i.is_completed]
        found = [(writes[0].requested_time, f"data commit {writes[0].requested_time} is active")] if writes else []
        if pending:
            found.append((pending[0].requested_time, f"data {pending[0].action} {pending[0].requested_time} is "
                                                     "pending"))
        return min(found, default=None)

    # ---- rows and deletion ------------------------------------------------------------------
    def _group(self, inst: Instant) -> dict[str, Instant]:
        """state -> file of one action (the same requested time and action family)."""
        return {f.state: f for f in self.files
                if f.requested_time == inst.requested_time and _family(f.action) == _family(inst.action)}

    def _read(self, inst: Instant | None) -> bytes | None:
        if inst is None:
            return None
        data = self.table.timeline.read(inst)
        return data or None

    def _row(self, inst: Instant) -> ArchivedInstant:
        """MetadataConversionUtils.createLSMTimelineInstant of one archived action."""
        group = self._group(inst)
        done = group[COMPLETED]
        pending = group.get(REQUESTED) or group.get(INFLIGHT)
        plan = None
        if pending is not None:
            if pending.action in ("clean", "compaction", "logcompaction"):
                plan = self._read(pending)
            elif pending.action in ("replacecommit", "clustering"):
                plan = self._read(group.get(INFLIGHT)) or self._read(group.get(REQUESTED))
        return ArchivedInstant(done.requested_time, done.completion_time, done.action, self._read(done), plan)

    def _delete_active(self, chosen: list[Instant]) -> None:
        """Markers, then requested and inflight files, then completed files in time order
        (TimelineArchiverV2.deleteArchivedActions)."""
        groups = [self._group(i) for i in chosen]
        for inst in chosen:
            self.table.storage.delete(posixpath.join(self.table.base, ".hoodie", ".temp", inst.requested_time))
        for state in (REQUESTED, INFLIGHT, COMPLETED):
            for g in groups:
                if state in g:
                    self.table.storage.delete(posixpath.join(self.table.timeline.dir,
                                                             g[state].file_name(self.table.timeline.layout)))
