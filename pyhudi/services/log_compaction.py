"""Log compaction of a merge-on-read table (Apache Hudi's `logcompaction`, RFC-48): the log blocks of a file
slice are merged into one new log file of that slice, base file untouched, so a reader merges one block where
it merged many, at a fraction of a compaction's cost (no base file is rewritten).

Timeline: `<t>.logcompaction.requested` (a HoodieCompactionPlan naming LogCompactionExecutionHelper) ->
`<t>.logcompaction.inflight` -> `<t>_<c>.deltacommit` (operation LOG_COMPACT). The new blocks keep each record's
commit time and carry the header COMPACTED_BLOCK_TIMES, the instants whose blocks they replace: readers (the
connector, Apache Hudi, hudi-rs) skip those blocks and merge the new ones in their place. The replaced log files
stay in the slice until the next compaction. Execution is compaction's (`compaction.execute`, action
"logcompaction"), reading through the connector's `hudi-meta.logcompaction.instant`.
"""
from __future__ import annotations

import logging
import posixpath
from typing import Mapping

from pyspark.sql import SparkSession

from pyhudi import log as lf
from pyhudi.config import options as o
from pyhudi.faults import crash_point
from pyhudi.services import compaction
from pyhudi.services.compaction import LOG_COMPACTION
from pyhudi.services.instant import Progress, ServiceTable, checked, no_progress, run_planned
from pyhudi.table import instant_metadata as im
from pyhudi.table.file_slices import FileSlice
from pyhudi.table.pending_plans import held_file_groups
from pyhudi.table.timeline import Instant
from pyhudi.write import view

log = logging.getLogger(__name__)

COMPACTOR = "org.apache.hudi.table.action.compact.LogCompactionExecutionHelper"


def block_count(table: ServiceTable, s: FileSlice, completed: set[str]) -> int:
    """Hudi's measure of a slice's need (HoodieLogCompactionPlanGenerator): the log blocks a merge of it reads -
    blocks of completed instants that no rollback block undid, a log compaction's blocks counted in place of
    the blocks they replaced."""
    blocks = [b for name in s.logs for b in lf.read_blocks(table.storage.read(posixpath.join(table.base, s.partition,
                                                                                            name)))]
    undone = {b.target_instant_time for b in blocks if b.is_rollback()}
    kept = [b for b in blocks if not b.is_rollback() and b.instant_time in completed and b.instant_time not in undone]
    replaced = {t for b in kept for t in (b.header.get(lf.HeaderKey.COMPACTED_BLOCK_TIMES) or "").split(",") if t}
    return sum(b.instant_time not in replaced for b in kept)


def schedule(spark: SparkSession, path: str, options: Mapping[str, str] | None = None) -> Instant | None:
    """Writes a log compaction plan over the latest file slices with at least hoodie.log.compaction.blocks.threshold
    log blocks, outside pending compaction, log compaction and clustering plans; None when no slice qualifies."""
    options = dict(options or {})
    table = compaction.mor_table(path, options)
    with table.locked():  # no writer commits while the plan is made (several writers)
        return _schedule(spark, table, options)


def _schedule(spark: SparkSession, table: ServiceTable, options: Mapping[str, str]) -> Instant | None:
    path = table.uri
    busy = held_file_groups(table.timeline, ("compaction", LOG_COMPACTION, "clustering"))
    completed = {i.requested_time for i in table.timeline.instants() if i.is_completed}
    threshold = o.LOG_COMPACTION_BLOCKS_THRESHOLD.get(options)
    chosen = [s for s in view.latest_file_slices(spark, path, None, options)
              if s.logs and (s.partition, s.file_id) not in busy and block_count(table, s, completed) >= threshold]
    if not chosen:
        return None
    max_file = o.MAX_FILE_SIZE.get(options)
    ops = [c.operation(max_file) for c in compaction.candidates(table, chosen)]
    plan = {"operations": ops, "extraMetadata": {}, "version": 2,
            "strategy": {"compactorClassName": COMPACTOR, "strategyParams": {}, "version": 1},
            "preserveHoodieMetadata": True, "missingSchedulePartitions": []}
    requested = table.timeline.create_requested(LOG_COMPACTION, im.encode(im.COMPACTION_PLAN, plan))
    crash_point("after_requested")
    log.info("scheduled log compaction %s of %d file slices in %s", requested.requested_time, len(chosen), path)
    return requested


def may_have_work(path: str, options: Mapping[str, str] | None = None) -> bool:
    """Whether `log_compact` could do anything, without Spark: a pending plan, or a deltacommit completed since
    the last compaction (it may have written the log blocks that reach the threshold)."""
    pending = compaction.pending_compactions(compaction.mor_table(path, checked(options)), LOG_COMPACTION)
    return bool(pending) or compaction.may_have_work(path)


def log_compact(spark: SparkSession, path: str, options: Mapping[str, str] | None = None, *,
                instant: str | None = None, schedule_only: bool = False,
                progress: Progress = no_progress) -> list[str]:
    """Runs `instant` (a pending log compaction), or every pending one, oldest first, and - when none is
    pending - schedules one and runs it; `schedule_only` stops after scheduling. Returns the instant times."""
    options = checked(options)
    pending = compaction.pending_compactions(compaction.mor_table(path), LOG_COMPACTION)
    return run_planned(pending, instant, schedule_only, lambda: schedule(spark, path, options),
                       lambda t: compaction.execute(spark, path, t, options, progress, action=LOG_COMPACTION))


def run_inline(spark: SparkSession, path: str, options: Mapping[str, str]) -> list[str]:
    """After a write, with hoodie.log.compaction.inline (off by default, as in Apache Hudi): pending log
    compactions run, then one is scheduled and run when a slice has enough log blocks."""
    table = ServiceTable.open(path)
    if not (table.is_merge_on_read and o.LOG_COMPACT_INLINE.get(options)):
        return []
    return log_compact(spark, path, options)
