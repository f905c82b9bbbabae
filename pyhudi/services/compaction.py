"""Compaction of a merge-on-read table: each planned file slice (base file + log files) is read merged
through the connector and written as the slice's new base file at the compaction's instant.

Timeline: `<t>.compaction.requested` (HoodieCompactionPlan) -> `<t>.compaction.inflight` -> `<t>_<c>.commit`.
Writers go on while a plan is pending: their log files carry later instants, so they join the slice the
compaction opens (pyhudi.table.file_slices), never the slice being compacted. A compaction that died
inflight is rolled back from its markers to requested and run again from its plan.
"""
from __future__ import annotations

import datetime as dt
import logging
import posixpath
from dataclasses import dataclass
from typing import Mapping

from pyspark.sql import SparkSession
from pyspark.sql import functions as F

from pyhudi.avro import schema as avro_schema
from pyhudi.config import options as o
from pyhudi.config import read_keys
from pyhudi.errors import HudiError
from pyhudi.faults import crash_point
from pyhudi.services.instant import (
    Progress,
    ServiceTable,
    attempt,
    checked,
    commit,
    no_progress,
    run_each,
    run_planned,
)
from pyhudi.table import instant_metadata as im
from pyhudi.table import properties
from pyhudi.table.file_slices import FileSlice
from pyhudi.table.pending_plans import held_file_groups, requested_plan
from pyhudi.table.timeline import Instant, parse_instant_time
from pyhudi.table.write_stat import by_partition
from pyhudi.write import executor, own_records, view
from pyhudi.write.executor import WriteTask
from pyhudi.write.schema_evolution import current_schema
from pyhudi.write.tagged import BASE, DELETE, FG, OLD, OP, UPDATE

log = logging.getLogger(__name__)

MB = 1024 * 1024
COMPACTION, LOG_COMPACTION = "compaction", "logcompaction"
# the connector's read of the slices a pending plan of each action names
PLAN_READS = {COMPACTION: read_keys.COMPACTION_INSTANT, LOG_COMPACTION: read_keys.LOG_COMPACTION_INSTANT}
COMMANDS = {COMPACTION: "compact", LOG_COMPACTION: "log-compact"}  # the CLI's
STRATEGY_PREFIX = "org.apache.hudi.table.action.compact.strategy."
BY_LOG_SIZE, BY_LOG_COUNT, UNBOUNDED = (STRATEGY_PREFIX + n for n in (
    "LogFileSizeBasedCompactionStrategy", "LogFileNumBasedCompactionStrategy", "UnBoundedCompactionStrategy"))


class CompactionError(HudiError, ValueError):
    pass


@dataclass(frozen=True)
class Candidate:
    slice: FileSlice
    log_bytes: int

    def operation(self, max_file_size: int) -> dict:
        """The plan's HoodieCompactionOperation, with Hudi's IO metrics."""
        s = self.slice
        base = s.base_size or 0
        read_mb, write_mb = (base + self.log_bytes) // MB, (base if s.base else max_file_size) // MB
        return {"baseInstantTime": s.base_instant, "deltaFilePaths": list(s.logs), "dataFilePath": s.base,
                "fileId": s.file_id, "partitionPath": s.partition,
                "metrics": {"TOTAL_LOG_FILES": float(len(s.logs)), "TOTAL_IO_MB": float(read_mb + write_mb),
                            "TOTAL_IO_READ_MB": float(read_mb), "TOTAL_LOG_FILES_SIZE": float(self.log_bytes),
                            "TOTAL_IO_WRITE_MB": float(write_mb)},
                "bootstrapFilePath": None}


# ---- scheduling --------------------------------------------------------------------------------

def pending_compactions(table: ServiceTable, action: str = COMPACTION) -> list[Instant]:
    return [i for i in table.timeline.pending() if i.action == action]


def plan_of(table: ServiceTable, instant: Instant) -> dict:
    return requested_plan(table.timeline, instant)


def candidates(table: ServiceTable, slices: list[FileSlice]) -> list[Candidate]:
    """`slices` with the bytes of their log files, from one batch of file-info calls."""
    paths = [posixpath.join(table.base, s.partition, n) for s in slices for n in s.logs]
    infos = table.storage.fs.get_file_info(paths) if paths else []
    sizes = {posixpath.relpath(i.path, table.base): i.size or 0 for i in infos}
    return [Candidate(s, sum(sizes.get(posixpath.join(s.partition, n), 0) for n in s.logs)) for s in slices]


def _select(candidates: list[Candidate], options: Mapping[str, str]) -> list[Candidate]:
    """The slices a plan takes, in the strategy's order, within hoodie.compaction.target.io."""
    strategy = o.COMPACTION_STRATEGY.get(options)
    if strategy == UNBOUNDED:
        return candidates
    if strategy == BY_LOG_COUNT:
        floor = o.COMPACTION_LOG_NUM_THRESHOLD.get(options)
        chosen = sorted((c for c in candidates if len(c.slice.logs) >= floor), key=lambda c: -len(c.slice.logs))
    else:
        floor = o.COMPACTION_LOG_SIZE_THRESHOLD.get(options)
        chosen = sorted((c for c in candidates if c.log_bytes >= floor), key=lambda c: -c.log_bytes)
    budget = o.COMPACTION_TARGET_IO.get(options)
    out: list[Candidate] = []
    max_file = o.MAX_FILE_SIZE.get(options)
    for c in chosen:
        io_mb = c.operation(max_file)["metrics"]["TOTAL_IO_MB"]
        if out and io_mb > budget:
            break
        budget -= io_mb
        out.append(c)
    return out


def schedule(spark: SparkSession, path: str, options: Mapping[str, str] | None = None) -> Instant | None:
    """Writes a compaction plan over the latest file slices that have log files (outside pending
    compaction and clustering plans); None when no slice needs compacting."""
    options = dict(options or {})
    table = mor_table(path, options)
    with table.locked():  # no writer commits while the plan is made (several writers)
        return _schedule(spark, table, options)


def _schedule(spark: SparkSession, table: ServiceTable, options: Mapping[str, str]) -> Instant | None:
    path = table.uri
    busy = held_file_groups(table.timeline)
    slices = [s for s in view.latest_file_slices(spark, path, None, options)
              if s.logs and (s.partition, s.file_id) not in busy]
    chosen = _select(candidates(table, slices), options)
    if not chosen:
        return None
    max_file = o.MAX_FILE_SIZE.get(options)
    plan = {"operations": [c.operation(max_file) for c in chosen], "extraMetadata": {}, "version": 2,
            "strategy": None, "preserveHoodieMetadata": True, "missingSchedulePartitions": []}
    requested = table.timeline.create_requested("compaction", im.encode(im.COMPACTION_PLAN, plan))
    crash_point("after_requested")
    log.info("scheduled compaction %s of %d file slices in %s", requested.requested_time, len(chosen), path)
    return requested


def mor_table(path: str, options: Mapping[str, str] | None = None) -> ServiceTable:
    table = ServiceTable.open(path, options)
    if not table.is_merge_on_read:
        raise CompactionError(f"{path} is a {table.props.get(properties.TYPE)} table; compaction merges the "
                              "log files of MERGE_ON_READ tables (a copy-on-write table has none)")
    return table


# ---- execution ---------------------------------------------------------------------------------

def execute(spark: SparkSession, path: str, instant: str, options: Mapping[str, str] | None = None,
            progress: Progress = no_progress, action: str = COMPACTION) -> Instant:
    """Runs the pending compaction `instant`: rolls back a previous attempt that died, then writes every
    planned slice's merged records as its new base file and completes the instant as a commit. With
    `action` "logcompaction", each slice's log records are merged into one new log file of the slice and the
    instant completes as a deltacommit (pyhudi.services.log_compaction)."""
    options = dict(options or {})
    table = mor_table(path, options)
    pending = {i.requested_time: i for i in pending_compactions(table, action)}
    if instant not in pending:
        raise CompactionError(f"{instant} is not a pending {action} of {path}; pending: {', '.join(pending) or 'none'}"
                              f" (schedule one with pyhudi {COMMANDS[action]} --schedule)")
    ops = plan_of(table, pending[instant])["operations"] or []
    with attempt(table, pending[instant]) as inflight:
        crash_point("after_inflight")
        progress(f"{action}: merging {len(ops)} file slices of {instant}")
        schema = current_schema(table.storage, table.base, table.props)
        stats = _write_slices(spark, table, inflight, ops, schema, options)
        crash_point("after_files")
        commit_schema = avro_schema.to_json(avro_schema.to_writer_style(schema))
        operation = "COMPACT" if action == COMPACTION else "LOG_COMPACT"
        meta = im.commit_metadata(by_partition(stats), operation, commit_schema, compacted=True)
        done = commit(table, inflight, im.COMMIT, meta, write_stats=stats, schema=commit_schema)
    table.storage.delete(posixpath.join(table.base, ".hoodie", ".temp", instant))
    progress(f"{action} {instant} completed: {len(stats)} files written")
    return done


def _write_slices(spark: SparkSession, table: ServiceTable, instant: Instant, ops: list[dict], schema: dict,
                  options: Mapping[str, str]) -> list:
    """The merged records of the planned slices (read through the connector), one new base file per
    file group; a group whose records are all deleted gets none (its slice stays, reading as empty).
    A log compaction's: each slice's log records and deletes, one new log file per file group."""
    rows = (spark.read.format("hudi-meta").options(**own_records.READ_OPTIONS)
            .option(PLAN_READS[instant.action], instant.requested_time).load(table.uri))
    bases = spark.createDataFrame([(op["fileId"], op.get("dataFilePath")) for op in ops] or [("", None)],
                                  f"{FG}_b string, {BASE} string")
    if instant.action == COMPACTION:
        rows = rows.withColumn(FG, own_records.file_id_of(F.col("_hoodie_file_name"))).withColumn(OP, F.lit(OLD))
    else:  # the columns the connector's log compaction read adds (LogCompactionReader)
        rows = (rows.withColumnRenamed("_hudi_file_id", FG)
                .withColumn(OP, F.when(F.col("_hudi_deleted"), F.lit(DELETE)).otherwise(F.lit(UPDATE)))
                .drop("_hudi_deleted"))
    work = rows.join(F.broadcast(bases), F.col(FG) == F.col(f"{FG}_b"), "left").drop(f"{FG}_b")
    writer_schema = avro_schema.to_json(avro_schema.with_meta_fields(avro_schema.to_writer_style(schema)))
    ordering = table.props.get(properties.PRECOMBINE_FIELD) or table.props.get(properties.ORDERING_FIELDS)
    task = WriteTask(table.uri, instant.requested_time, writer_schema, "MERGE_ON_READ", ordering, False,
                     o.LOG_BLOCK_FORMAT.get(options), o.COMPRESSION.get(options))
    tasks = o.UPSERT_PARALLELISM.get(options) or 2 * spark.sparkContext.defaultParallelism
    return executor.write_groups(work, task, tasks)


# ---- entry points ------------------------------------------------------------------------------

def compact(spark: SparkSession, path: str, options: Mapping[str, str] | None = None, *,
            instant: str | None = None, schedule_only: bool = False,
            progress: Progress = no_progress) -> list[str]:
    """Runs `instant` (a pending compaction), or every pending compaction, oldest first, and - when none
    is pending - schedules one and runs it; `schedule_only` stops after scheduling. Returns the instant
    times compacted (or scheduled)."""
    options = checked(options)
    return run_planned(pending_compactions(mor_table(path)), instant, schedule_only,
                       lambda: schedule(spark, path, options), lambda t: execute(spark, path, t, options, progress))


def may_have_work(path: str) -> bool:
    """Whether `compact` could do anything, from the timeline alone (no Spark): a pending plan, or a deltacommit
    completed since the last compaction was requested (it may have written log files)."""
    table = mor_table(path)
    if pending_compactions(table):
        return True
    instants = table.timeline.instants()
    last = max((i.requested_time for i in instants if i.is_completed and i.action == "commit"), default="")
    return any(i.is_completed and i.action == "deltacommit" and (i.completion_time or i.requested_time) > last
               for i in instants)


def is_due(table: ServiceTable, options: Mapping[str, str]) -> bool:
    """Apache Hudi's inline trigger (hoodie.compact.inline.trigger.strategy), from the timeline alone."""
    instants = table.timeline.instants()
    done = [i for i in instants if i.is_completed and i.action == "commit"]  # completed compactions
    requested = [i for i in instants if i.action == "compaction"] + done
    strategy = o.COMPACT_TRIGGER.get(options)
    since = max((i.requested_time for i in (requested if strategy == "NUM_COMMITS_AFTER_LAST_REQUEST" else done)),
                default="")
    deltas = [i for i in instants if i.is_completed and i.action == "deltacommit" and i.requested_time > since]
    by_count = len(deltas) >= o.COMPACT_MAX_DELTA_COMMITS.get(options)
    start = since or min((i.requested_time for i in instants), default="")
    elapsed = (dt.datetime.now() - parse_instant_time(start)).total_seconds() if start else 0
    by_time = bool(deltas) and elapsed >= o.COMPACT_MAX_DELTA_SECONDS.get(options)
    return {"TIME_ELAPSED": by_time, "NUM_OR_TIME": by_count or by_time,
            "NUM_AND_TIME": by_count and by_time}.get(strategy, by_count)


def run_inline(spark: SparkSession, path: str, options: Mapping[str, str]) -> list[str]:
    """After a write (hoodie.compact.inline / hoodie.compact.schedule.inline): pending compactions run,
    then - when due - one is scheduled (and run, unless only scheduling is asked for)."""
    table = ServiceTable.open(path)
    inline = o.COMPACT_INLINE.get(options)
    inline = table.is_merge_on_read if inline is None else inline
    schedule_only = o.COMPACT_SCHEDULE_INLINE.get(options) and not inline
    if not table.is_merge_on_read or not (inline or schedule_only):
        return []
    done = [] if schedule_only else run_each([i.requested_time for i in pending_compactions(table)],
                                             lambda t: execute(spark, path, t, options))
    if not is_due(ServiceTable.open(path), options):
        return done
    return done + compact(spark, path, options, schedule_only=schedule_only)
