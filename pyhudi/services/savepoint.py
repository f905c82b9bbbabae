"""Savepoints: a completed `savepoint` instant at a commit's time keeps that commit's files from
cleaning and its instants from archival, so the table can be restored to it (`restore`).

As Apache Hudi's SavepointActionExecutor: only a completed commit, deltacommit or replacecommit can be
savepointed, and not one older than the last clean's earliest commit to retain (its files may be gone).
There is no requested state: `<t>.savepoint.inflight` (empty), then `<t>_<c>.savepoint` holding a
HoodieSavepointMetadata {savepointedBy, savepointedAt (epoch milliseconds), comments, partitionMetadata
{partition -> {partitionPath, savepointDataFile: the file names of the latest file slices as of t}},
version 1}. The slices as of t are made of the files of the instants a restore to t keeps
(`undone_by_restore` says which go); the partitions and their files come from the metadata table's
`files` partition when the table has one, else from storage. Deleting a savepoint removes its
completed file, then its inflight one (Hudi's SavepointHelpers.deleteSavepoint).
"""
from __future__ import annotations

import posixpath
import time
from dataclasses import dataclass

from pyhudi.errors import HudiError
from pyhudi.services.instant import ServiceTable
from pyhudi.storage import AlreadyExists
from pyhudi.table import instant_metadata as im
from pyhudi.table import properties
from pyhudi.table.file_slices import build_slices, committed_rule
from pyhudi.table.timeline import COMPLETED, INFLIGHT, REQUESTED, WRITE_ACTIONS, Instant, Timeline

SAVEPOINT = "savepoint"
# Hudi's write timeline: the actions a restore rolls back (their completed forms are in WRITE_ACTIONS)
RESTORED_ACTIONS = (*WRITE_ACTIONS, "compaction", "logcompaction", "clustering")
METADATA_VERSION = 1


class SavepointError(HudiError, ValueError):
    pass


@dataclass(frozen=True)
class Savepoint:
    instant: str                  # the savepointed commit's requested time
    completion_time: str | None   # when the savepoint completed
    savepointed_by: str
    savepointed_at: int           # epoch milliseconds
    comments: str
    files: dict[str, list[str]]   # partition -> names of the files kept


def savepoint_times(timeline: Timeline) -> list[str]:
    """Instant times of the completed savepoints, oldest first."""
    return [i.requested_time for i in timeline.completed(("savepoint",))]


def savepointed_files(timeline: Timeline) -> dict[str, set[str]]:
    """partition -> names of the files some completed savepoint keeps."""
    out: dict[str, set[str]] = {}
    for inst in timeline.completed(("savepoint",)):
        meta = im.decode(timeline.read(inst), im.SAVEPOINT, layout_version=timeline.layout)
        for partition, pm in (meta.get("partitionMetadata") or {}).items():
            out.setdefault(partition, set()).update(pm.get("savepointDataFile") or ())
    return out


# ---- what a restore to an instant undoes -------------------------------------------------------

def _after(i: Instant, target: Instant, merge_on_read: bool) -> bool:
    """Whether a restore to `target` rolls `i` back (Hudi's RestoreInstantComparatorFactory): by completion
    time, pending instants last; on merge-on-read tables compactions go by requested time (a compaction
    that completed after a later delta commit still comes before it)."""
    if merge_on_read and i.action in ("compaction", "commit"):
        return i.requested_time > target.requested_time
    if not i.is_completed:
        return True
    if i.completion_time is None or target.completion_time is None:  # 0.x names: requested order
        return i.requested_time > target.requested_time
    return (i.completion_time, i.requested_time) > (target.completion_time, target.requested_time)


def _is_clustering(timeline: Timeline, i: Instant) -> bool:
    if i.action == "clustering":
        return True
    if i.action != "replacecommit" or i.is_completed:
        return False
    try:
        plan = im.decode(timeline.read(Instant(i.requested_time, i.action, REQUESTED)))
    except (OSError, ValueError):
        return False
    return plan.get("operationType") == "CLUSTER"


def undone_by_restore(timeline: Timeline, instants: list[Instant], target: Instant,
                      merge_on_read: bool) -> list[Instant]:
    """The instants of Hudi's write timeline a restore to `target` rolls back, in the order it does
    (RestorePlanActionExecutor): pending clusterings requested after it first, newest first; then the others
    after it, newest completion first (pending ones before completed ones)."""
    writes = [i for i in instants if i.action in RESTORED_ACTIONS and i.requested_time != target.requested_time]
    clustering = sorted((i for i in writes if not i.is_completed and i.requested_time > target.requested_time
                         and _is_clustering(timeline, i)), key=lambda i: i.requested_time, reverse=True)
    rest = [i for i in writes if i not in clustering and _after(i, target, merge_on_read)]
    rest.sort(key=lambda i: (not i.is_completed, i.completion_time or "", i.requested_time), reverse=True)
    return clustering + rest


# ---- the files of a savepoint ------------------------------------------------------------------

def _listing(table: ServiceTable) -> dict[str, list[str]]:
    """partition -> file names, from the metadata table's files partition when there is one, else storage."""
    return {p: sorted(files) for p, files in table.files().items()}


def files_as_of(table: ServiceTable, target: Instant) -> dict[str, list[str]]:
    """partition -> names of the files of the latest file slices as of `target`: made of the files of the
    committed instants a restore to `target` keeps, without file groups a kept replacecommit replaced."""
    instants = [i for i in table.timeline.instants() if i.action != SAVEPOINT]
    undone = {i.requested_time for i in undone_by_restore(table.timeline, instants, target, table.is_merge_on_read)}
    ok = committed_rule(instants)
    completion = {i.requested_time: i.completion_time for i in instants if i.is_completed}
    replaced: dict[str, set[str]] = {}
    for i in instants:
        if i.action == "replacecommit" and i.is_completed and i.requested_time not in undone:
            meta = im.decode(table.timeline.read(i), layout_version=table.timeline.layout)
            for p, ids in im.replaced_file_ids(meta).items():
                replaced.setdefault(p, set()).update(ids)
    fmt = (table.props.get(properties.BASE_FILE_FORMAT) or "parquet").lower()
    out: dict[str, list[str]] = {}
    for partition, names in sorted(_listing(table).items()):
        slices = build_slices(names, lambda t: ok(t) and t not in undone, completion.get, None, fmt)
        files = sorted(n for fid, group in slices.items() if fid not in replaced.get(partition, ())
                       for n in group[-1].files())
        if files:
            out[partition] = files
    return out


# ---- create, list, delete ----------------------------------------------------------------------

def _instants(table: ServiceTable) -> list[Instant]:
    return [i for i in table.timeline.instants() if i.action != SAVEPOINT]


def _clean_horizon(table: ServiceTable, commits: list[Instant]) -> str | None:
    """The earliest commit the last clean retains (its plan's while it is pending), else the first
    completed commit: a savepoint before it may miss files (SavepointActionExecutor)."""
    cleans = [i for i in _instants(table) if i.action == "clean"]
    if not cleans:
        return commits[0].requested_time if commits else None
    last = cleans[-1]
    if last.is_completed:
        return im.decode(table.timeline.read(last), im.CLEAN).get("earliestCommitToRetain") or None
    plan = im.decode(table.timeline.read(Instant(last.requested_time, "clean", REQUESTED)), im.CLEANER_PLAN)
    return (plan.get("earliestInstantToRetain") or {}).get("timestamp") or None


def _target(table: ServiceTable, instant: str | None) -> Instant:
    instants = _instants(table)
    commits = [i for i in instants if i.is_completed and i.action in WRITE_ACTIONS]
    if instant is None:
        if not commits:
            raise SavepointError(f"{table.base} has no completed commit to savepoint")
        return commits[-1]
    found = next((i for i in instants if i.requested_time == instant), None)
    if found is None:
        raise SavepointError(f"no instant {instant} on the active timeline of {table.base}; savepoint a completed "
                             f"commit (the latest ones: {', '.join(c.requested_time for c in commits[-5:]) or 'none'})")
    if not found.is_completed:
        raise SavepointError(f"{found.action} {instant} is {found.state}, not completed: only a completed commit "
                             "can be savepointed")
    if found.action not in WRITE_ACTIONS:
        raise SavepointError(f"{instant} is a {found.action}, not a commit: only a completed commit, deltacommit "
                             "or replacecommit can be savepointed")
    return found


def create(path: str, instant: str | None = None, user: str = "", comments: str = "") -> Instant:
    """Savepoints the completed commit `instant` (default: the latest) of the table at `path`; returns the
    completed savepoint instant."""
    table = ServiceTable.open(path)
    target = _target(table, instant)
    t = target.requested_time
    if t in savepoint_times(table.timeline):
        raise SavepointError(f"{t} is savepointed already (delete it first with pyhudi savepoint delete "
                             f"{path} --instant {t})")
    commits = [i for i in _instants(table) if i.is_completed and i.action in WRITE_ACTIONS]
    horizon = _clean_horizon(table, commits)
    if horizon is not None and t < horizon:
        raise SavepointError(f"cannot savepoint {t}: it is older than {horizon}, the earliest commit the last "
                             "clean retains, so some of its files may be cleaned already")
    meta = {"savepointedBy": user or "", "savepointedAt": int(time.time() * 1000), "comments": comments or "",
            "partitionMetadata": {p: {"partitionPath": p, "savepointDataFile": names}
                                  for p, names in files_as_of(table, target).items()},
            "version": METADATA_VERSION}
    tl = table.timeline
    inflight = Instant(t, SAVEPOINT, INFLIGHT)
    try:
        table.storage.create_if_absent(posixpath.join(tl.dir, inflight.file_name(tl.layout)), b"")
    except AlreadyExists:
        pass  # left by a savepoint that died before completing: complete it now
    return tl.complete(inflight, im.encode(im.SAVEPOINT, meta))


def list_savepoints(path: str) -> list[Savepoint]:
    """The completed savepoints of the table at `path`, oldest first."""
    table = ServiceTable.open(path)
    out = []
    for inst in table.timeline.completed((SAVEPOINT,)):
        meta = im.decode(table.timeline.read(inst), im.SAVEPOINT, layout_version=table.timeline.layout)
        files = {p: list(pm.get("savepointDataFile") or ()) for p, pm in (meta.get("partitionMetadata") or {}).items()}
        out.append(Savepoint(inst.requested_time, inst.completion_time, meta.get("savepointedBy") or "",
                             meta.get("savepointedAt") or 0, meta.get("comments") or "", files))
    return out


def delete(path: str, instant: str) -> None:
    """Deletes the savepoint at `instant`: its completed file, then its inflight one. Refused while a
    restore to it is pending."""
    table = ServiceTable.open(path)
    tl = table.timeline
    mine = [i for i in tl.instant_files() if i.action == SAVEPOINT and i.requested_time == instant]
    if not mine:
        raise SavepointError(f"no savepoint at {instant} in {table.base}; savepoints: "
                             f"{', '.join(savepoint_times(tl)) or 'none'}")
    pending = pending_restore(table)
    if pending is not None and pending[1].get("savepointToRestoreTimestamp") == instant:
        raise SavepointError(f"restore {pending[0].requested_time} to savepoint {instant} is pending; finish it "
                             f"first (pyhudi restore {path} --to {instant})")
    for inst in sorted(mine, key=lambda i: i.state != COMPLETED):
        table.storage.delete(posixpath.join(tl.dir, inst.file_name(tl.layout)))


def pending_restore(table: ServiceTable) -> tuple[Instant, dict] | None:
    """The latest pending restore and its plan, if any (a pending restore to a savepoint keeps it)."""
    pending = [i for i in table.timeline.pending() if i.action == "restore"]
    if not pending:
        return None
    inst = pending[-1]
    plan = im.decode(table.timeline.read(Instant(inst.requested_time, "restore", REQUESTED)), im.RESTORE_PLAN)
    return inst, plan
