"""Cleaning: deletes the file slices no reader needs any more, by Apache Hudi's policies (its
CleanPlanner), as a `clean` instant.

Timeline: `<t>.clean.requested` (HoodieCleanerPlan: the absolute path of every file to delete, per
partition) -> `<t>.clean.inflight` (empty, as Hudi 1.x writes it) -> the files go -> the metadata table
commits at `t` with the deleted files -> `<t>_<c>.clean` (HoodieCleanMetadata). A clean that died is
finished from its plan by the next run; a planned file already gone counts as deleted.

What goes, per file group (a file slice is a base file and its log files; only files of completed
writes count, so a pending or failed write's files are never the cleaner's):
* KEEP_LATEST_COMMITS, KEEP_LATEST_BY_HOURS: slices whose base instant is older than the earliest commit
  to retain (the N-th last completed commit, no later than the oldest pending write; or the first
  commit of the last N hours), except the newest slice and the newest slice older than that commit
  (a query started before it may still read it);
* KEEP_LATEST_FILE_VERSIONS: all but the newest N slices;
* file groups replaced by a replacecommit (insert_overwrite, clustering) older than the earliest
  commit to retain (any replacecommit, for KEEP_LATEST_FILE_VERSIONS) go whole.
Never: the slices a pending compaction needs (its planned slice and later ones), files a pending
clustering plan reads, savepointed files. A partition whose every file goes (delete_partition replaced all
its file groups) goes too: `partitionsToBeDeleted`, its directory deleted, the metadata table's partition
list dropping it - unless a write is pending.

Which partitions are looked at: all (KEEP_LATEST_FILE_VERSIONS, hoodie.cleaner.incremental.mode=false,
the first clean); else only those written by the commits between the last clean's earliest commit to
retain and this one's, read from the timeline before any partition is listed. Files come from the
metadata table's `files` partition when the table has one, else from a listing of those partitions.
A process that looked at all partitions before skips those it found quiet then and no write touched since
(`quiet_partitions`): the plan is the same.
"""
from __future__ import annotations

import datetime as dt
import functools
import logging
import posixpath
import time
from dataclasses import dataclass, field
from typing import AbstractSet, Any, Mapping

from pyhudi.config import options as o
from pyhudi.faults import crash_point
from pyhudi.metadata import reader as mdt_reader
from pyhudi.metadata.layout import csv
from pyhudi.services import quiet_partitions
from pyhudi.services.instant import Progress, ServiceTable, checked, commit, no_progress
from pyhudi.table import instant_metadata as im
from pyhudi.table import properties
from pyhudi.table.file_slices import FileSlice, build_slices, committed_rule, file_id_and_instant, listing_from_storage
from pyhudi.table.pending_plans import clustering_slices
from pyhudi.table.timeline import COMPLETED, REQUESTED, WRITE_ACTIONS, Instant, format_instant_time

log = logging.getLogger(__name__)

KEEP_LATEST_COMMITS, KEEP_LATEST_FILE_VERSIONS, KEEP_LATEST_BY_HOURS = (
    "KEEP_LATEST_COMMITS", "KEEP_LATEST_FILE_VERSIONS", "KEEP_LATEST_BY_HOURS")
PLAN_VERSION = 2  # CleanPlanner.LATEST_CLEAN_PLAN_VERSION
METADATA_VERSION = 2  # CleanerUtils.LATEST_CLEAN_METADATA_VERSION
SAVEPOINTED_TIMESTAMPS = "savepointed_timestamps"  # CleanerUtils.SAVEPOINTED_TIMESTAMPS
TIMELINE_TIMEZONE = "hoodie.table.timeline.timezone"
# Hudi's commits-and-compaction timeline: a pending one of these holds the earliest commit to retain back
PENDING_WRITES = ("commit", "deltacommit", "replacecommit", "compaction", "logcompaction", "clustering")


# ---- the timeline as the cleaner reads it ------------------------------------------------------

@dataclass
class _Timeline:
    """One listing of the timeline (a savepoint is an instant beside the commit whose time it carries)."""
    table: ServiceTable
    instants: list[Instant] = field(init=False)

    def __post_init__(self) -> None:
        self.instants = self.table.timeline.instants()
        self.commits = [i for i in self.instants if i.is_completed and i.action in WRITE_ACTIONS]
        self.completion = {i.requested_time: i.completion_time for i in self.commits}
        self.pending = [i for i in self.instants if not i.is_completed]

    def read(self, inst: Instant, kind: str | None = None) -> dict:
        return im.decode(self.table.timeline.read(inst), kind, layout_version=self.table.timeline.layout)

    def pending_cleans(self) -> list[Instant]:
        return [i for i in self.pending if i.action == "clean"]

    @functools.cached_property
    def cleans(self) -> list[Instant]:
        """The completed cleans, oldest first."""
        return [i for i in self.instants if i.is_completed and i.action == "clean"]

    @functools.cached_property
    def last_clean(self) -> dict | None:
        """HoodieCleanMetadata of the latest completed clean."""
        return self.read(self.cleans[-1], im.CLEAN) if self.cleans else None

    def last_completed_commit(self) -> str:
        """Requested time of the commit that completed last (Hudi's lastCompletedCommitTimestamp)."""
        last = max(self.commits, key=lambda i: (i.completion_time or i.requested_time, i.requested_time), default=None)
        return last.requested_time if last else ""

    def savepoints(self) -> dict[str, dict]:
        """Requested time -> HoodieSavepointMetadata of the completed savepoints."""
        return {i.requested_time: self.read(i, im.SAVEPOINT) for i in self.instants
                if i.is_completed and i.action == "savepoint"}

    def plan(self, inst: Instant) -> dict:
        return self.read(Instant(inst.requested_time, inst.action, REQUESTED))

    def clustering_files(self) -> dict[str, set[str]]:
        """partition -> names of the files pending clustering plans read."""
        out: dict[str, set[str]] = {}
        for i in self.pending:
            if i.action in ("clustering", "replacecommit"):
                for s in clustering_slices(self.plan(i)):
                    names = [s.get("dataFilePath"), *(s.get("deltaFilePaths") or ())]
                    out.setdefault(s.get("partitionPath") or "", set()).update(
                        posixpath.basename(n) for n in names if n)
        return out

    def replaced(self) -> dict[str, dict[str, str]]:
        """partition -> replaced file id -> requested time of the (latest) replacecommit replacing it."""
        out: dict[str, dict[str, str]] = {}
        for i in self.commits:
            if i.action == "replacecommit":
                for p, ids in im.replaced_file_ids(self.read(i)).items():
                    out.setdefault(p, {}).update(dict.fromkeys(ids, i.requested_time))
        return out

    def partitions_written(self, since: str, until: str) -> set[str]:
        """Partitions of the commits requested in [since, until) (CleanPlanner.getPartitionsForInstants)."""
        return {p for i in self.commits if since <= i.requested_time < until for p in self.partitions_of(i)}

    def partitions_of(self, inst: Instant) -> set[str]:
        """The partitions a completed write wrote or replaced file groups in (none for other actions)."""
        if inst.action not in WRITE_ACTIONS:
            return set()
        meta = self.read(inst)
        return set(meta.get("partitionToWriteStats") or {}) | set(im.replaced_file_ids(meta))


# ---- planning --------------------------------------------------------------------------------------

@dataclass
class _Policy:
    name: str
    commits_retained: int
    versions_retained: int
    hours_retained: int
    incremental: bool

    @classmethod
    def of(cls, options: Mapping[str, str]) -> "_Policy":
        return cls(o.CLEANER_POLICY.get(options), o.CLEANER_COMMITS_RETAINED.get(options),
                   o.CLEANER_FILE_VERSIONS_RETAINED.get(options), o.CLEANER_HOURS_RETAINED.get(options),
                   o.CLEANER_INCREMENTAL_MODE.get(options))


def is_due(tl: _Timeline, options: Mapping[str, str]) -> bool:
    """Hudi's trigger (hoodie.clean.trigger.strategy NUM_COMMITS): at least hoodie.clean.max.commits
    commits completed since the last completed commit the previous clean saw."""
    last = tl.last_clean
    since = (last or {}).get("lastCompletedCommitTimestamp") or ""
    done = sum(1 for c in tl.commits if last is None or c.requested_time > since)
    return done >= o.CLEAN_MAX_COMMITS.get(options)


def earliest_commit_to_retain(tl: _Timeline, policy: _Policy, props: Mapping[str, str],
                              now: dt.datetime | None = None) -> Instant | None:
    """The oldest completed commit whose files every reader may still need (CleanerUtils
    .getEarliestCommitToRetain); None for KEEP_LATEST_FILE_VERSIONS and while there are too few commits."""
    commits = tl.commits
    if policy.name == KEEP_LATEST_COMMITS:
        if len(commits) <= policy.commits_retained:
            return None
        nth = commits[len(commits) - policy.commits_retained]
        pending = [i.requested_time for i in tl.pending if i.action in PENDING_WRITES]
        if pending and nth.requested_time > min(pending):  # never past a write still running
            before = [c for c in commits if c.requested_time < min(pending)]
            return before[-1] if before else None
        return nth
    if policy.name == KEEP_LATEST_BY_HOURS:
        cutoff = format_instant_time((now or _now(props)) - dt.timedelta(hours=policy.hours_retained))
        return next((c for c in commits if c.requested_time >= cutoff), None)
    return None


def _now(props: Mapping[str, str]) -> dt.datetime:
    """Now, in the time zone the table's instant times are in (hoodie.table.timeline.timezone)."""
    utc = props.get(TIMELINE_TIMEZONE, "LOCAL").upper() == "UTC"
    return dt.datetime.now(dt.timezone.utc).replace(tzinfo=None) if utc else dt.datetime.now()


def _partitions_to_clean(tl: _Timeline, policy: _Policy, earliest: Instant | None, partitioned: bool,
                         savepoint_times: list[str]) -> set[str] | None:
    """The partitions to look at; None: all (CleanPlanner.getPartitionPathsToClean)."""
    if policy.name == KEEP_LATEST_FILE_VERSIONS:
        return None
    if earliest is None:
        return set()
    last = tl.last_clean if policy.incremental else None
    since = (last or {}).get("earliestCommitToRetain") or ""
    first = min((i.requested_time for i in tl.instants if i.action in PENDING_WRITES), default="")
    if not since.strip() or since < first:  # no earlier horizon on the active timeline: look everywhere
        return None
    assert last is not None  # without a last clean, `since` is "" and the look is everywhere (above)
    before = [t for t in ((last.get("extraMetadata") or {}).get(SAVEPOINTED_TIMESTAMPS) or "").split(",") if t]
    if partitioned and set(before) - set(savepoint_times):  # a savepoint went: its files may go now
        return None
    return tl.partitions_written(since, earliest.requested_time)


def _listing(table: ServiceTable, tl: _Timeline, partitions: set[str] | None,
             quiet: AbstractSet[str] = frozenset()) -> dict[str, list[str]]:
    """partition -> file names, from the metadata table when it has a files partition, else storage;
    `partitions` None: all but the `quiet` ones."""
    mdt = table.metadata_writer()
    if mdt is not None:
        state = mdt.state()
        if partitions is None:
            return {p: list(files) for p, files in mdt_reader.files_listing(state, quiet).items()}
        return {p: list(files) for p, files in mdt_reader.read_files(state, sorted(partitions)).items()}
    if partitions is None:
        return {p: [n for n, _, _ in files]
                for p, files in listing_from_storage(table.storage, table.base, table.timeline, table.props).items()
                if p not in quiet}
    out = {}
    for p in sorted(partitions):
        entries = table.storage.list(posixpath.join(table.base, p) if p else table.base)
        out[p] = sorted(e.name for e in entries if not e.is_dir and file_id_and_instant(e.name))
    return out


@dataclass
class _Planner:
    """What is kept and what goes, partition by partition (CleanPlanner.getDeletePaths)."""
    tl: _Timeline
    policy: _Policy
    earliest: Instant | None
    base_format: str | None
    savepointed: set[str]
    clustering: dict[str, set[str]]
    replaced: dict[str, dict[str, str]]
    compaction_ops: dict[tuple[str, str], str] = field(default_factory=dict)  # (partition, file id) -> base
    compaction_slices: dict[str, dict[str, str]] = field(default_factory=dict)  # partition -> file id -> instant
    quiet: set[str] = field(default_factory=set)  # partitions found with one file per file group

    def __post_init__(self) -> None:
        pending = {i.requested_time for i in self.tl.pending if i.action == "compaction"}
        for i in self.tl.pending:
            if i.action not in ("compaction", "logcompaction"):
                continue
            for op in self.tl.plan(i).get("operations") or ():
                key = (op.get("partitionPath") or "", op["fileId"])
                self.compaction_ops[key] = op.get("baseInstantTime") or ""
                if i.requested_time in pending:
                    self.compaction_slices.setdefault(key[0], {})[key[1]] = i.requested_time
        self.committed = committed_rule(self.tl.instants)

    def files_to_delete(self, partition: str, names: list[str]) -> list[str]:
        if self._one_slice_each(partition, names):
            self.quiet.add(partition)
            return []
        slices = build_slices(names, self.committed, self.tl.completion.get,
                              self.compaction_slices.get(partition, {}), self.base_format)
        replaced = self.replaced.get(partition, {})
        out: list[str] = []
        for fid, group in slices.items():
            if fid in replaced:
                if self.earliest is None or replaced[fid] < self.earliest.requested_time:
                    out += [n for s in group if not self._saved(s) for n in s.files()]
            elif self.policy.name == KEEP_LATEST_FILE_VERSIONS:
                out += self._keeping_versions(partition, fid, group)
            else:
                out += self._keeping_commits(partition, group)
        keep = self.clustering.get(partition, set())
        return [n for n in out if n not in keep]

    def _one_slice_each(self, partition: str, names: list[str]) -> bool:
        """Whether retention by commits (or hours) has nothing to delete in the partition, known without building
        its file slices: it only deletes older slices of a file group, and no group holds more than one file
        (none is replaced either). Most partitions of a big table, on every commit."""
        if self.policy.name == KEEP_LATEST_FILE_VERSIONS or self.replaced.get(partition):
            return False
        ids = [n.lstrip(".").split("_", 1)[0] for n in names]
        return len(set(ids)) == len(ids)

    def _saved(self, s: FileSlice) -> bool:
        return any(n in self.savepointed for n in s.files())

    def _needed_for_compaction(self, partition: str, s: FileSlice) -> bool:
        base = self.compaction_ops.get((partition, s.file_id))
        return base is not None and s.base_instant >= base

    def _keeping_versions(self, partition: str, fid: str, group: list[FileSlice]) -> list[str]:
        keep = self.policy.versions_retained - (1 if (partition, fid) in self.compaction_ops else 0)
        older = [s for s in reversed(group) if not self._needed_for_compaction(partition, s)][max(keep, 0):]
        return [n for s in older if not self._saved(s) for n in s.files()]

    def _keeping_commits(self, partition: str, group: list[FileSlice]) -> list[str]:
        if self.earliest is None or not group:
            return []
        horizon = self.earliest.requested_time
        newest_first = list(reversed(group))
        spared = {newest_first[0].base_instant,
                  next((s.base_instant for s in newest_first if s.base_instant < horizon), None)}
        return [n for s in newest_first
                if s.base_instant not in spared and s.base_instant < horizon and not self._saved(s)
                and not self._needed_for_compaction(partition, s) for n in s.files()]


def plan(table: ServiceTable, options: Mapping[str, str], progress: Progress = no_progress) -> dict | None:
    """The HoodieCleanerPlan of a clean now (trigger aside), or None when it would delete nothing (and no empty
    clean is due: hoodie.write.empty.clean.interval.hours)."""
    tl = _Timeline(table)
    policy = _Policy.of(options)
    earliest = earliest_commit_to_retain(tl, policy, table.props)
    savepoints = tl.savepoints()
    partitioned = bool(csv(table.props.get(properties.PARTITION_FIELDS)))
    partitions = _partitions_to_clean(tl, policy, earliest, partitioned, sorted(savepoints))
    extra = {SAVEPOINTED_TIMESTAMPS: ",".join(sorted(savepoints))} if partitioned and savepoints else {}
    if partitions is not None and not partitions:
        return _empty_plan(table, tl, policy, earliest, options, extra)
    by_commits = policy.name != KEEP_LATEST_FILE_VERSIONS
    quiet = quiet_partitions.still_quiet(table.uri, policy.name, tl.instants, tl.partitions_of) \
        if partitions is None and by_commits else set()
    listing = _listing(table, tl, partitions, quiet)
    progress(f"planning a clean of {len(listing)} partitions ({policy.name}; {len(quiet)} known quiet)")
    fmt = (table.props.get(properties.BASE_FILE_FORMAT) or "parquet").lower()
    saved = {n for meta in savepoints.values() for pm in (meta.get("partitionMetadata") or {}).values()
             for n in pm.get("savepointDataFile") or ()}
    planner = _Planner(tl, policy, earliest, fmt, saved, tl.clustering_files(), tl.replaced())
    doomed = {p: names for p, names in ((p, planner.files_to_delete(p, files)) for p, files in sorted(listing.items()))
              if names}
    if partitions is None and by_commits:
        quiet_partitions.remember(table.uri, policy.name, tl.instants, quiet | planner.quiet)
    if not doomed:
        return _empty_plan(table, tl, policy, earliest, options, extra)
    # a partition whose every file goes (every file group replaced, as by delete_partition) goes itself, as
    # Hudi's CleanPlanner decides - never while a write is pending, which could be writing into it
    writing = any(i.action in PENDING_WRITES for i in table.timeline.pending())
    emptied = [] if writing or not partitioned else sorted(p for p, ns in doomed.items() if set(ns) >= set(listing[p]))
    uri = table.uri.rstrip("/")
    return {
        "earliestInstantToRetain": None if earliest is None else {
            "timestamp": earliest.requested_time, "action": earliest.action, "state": COMPLETED.upper()},
        "lastCompletedCommitTimestamp": tl.last_completed_commit(),
        "policy": policy.name,
        "filesToBeDeletedPerPartition": {},
        "version": PLAN_VERSION,
        "filePathsToBeDeletedPerPartition": {
            p: [{"filePath": "/".join(x for x in (uri, p, n) if x), "isBootstrapBaseFile": False} for n in sorted(ns)]
            for p, ns in doomed.items()},
        "partitionsToBeDeleted": emptied,
        "extraMetadata": extra,
    }


def _empty_plan(table: ServiceTable, tl: _Timeline, policy: _Policy, earliest: Instant | None,
                options: Mapping[str, str], extra: dict[str, str]) -> dict | None:
    """A plan deleting nothing, when hoodie.write.empty.clean.interval.hours asks for one (Hudi's empty clean):
    its earliest commit to retain becomes the next clean's horizon. Never earlier than the last clean's."""
    hours = o.EMPTY_CLEAN_INTERVAL_HOURS.get(options)
    if hours < 0 or not policy.incremental or earliest is None or policy.name == KEEP_LATEST_FILE_VERSIONS:
        return None
    if tl.cleans and tl.cleans[-1].requested_time > format_instant_time(_now(table.props) - dt.timedelta(hours=hours)):
        return None
    previous = (tl.last_clean or {}).get("earliestCommitToRetain") or ""
    if previous > earliest.requested_time:  # a retention setting changed: the horizon does not go back
        earliest = next((c for c in tl.commits if c.requested_time == previous), earliest)
    return {"earliestInstantToRetain": {"timestamp": earliest.requested_time, "action": earliest.action,
                                        "state": COMPLETED.upper()},
            "lastCompletedCommitTimestamp": tl.last_completed_commit(), "policy": policy.name,
            "filesToBeDeletedPerPartition": {}, "version": PLAN_VERSION, "filePathsToBeDeletedPerPartition": {},
            "partitionsToBeDeleted": [], "extraMetadata": extra}


# ---- execution -----------------------------------------------------------------------------------

def _planned_names(plan: Mapping[str, Any]) -> dict[str, list[str]]:
    """partition -> names of the files a plan deletes (version 2 paths; version 1 names)."""
    v2 = plan.get("filePathsToBeDeletedPerPartition") or {}
    if v2:
        return {p: [posixpath.basename(i["filePath"]) for i in infos
                    if i.get("filePath") and not i.get("isBootstrapBaseFile")] for p, infos in v2.items()}
    v1 = plan.get("filesToBeDeletedPerPartition") or {}
    return {p: [posixpath.basename(n) for n in names] for p, names in v1.items()}


def _execute(table: ServiceTable, pending: Instant, plan: Mapping[str, Any], progress: Progress) -> Instant:
    """Deletes the planned files and completes the clean (CleanActionExecutor.runClean)."""
    start = time.monotonic()
    inflight = pending
    if pending.state == REQUESTED:
        inflight = table.timeline.transition_to_inflight(pending)
        crash_point("after_inflight")
    planned = _planned_names(plan)
    progress(f"clean {pending.requested_time}: deleting {sum(map(len, planned.values()))} files "
             f"in {len(planned)} partitions")
    dropped = set(plan.get("partitionsToBeDeleted") or ())
    partition_meta: dict[str, dict] = {}
    for p, names in sorted(planned.items()):
        ok, failed = [], []
        for n in names:
            try:
                table.storage.delete(posixpath.join(table.base, p, n))  # a file already gone is fine
                ok.append(n)
            except OSError as e:
                log.warning("clean %s could not delete %s/%s: %s", pending.requested_time, p, n, e)
                failed.append(n)
        partition_meta[p] = {"partitionPath": p, "policy": plan.get("policy") or KEEP_LATEST_COMMITS,
                             "deletePathPatterns": names, "successDeleteFiles": ok, "failedDeleteFiles": failed,
                             "isPartitionDeleted": p in dropped}
    for p in sorted(dropped):  # its partition metadata file and the directory itself
        if p:
            table.storage.delete(posixpath.join(table.base, p))
    crash_point("after_files")
    earliest = plan.get("earliestInstantToRetain") or {}
    meta = {"startCleanTime": pending.requested_time, "timeTakenInMillis": int((time.monotonic() - start) * 1000),
            "totalFilesDeleted": sum(len(m["successDeleteFiles"]) for m in partition_meta.values()),
            "earliestCommitToRetain": earliest.get("timestamp") or "",
            "lastCompletedCommitTimestamp": plan.get("lastCompletedCommitTimestamp") or "",
            "partitionMetadata": partition_meta, "version": METADATA_VERSION, "bootstrapPartitionMetadata": {},
            "extraMetadata": plan.get("extraMetadata")}
    # the metadata table drops every planned file, as Hudi's does (deletePathPatterns)
    done = commit(table, inflight, im.CLEAN, meta, deleted=planned, deleted_partitions=sorted(dropped))
    progress(f"clean {pending.requested_time} completed: {meta['totalFilesDeleted']} files deleted")
    return done


def _finish_pending(table: ServiceTable, progress: Progress) -> Instant | None:
    """Runs the cleans that died (requested or inflight), oldest first, from their plans."""
    tl = _Timeline(table)
    done = None
    for inst in tl.pending_cleans():
        log.info("finishing clean %s left by a run that died", inst.requested_time)
        done = _execute(table, inst, tl.plan(inst), progress)
    return done


# ---- entry points --------------------------------------------------------------------------------

def clean(path: str, options: Mapping[str, str] | None = None, progress: Progress = no_progress) -> Instant | None:
    """Finishes cleans that died, then - when the trigger says a clean is due and the policy names files -
    plans and runs one. Returns the completed clean instant (the last one finished), or None when
    there was nothing to clean (nothing is written then, unless an empty clean is due)."""
    options = checked(options)
    table = ServiceTable.open(path, options)
    with table.locked():  # several writers: none commits while the plan is made and carried out
        done = _finish_pending(table, progress)
        if not is_due(_Timeline(table), options):
            return done
        cleaner_plan = plan(table, options, progress)
        if cleaner_plan is None:
            return done
        requested = table.timeline.create_requested("clean", im.encode(im.CLEANER_PLAN, cleaner_plan))
        crash_point("after_requested")
        return _execute(table, requested, cleaner_plan, progress)


def clean_if_due(path: str, options: Mapping[str, str] | None = None) -> Instant | None:
    """After a write (hoodie.clean.automatic): a clean when one died or the trigger and the timeline say
    one is due; costs one timeline listing (and the last clean's metadata) when nothing is."""
    options = checked(options)
    table = ServiceTable.open(path)
    tl = _Timeline(table)
    if not tl.pending_cleans():
        if not is_due(tl, options):
            return None
        policy = _Policy.of(options)
        earliest = earliest_commit_to_retain(tl, policy, table.props)
        if policy.name != KEEP_LATEST_FILE_VERSIONS and earliest is None:
            return None
    return clean(path, options)


def describe(table_path: str, clean_instant: Instant) -> dict[str, list[str]]:
    """partition -> names of the files a completed clean deleted."""
    table = ServiceTable.open(table_path)
    meta = im.decode(table.timeline.read(clean_instant), im.CLEAN, layout_version=table.timeline.layout)
    return {p: list(m.get("successDeleteFiles") or ()) for p, m in (meta.get("partitionMetadata") or {}).items()}
