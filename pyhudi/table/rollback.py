"""Rolling back writes that never completed, using their markers (spec "Rollback")."""
from __future__ import annotations

import posixpath
import time

from pyhudi.storage import Storage
from pyhudi.table import instant_metadata as im
from pyhudi.table.timeline import WRITE_ACTIONS, Instant, Timeline

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


def rollback(storage: Storage, base: str, timeline: Timeline, target: Instant) -> Instant:
    """Remove what a pending write left and record a rollback instant. Only files named by the
    target's markers are touched, so nothing a completed instant wrote can be lost."""
    start = time.time()
    files = marker_files(storage, base, target.requested_time)
    by_partition: dict[str, list[str]] = {}
    for rel in files:
        by_partition.setdefault(posixpath.dirname(rel), []).append(rel)
    plan = {"instantToRollback": {"commitTime": target.requested_time, "action": target.action},
            "RollbackRequests": [{"partitionPath": p, "fileId": None, "latestBaseInstant": None,
                                  "filesToBeDeleted": [posixpath.join(base, f) for f in fs],
                                  "logBlocksToBeDeleted": None} for p, fs in by_partition.items()],
            "version": 1}
    requested = timeline.create_requested("rollback", im.encode(im.ROLLBACK_PLAN, plan))
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


def rollback_failed_writes(storage: Storage, base: str, timeline: Timeline) -> list[Instant]:
    """Roll back every pending write (a writer that died); returns the rollback instants."""
    return [rollback(storage, base, timeline, i) for i in timeline.pending() if i.action in WRITE_ACTIONS]
