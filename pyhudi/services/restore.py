"""Restore: the table goes back to a savepoint. Every instant of Hudi's write timeline after it (commits,
delta commits, replacecommits, compactions, clusterings; completed or pending) is rolled back: its data
files deleted, then its instant files. Cleans after the savepoint stay (what they deleted the savepoint
kept), as do savepoints of kept commits; savepoints of rolled-back commits go with them.

As Apache Hudi 1.x (RestorePlanActionExecutor, BaseRestoreActionExecutor): only to a savepoint;
`<r>.restore.requested` holds the plan (HoodieRestorePlan: instantsToRollback newest first, version 2,
savepointToRestoreTimestamp), `<r>.restore.inflight` is empty, and `<r>_<c>.restore` holds a
HoodieRestoreMetadata with one HoodieRollbackMetadata per rolled-back instant. Hudi runs a rollback
instant per instant and deletes those rollback instants (and any other rollback after the savepoint) when
the restore completes; pyhudi writes none, and deletes the others before completing.

A restore that died is resumed by the next restore to the same savepoint: its plan says what to roll back,
and instants already gone are skipped (a restore to another savepoint is refused until it completes).

The metadata table is dropped before any data file goes - the data table lists its partitions as inflight
meanwhile, so readers list storage - and built again once every instant is rolled back, with the same
partitions, before the restore completes: from a listing, then the record index and secondary indexes
(built from the records, with Spark) by the indexing action, each listed inflight until it is built, so a
restore that dies on the way builds the rest when resumed. (Hudi restores it to the savepoint and syncs it
with a listing; it drops it too when the savepoint is older than its oldest compaction.)
"""
from __future__ import annotations

import logging
import posixpath
import time

from pyhudi.errors import HudiError
from pyhudi.faults import crash_point
from pyhudi.metadata import FILES, MetadataWriter
from pyhudi.metadata.keys import RECORD_INDEX, is_secondary_index
from pyhudi.metadata.layout import (
    INFLIGHT_PARTITIONS_KEY,
    PARTITIONS_KEY,
    SUPPORTED_PARTITIONS,
    completed_partitions,
    csv,
    metadata_path,
    record_built,
)
from pyhudi.services.instant import Progress, ServiceTable, no_progress
from pyhudi.services.savepoint import SAVEPOINT, pending_restore, savepoint_times, undone_by_restore
from pyhudi.table import instant_metadata as im
from pyhudi.table import properties
from pyhudi.table.rollback import undo_instant
from pyhudi.table.timeline import COMPLETED_ACTION, REQUESTED, STATE_ORDER, WRITE_ACTIONS, Instant, collapse

log = logging.getLogger(__name__)

RESTORE = "restore"
PLAN_VERSION = 2  # RestorePlanActionExecutor.LATEST_RESTORE_PLAN_VERSION
METADATA_VERSION = 1


class RestoreError(HudiError, ValueError):
    pass


def plan(table: ServiceTable, to_instant: str) -> dict:
    """The HoodieRestorePlan of a restore of `table` to the savepoint at `to_instant` (checked)."""
    if to_instant not in savepoint_times(table.timeline):
        saved = ", ".join(savepoint_times(table.timeline)) or "none"
        raise RestoreError(f"{to_instant} is not a savepoint of {table.base} (savepoints: {saved}); a table is "
                           f"restored only to a savepoint: create one with `pyhudi savepoint create {table.base} "
                           f"--instant {to_instant}`")
    instants = [i for i in table.timeline.instants() if i.action != SAVEPOINT]
    target = next((i for i in instants if i.requested_time == to_instant and i.is_completed
                   and i.action in WRITE_ACTIONS), None)
    if target is None:
        raise RestoreError(f"savepoint {to_instant} of {table.base} has no completed commit at its time on the "
                           "active timeline; it cannot be restored to")
    undone = undone_by_restore(table.timeline, instants, target, table.is_merge_on_read)
    return {"instantsToRollback": [{"commitTime": i.requested_time, "action": i.action} for i in undone],
            "version": PLAN_VERSION, "savepointToRestoreTimestamp": to_instant}


def schedule(path: str, to_instant: str) -> Instant:
    """Writes `<r>.restore.requested` with the plan of a restore to `to_instant`; returns it."""
    table = _table(path)
    pending = pending_restore(table)
    if pending is not None:
        raise RestoreError(_pending_message(path, *pending))
    return table.timeline.create_requested(RESTORE, im.encode(im.RESTORE_PLAN, plan(table, to_instant)))


def restore(path: str, to_instant: str, progress: Progress = no_progress, spark=None) -> Instant:
    """Restores the table at `path` to its savepoint at `to_instant` (resuming a restore to it that died);
    returns the completed restore instant. `spark` (a SparkSession, or a function making one) builds the record
    index and secondary indexes again, when the table has any."""
    table = _table(path)
    if spark is None and any(record_built(p) for p in metadata_partitions(table)):
        raise RestoreError(f"{path} has a record index or secondary index, which a restore builds again with "
                           "Spark: pass a SparkSession (or a function making one) as `spark`")
    pending = pending_restore(table)
    if pending is not None and pending[1].get("savepointToRestoreTimestamp") != to_instant:
        raise RestoreError(_pending_message(path, *pending))
    if pending is None:
        requested = schedule(path, to_instant)
        crash_point("after_requested")
        table = _table(path)
        pending = requested, plan_of(table, requested)
    else:
        progress(f"resuming restore {pending[0].requested_time} to {to_instant}")
    return _execute(table, *pending, progress, spark)


def plan_of(table: ServiceTable, inst: Instant) -> dict:
    return im.decode(table.timeline.read(Instant(inst.requested_time, RESTORE, REQUESTED)), im.RESTORE_PLAN)


def _table(path: str) -> ServiceTable:
    table = ServiceTable.open(path)
    if table.timeline.layout != 2:
        raise RestoreError(f"{path} has timeline layout {table.timeline.layout} (table version 6); pyhudi restores "
                           "table version 8 only: upgrade the table first")
    return table


def _pending_message(path: str, inst: Instant, plan: dict) -> str:
    to = plan.get("savepointToRestoreTimestamp")
    return (f"restore {inst.requested_time} of {path} to savepoint {to} is pending; finish it first "
            f"(pyhudi restore {path} --to {to}): the table is inconsistent until it completes")


def _execute(table: ServiceTable, requested: Instant, plan: dict, progress: Progress, spark) -> Instant:
    start = time.time()
    tl, r = table.timeline, requested.requested_time
    to = plan["savepointToRestoreTimestamp"]
    inflight = tl.transition_to_inflight(requested) if requested.state == REQUESTED else requested
    crash_point("after_inflight")
    # an instant matches its plan entry in any state: a compaction planned completed (`commit`) is a pending
    # `compaction` again once an earlier attempt deleted its completed file
    present = {(i.requested_time, _family(i.action)): i for i in collapse(tl.instant_files()) if i.action != SAVEPOINT}
    keys = [(x["commitTime"], _family(x["action"])) for x in plan["instantsToRollback"]]
    todo = [present[k] for k in keys if k in present]
    skipped = len(plan["instantsToRollback"]) - len(todo)
    if skipped:
        log.info("restore %s: %d instants of its plan were rolled back by an earlier attempt", r, skipped)
    parts = metadata_partitions(table)
    if todo and parts:
        progress(f"dropping the metadata table (partitions {', '.join(parts)}); it is built again at the end")
        drop_metadata_table(table, parts)
    rollbacks: dict[str, list[dict]] = {}
    for n, inst in enumerate(todo, 1):
        progress(f"rolling back {inst.action} {inst.requested_time} ({n}/{len(todo)})")
        rollbacks[inst.requested_time] = [undo_instant(table.storage, table.base, tl, inst, tl.times.next(after=r))]
    crash_point("after_files")
    undone = {x["commitTime"] for x in plan["instantsToRollback"]}
    _delete_instants(table, lambda i: i.action == SAVEPOINT and i.requested_time in undone)
    _delete_instants(table, lambda i: i.action == "rollback" and i.requested_time > to)
    if parts and not metadata_table_ready(table):
        progress(f"building the metadata table again (partitions {', '.join(parts)})")
        rebuild_metadata_table(table, parts)
    rebuild_indexes(table, [p for p in parts if record_built(p)], spark, progress)
    crash_point("after_metadata")
    done = [x for x in plan["instantsToRollback"] if x["commitTime"] in rollbacks]
    meta = {"startRestoreTime": r, "timeTakenInMillis": int((time.time() - start) * 1000),
            "instantsToRollback": [x["commitTime"] for x in done],
            "hoodieRestoreMetadata": rollbacks, "version": METADATA_VERSION,
            "restoreInstantInfo": [{"commitTime": x["commitTime"], "action": x["action"]} for x in done]}
    crash_point("before_complete")
    completed = tl.complete(inflight, im.encode(im.RESTORE, meta))
    progress(f"restore {r} completed: {len(done)} instants rolled back, the table is as of savepoint {to}")
    return completed


def _family(action: str) -> str:
    return COMPLETED_ACTION.get(action, action)


def _delete_instants(table: ServiceTable, which) -> None:
    """Deletes the instant files of the instants `which` selects, completed file first."""
    tl = table.timeline
    for inst in sorted((i for i in tl.instant_files() if which(i)),
                       key=lambda i: (i.requested_time, -STATE_ORDER[i.state])):
        table.storage.delete(posixpath.join(tl.dir, inst.file_name(tl.layout)))


# ---- the metadata table ------------------------------------------------------------------------

def metadata_table_ready(table: ServiceTable) -> bool:
    props = properties.load(table.storage, table.base)
    return properties.exists(table.storage, metadata_path(table.base)) and FILES in completed_partitions(props)


def metadata_partitions(table: ServiceTable) -> list[str]:
    """The metadata partitions to build again after the restore: the built ones and the indexes left
    inflight by an earlier attempt, or - when an earlier attempt dropped the table - the ones it left listed
    as inflight. (No writer runs during a restore; if a build that died left a fresh heartbeat,
    `initialize` says so and the restore is run again later.)"""
    props = properties.load(table.storage, table.base)
    inflight = [p for p in csv(props.get(INFLIGHT_PARTITIONS_KEY)) if _rebuildable(p)]
    if metadata_table_ready(table):
        built = [p for p in completed_partitions(props) if _rebuildable(p)]
        return built + [p for p in inflight if record_built(p) and p not in built]
    return inflight if FILES in inflight else []


def _rebuildable(partition: str) -> bool:
    return partition in SUPPORTED_PARTITIONS or is_secondary_index(partition)


def drop_metadata_table(table: ServiceTable, parts: list[str]) -> None:
    """Lists `parts` as inflight (readers skip the metadata table; a resumed restore knows what to build),
    then deletes the metadata table's directory."""
    props = properties.load(table.storage, table.base)
    props.update({PARTITIONS_KEY: "", INFLIGHT_PARTITIONS_KEY: ",".join(parts)})
    properties.save(table.storage, table.base, props, updated=True)
    table.storage.delete(metadata_path(table.base))


def rebuild_metadata_table(table: ServiceTable, parts: list[str]) -> None:
    """Builds the metadata table dropped by `drop_metadata_table` again, from a listing; the indexes of
    `parts` built from records stay listed inflight for `rebuild_indexes`."""
    props = properties.load(table.storage, table.base)
    listed = [p for p in parts if not record_built(p)]
    MetadataWriter(table.storage, table.base, props, partitions=listed).initialize(
        awaiting=_index_order([p for p in parts if record_built(p)]))


def rebuild_indexes(table: ServiceTable, parts: list[str], spark, progress: Progress) -> None:
    """Builds the record index, then each secondary index (they need it), of `parts` not built yet, with the
    indexing action (default sizing: the file-group count follows the table's record count)."""
    built = completed_partitions(properties.load(table.storage, table.base))
    todo = [p for p in _index_order(parts) if p not in built]
    if not todo:
        return
    from pyhudi.services import indexing  # with Spark: only a table with such indexes needs it

    spark = spark() if callable(spark) else spark  # a session made only when an index is built again
    for part in todo:
        progress(f"building {part} again (indexing action)")
        indexing.create(spark, table.uri, part, progress=progress)


def _index_order(parts: list[str]) -> list[str]:
    return sorted(parts, key=lambda p: (p != RECORD_INDEX, p))
