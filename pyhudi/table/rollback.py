"""Rolling back writes that never completed, using their markers (spec "Rollback")."""
from __future__ import annotations

import logging
import posixpath
import time

from pyhudi.storage import Storage
from pyhudi.table import instant_metadata as im
from pyhudi.table.file_slices import file_id_and_instant
from pyhudi.table.timeline import COMPLETED, STATE_ORDER, WRITE_ACTIONS, Instant, Timeline

log = logging.getLogger(__name__)
MARKER_SUFFIXES = (".marker.CREATE", ".marker.MERGE", ".marker.APPEND")


def marker_files(storage: Storage, base: str, instant_time: str) -> list[str]:
    """Table-relative paths of the data files an instant's markers name."""
    root = posixpath.join(base, ".hoodie", ".temp", instant_time)
    found, stack = [], [""]
    while stack:
        rel = stack.pop()
        for e in storage.list(posixpath.join(root, rel) if rel else root):
            child = posixpath.join(rel, e.name) if rel else e.name
            if e.is_dir:
                stack.append(child)
            else:
                for suffix in MARKER_SUFFIXES:
                    if child.endswith(suffix):
                        found.append(child[: -len(suffix)])
    return sorted(found)


def drop_unlisted_files(storage: Storage, base: str, instant_time: str, written: set[str]) -> list[str]:
    """Deletes the files an instant's markers name that its write stats do not (`written`, table-relative):
    what a failed or repeated task attempt left, which a listing would otherwise read as data (Hudi's
    reconcileAgainstMarkers, before the commit). The deleted paths."""
    stray = [rel for rel in marker_files(storage, base, instant_time) if rel not in written]
    for rel in stray:
        if storage.exists(posixpath.join(base, rel)):
            storage.delete(posixpath.join(base, rel))
    if stray:
        log.warning("deleted %d file(s) of failed task attempts of %s: %s", len(stray), instant_time, ", ".join(stray))
    return stray


def rollback_plan(base: str, target: Instant, files: list[str]) -> dict:
    """The HoodieRollbackPlan of rolling back `target` by deleting `files` (table-relative paths)."""
    by_partition: dict[str, list[str]] = {}
    for rel in files:
        by_partition.setdefault(posixpath.dirname(rel), []).append(rel)
    return {"instantToRollback": {"commitTime": target.requested_time, "action": target.action},
            "RollbackRequests": [{"partitionPath": p, "fileId": None, "latestBaseInstant": None,
                                  "filesToBeDeleted": [posixpath.join(base, f) for f in fs],
                                  "logBlocksToBeDeleted": None} for p, fs in by_partition.items()],
            "version": 1}


def rollback(storage: Storage, base: str, timeline: Timeline, target: Instant) -> Instant:
    """Remove what a pending write left and record a rollback instant. Only files named by the
    target's markers are touched, so nothing a completed instant wrote can be lost."""
    start = time.time()
    files = marker_files(storage, base, target.requested_time)
    requested = timeline.create_requested("rollback", im.encode(im.ROLLBACK_PLAN, rollback_plan(base, target, files)))
    inflight = timeline.transition_to_inflight(requested)
    deleted: dict[str, list[str]] = {}
    for rel in files:
        path = posixpath.join(base, rel)
        if storage.exists(path):
            storage.delete(path)
            deleted.setdefault(posixpath.dirname(rel), []).append(path)
    meta = {"startRollbackTime": requested.requested_time, "timeTakenInMillis": int((time.time() - start) * 1000),
            "totalFilesDeleted": sum(len(v) for v in deleted.values()),
            "commitsRollback": [target.requested_time],
            "partitionMetadata": {p: {"partitionPath": p, "successDeleteFiles": fs, "failedDeleteFiles": [],
                                      "rollbackLogFiles": None, "logFilesFromFailedCommit": None}
                                  for p, fs in deleted.items()},
            "version": 1,
            "instantsRollback": [{"commitTime": target.requested_time, "action": target.action}]}
    done = timeline.complete(inflight, im.encode(im.ROLLBACK, meta))
    timeline.delete_pending(target)
    storage.delete(posixpath.join(base, ".hoodie", ".temp", target.requested_time))
    return done


def undo_instant(storage: Storage, base: str, timeline: Timeline, target: Instant, rollback_time: str) -> dict:
    """Removes an instant, completed or pending, without writing a rollback instant (a restore keeps the
    returned HoodieRollbackMetadata in its own): first every data file it wrote - those its commit metadata
    (completed or inflight) and its markers name, and any other file of the partitions they touch that
    carries its instant time (a retried task's leftover; layout 2 names log files by their own instant) -
    then its instant files, the completed one first. Each step can be repeated after a crash: what is
    gone is skipped."""
    start, t = time.time(), target.requested_time
    mine = [i for i in timeline.instant_files() if i.requested_time == t and i.action != "savepoint"]
    files = set(marker_files(storage, base, t))
    partitions: set[str] = set()
    for inst in sorted(mine, key=lambda i: i.state != COMPLETED):  # completed metadata first, then inflight
        if im.metadata_kind(inst.action, inst.state) in (im.COMMIT, im.REPLACE_COMMIT):
            try:
                meta = im.decode(timeline.read(inst), layout_version=timeline.layout)
            except (OSError, ValueError):
                continue  # an inflight file cut short: the markers name its files
            files.update(rel for _, rel in im.files_written(meta))
            partitions.update(meta.get("partitionToWriteStats") or {})
            break
    files = {f for f in files if posixpath.basename(f)}
    partitions.update(posixpath.dirname(f) for f in files)
    for p in partitions:
        for e in storage.list(posixpath.join(base, p) if p else base):
            parsed = None if e.is_dir else file_id_and_instant(e.name)
            if parsed and parsed[1] == t:
                files.add(posixpath.join(p, e.name) if p else e.name)
    deleted: dict[str, list[str]] = {}
    for rel in sorted(files):
        path = posixpath.join(base, rel)
        if storage.exists(path):
            storage.delete(path)
            deleted.setdefault(posixpath.dirname(rel), []).append(path)
    storage.delete(posixpath.join(base, ".hoodie", ".temp", t))
    for inst in sorted(mine, key=lambda i: -STATE_ORDER[i.state]):
        storage.delete(posixpath.join(timeline.dir, inst.file_name(timeline.layout)))
    return {"startRollbackTime": rollback_time, "timeTakenInMillis": int((time.time() - start) * 1000),
            "totalFilesDeleted": sum(len(v) for v in deleted.values()), "commitsRollback": [t],
            "partitionMetadata": {p: {"partitionPath": p, "successDeleteFiles": fs, "failedDeleteFiles": [],
                                      "rollbackLogFiles": None, "logFilesFromFailedCommit": None}
                                  for p, fs in deleted.items()},
            "version": 1, "instantsRollback": [{"commitTime": t, "action": target.action}]}


def rollback_failed_writes(storage: Storage, base: str, timeline: Timeline) -> list[Instant]:
    """Roll back every pending write (a writer that died); returns the rollback instants."""
    return [rollback(storage, base, timeline, i) for i in timeline.pending() if i.action in WRITE_ACTIONS]
