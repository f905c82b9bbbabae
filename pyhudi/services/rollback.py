"""Rolling back a completed commit (Apache Hudi's `rollback_to_instant`, SparkRDDWriteClient.rollback): the
latest completed write goes, its data files first, then its instant files, recorded by a completed `rollback`
instant (HoodieRollbackPlan, HoodieRollbackMetadata), so a read shows the table as before it.

As Hudi's BaseRollbackActionExecutor: only the latest write can go (no commit completed or pending after it),
and never a savepointed one. The metadata table forgets the instant: its deltacommit at that time is rolled
back, unless a metadata-table compaction already merged it, in which case the metadata table is built again
(as a restore does).
"""
from __future__ import annotations

import posixpath

from pyhudi.errors import HudiError
from pyhudi.services.instant import Progress, ServiceTable, no_progress
from pyhudi.services.restore import drop_metadata_table, metadata_partitions, rebuild_metadata_table
from pyhudi.services.savepoint import savepoint_times
from pyhudi.table import instant_metadata as im
from pyhudi.table.file_slices import file_id_and_instant
from pyhudi.table.pending_plans import requested_plan
from pyhudi.table.rollback import rollback_plan, undo_instant
from pyhudi.table.timeline import REQUESTED, WRITE_ACTIONS, Instant


class RollbackError(HudiError, ValueError):
    pass


def rollback_commit(path: str, instant: str, progress: Progress = no_progress) -> Instant:
    """Rolls back the completed write `instant` of the table at `path`; returns the completed rollback."""
    table = ServiceTable.open(path)
    if table.timeline.layout != 2:
        raise RollbackError(f"{path} has timeline layout {table.timeline.layout} (table version 6); pyhudi rolls "
                            "back commits of table version 8 only")
    with table.locked():
        target = _target(table, instant)
        tl = table.timeline
        meta = im.decode(tl.read(target), layout_version=tl.layout)
        files = sorted({rel for _, rel in im.files_written(meta)})
        plan = rollback_plan(table.base, target, files)
        requested = tl.create_requested("rollback", im.encode(im.ROLLBACK_PLAN, plan))
        inflight = tl.transition_to_inflight(requested)
        mdt = table.metadata_writer()
        parts = metadata_partitions(table) if mdt is not None and _merged_by_compaction(mdt, instant) else []
        if parts:
            progress(f"a metadata-table compaction holds {instant}: dropping the metadata table, built again after")
            drop_metadata_table(table, parts)
        progress(f"rolling back {target.action} {instant}: {len(files)} files")
        rolled_back = undo_instant(table.storage, table.base, tl, target, requested.requested_time)
        if parts:
            rebuild_metadata_table(table, parts)
        elif mdt is not None:
            mdt.rollback(instant)
        return tl.complete(inflight, im.encode(im.ROLLBACK, rolled_back))


def _target(table: ServiceTable, instant: str) -> Instant:
    """The completed write at `instant`, checked: the latest one, not savepointed."""
    instants = table.timeline.instants()
    target = next((i for i in instants if i.requested_time == instant and i.is_completed
                   and i.action in WRITE_ACTIONS), None)
    if target is None:
        done = [i.requested_time for i in instants if i.is_completed and i.action in WRITE_ACTIONS]
        raise RollbackError(f"commit {instant} not found among the completed commits of {table.base} "
                            f"(latest: {', '.join(done[-5:]) or 'none'})")
    later = [f"{i.action} {i.requested_time}" for i in instants
             if i.requested_time > instant and (i.action in WRITE_ACTIONS or not i.is_completed)
             and i.action not in ("clean", "rollback", "savepoint", "restore")]
    if later:
        raise RollbackError(f"found commits after {instant} ({', '.join(later)}); roll back the later commits first")
    if instant in savepoint_times(table.timeline):
        raise RollbackError(f"{instant} is savepointed; delete the savepoint before rolling it back")
    return target


def _merged_by_compaction(mdt, instant: str) -> bool:
    """Whether a completed metadata-table compaction merged a log file of the deltacommit at `instant` (one
    planned before that deltacommit completed cannot have)."""
    tl = mdt.mdt_timeline()
    for done in tl.completed(("commit",)):
        if done.requested_time > instant:
            plan = requested_plan(tl, Instant(done.requested_time, "compaction", REQUESTED))
            logs = [file_id_and_instant(posixpath.basename(p))
                    for op in plan.get("operations") or () for p in op.get("deltaFilePaths") or ()]
            if any(log and log[1] == instant for log in logs):
                return True
    return False
