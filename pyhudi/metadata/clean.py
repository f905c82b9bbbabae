"""MDT clean: all but the latest N file slices of every MDT file group are deleted, as a clean
instant on the MDT (policy KEEP_LATEST_FILE_VERSIONS)."""
from __future__ import annotations

import posixpath
import time

from pyhudi.metadata.contents import millis_since
from pyhudi.metadata.context import MdtContext
from pyhudi.metadata.state import MdtState
from pyhudi.table import instant_metadata as im
from pyhudi.table.timeline import Instant, Timeline

DEFAULT_RETAINED_SLICES = 2
CLEAN_POLICY = "KEEP_LATEST_FILE_VERSIONS"


def clean(ctx: MdtContext, partitions: list[str], retain: int = DEFAULT_RETAINED_SLICES) -> str | None:
    """Cleans `partitions` (the writer has rolled back what failed); returns the clean instant, None when
    nothing is old enough. Never runs while an MDT compaction is pending."""
    state = MdtState(ctx)
    if state.pending_compactions():
        return None
    doomed: dict[str, list[str]] = {}
    for part in partitions:
        for slices in state.slices(part).values():
            for sl in slices[:-retain]:
                doomed.setdefault(part, []).extend(sl.files())
    if not doomed:
        return None
    tl = state.timeline
    t = tl.new_instant_time()
    plan: dict  # of mixed values, some empty
    plan = {"earliestInstantToRetain": None, "lastCompletedCommitTimestamp": max(state.completed, default=""),
            "policy": CLEAN_POLICY, "filesToBeDeletedPerPartition": {}, "version": 2,
            "filePathsToBeDeletedPerPartition": {
                p: [{"filePath": f"{ctx.mdt_path}/{p}/{n}", "isBootstrapBaseFile": False} for n in sorted(ns)]
                for p, ns in doomed.items()},
            "partitionsToBeDeleted": [], "extraMetadata": None}
    body = im.encode(im.CLEANER_PLAN, plan)
    requested = tl.create_requested("clean", body, requested_time=t)
    inflight = tl.transition_to_inflight(requested, body)
    execute(ctx, tl, inflight, plan, time.monotonic())
    return t


def execute(ctx: MdtContext, tl: Timeline, inflight: Instant, plan: dict, start: float) -> None:
    """Deletes the planned files and completes the clean."""
    parts = {}
    total = 0
    for p, infos in (plan.get("filePathsToBeDeletedPerPartition") or {}).items():
        names = [posixpath.basename(i["filePath"]) for i in infos]
        for i in infos:
            ctx.storage.delete(i["filePath"])
        total += len(names)
        parts[p] = {"partitionPath": p, "policy": plan["policy"], "deletePathPatterns": names,
                    "successDeleteFiles": names, "failedDeleteFiles": [], "isPartitionDeleted": False}
    meta = {"startCleanTime": inflight.requested_time, "timeTakenInMillis": millis_since(start),
            "totalFilesDeleted": total, "earliestCommitToRetain": "",
            "lastCompletedCommitTimestamp": plan.get("lastCompletedCommitTimestamp") or "",
            "partitionMetadata": parts, "version": 2, "bootstrapPartitionMetadata": {}, "extraMetadata": None}
    tl.complete(inflight, im.encode(im.CLEAN, meta))


def finish_pending(ctx: MdtContext, state: MdtState, inst: Instant) -> None:
    """A clean that died: deleting files again is harmless, so finish it."""
    tl = state.timeline
    plan = im.decode(tl.read(Instant(inst.requested_time, "clean", "requested")), im.CLEANER_PLAN)
    if inst.state == "requested":
        inst = tl.transition_to_inflight(inst, im.encode(im.CLEANER_PLAN, plan))
    execute(ctx, tl, inst, plan, time.monotonic())
