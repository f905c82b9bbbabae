"""Clustering: small base files of a partition stitched into fewer, bigger ones, records sorted by the
sort columns (linear, z-order or Hilbert), so later scans open fewer files and prune better.

Timeline: `<t>.clustering.requested` (HoodieRequestedReplaceMetadata with its HoodieClusteringPlan) ->
`<t>.clustering.inflight` -> `<t>_<c>.replacecommit`, which replaces the input file groups. Records keep
their commit times; the metadata table gets the new files' column statistics. While a plan is pending,
writes refuse to update records of its file groups (Hudi's SparkRejectUpdateStrategy).
"""
from __future__ import annotations

import logging
import math
from typing import Mapping

from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F
from pyspark.sql.window import Window

from pyhudi.avro import schema as avro_schema
from pyhudi.config import options as o
from pyhudi.config import read_keys
from pyhudi.errors import HudiError
from pyhudi.faults import crash_point
from pyhudi.services import layout
from pyhudi.services.instant import (
    Progress,
    ServiceTable,
    attempt,
    checked,
    commit,
    no_progress,
    run_planned,
)
from pyhudi.table import file_names
from pyhudi.table import instant_metadata as im
from pyhudi.table.file_slices import FileSlice, committed_rule, file_id_and_instant
from pyhudi.table.pending_plans import clustering_slices, held_file_groups, requested_plan
from pyhudi.table.timeline import Instant
from pyhudi.table.write_stat import by_partition
from pyhudi.write import executor, own_records, record_index, view
from pyhudi.write.executor import WriteTask
from pyhudi.write.schema_evolution import current_schema
from pyhudi.write.tagged import BASE, FG, OLD, OP, SORT

log = logging.getLogger(__name__)

MB = 1024 * 1024
PLAN_STRATEGY = "org.apache.hudi.client.clustering.plan.strategy.SparkSizeBasedClusteringPlanStrategy"
EXECUTION_STRATEGY = "org.apache.hudi.client.clustering.run.strategy.SparkSortAndSizeExecutionStrategy"
_GROUP, _TILE = "_hudi_cg", "_hudi_ct"


class ClusteringError(HudiError, ValueError):
    pass


def pending_clusterings(table: ServiceTable) -> list[Instant]:
    return [i for i in table.timeline.pending() if i.action == "clustering"]


# ---- planning ----------------------------------------------------------------------------------

def may_have_work(path: str, options: Mapping[str, str] | None = None) -> bool:
    """Whether `cluster` could plan or run anything, without Spark: a pending plan, or a partition whose latest
    committed base files below the small-file limit could make a group (`_groups`' rule). File groups a plan
    holds or a replace retired still count: it may say yes to nothing, never no to work."""
    options = checked(options)
    table = ServiceTable.open(path, options)
    if pending_clusterings(table):
        return True
    committed = committed_rule(table.timeline.instants())
    limit, enough = o.CLUSTERING_SMALL_FILE_LIMIT.get(options), 1 if o.CLUSTERING_SORT_COLUMNS.get(options) else 2
    for files in table.files().values():
        latest: dict[str, tuple[str, int]] = {}  # file id -> (instant, bytes) of its newest committed base file
        for name, size in files.items():
            parsed = file_id_and_instant(name)
            if parsed and not parsed[2] and committed(parsed[1]) and parsed[1] >= latest.get(parsed[0], ("",))[0]:
                latest[parsed[0]] = (parsed[1], size)
        if sum(size < limit for _, size in latest.values()) >= enough:
            return True
    return False


def _groups(slices: list[FileSlice], options: Mapping[str, str]) -> list[list[FileSlice]]:
    """Small slices binned per partition, biggest first, into groups of at most max.bytes.per.group; a
    group of one slice has nothing to stitch unless it is to be sorted."""
    max_bytes, sorted_by = o.CLUSTERING_MAX_GROUP_BYTES.get(options), o.CLUSTERING_SORT_COLUMNS.get(options)
    out: list[list[FileSlice]] = []
    for partition in sorted({s.partition for s in slices}):
        group: list[FileSlice] = []
        size = 0
        for s in sorted((s for s in slices if s.partition == partition), key=lambda s: -(s.base_size or 0)):
            if group and size + (s.base_size or 0) > max_bytes:
                out.append(group)
                group, size = [], 0
            group.append(s)
            size += s.base_size or 0
        if group:
            out.append(group)
    return [g for g in out if len(g) > 1 or sorted_by][:o.CLUSTERING_MAX_GROUPS.get(options)]


def _group_record(group: list[FileSlice], options: Mapping[str, str]) -> dict:
    size = sum(s.base_size or 0 for s in group)
    outputs = max(1, math.ceil(size / o.CLUSTERING_TARGET_FILE_BYTES.get(options)))
    return {"slices": [{"dataFilePath": s.base, "deltaFilePaths": list(s.logs), "fileId": s.file_id,
                        "partitionPath": s.partition, "bootstrapFilePath": None, "version": 1} for s in group],
            "metrics": {"TOTAL_IO_READ_MB": float(size // MB), "TOTAL_IO_WRITE_MB": float(size // MB),
                        "TOTAL_IO_MB": float(2 * (size // MB)),
                        "TOTAL_LOG_FILES": float(sum(len(s.logs) for s in group))},
            "numOutputFileGroups": outputs, "extraMetadata": None, "version": 1}


def schedule(spark: SparkSession, path: str, options: Mapping[str, str] | None = None) -> Instant | None:
    """Writes a clustering plan over the partitions' base files below the small-file limit (outside
    pending compaction and clustering plans); None when nothing needs clustering."""
    options = dict(options or {})
    table = ServiceTable.open(path, options)
    with table.locked():  # no writer commits while the plan is made (several writers)
        return _schedule(spark, table, options)


def _schedule(spark: SparkSession, table: ServiceTable, options: Mapping[str, str]) -> Instant | None:
    path = table.uri
    held = held_file_groups(table.timeline)
    limit = o.CLUSTERING_SMALL_FILE_LIMIT.get(options)
    slices = [s for s in view.latest_file_slices(spark, table.uri, None, options)
              if s.base and (s.base_size or 0) < limit and (s.partition, s.file_id) not in held]
    groups = _groups(slices, options)
    if not groups:
        return None
    sort_columns = o.CLUSTERING_SORT_COLUMNS.get(options)
    params = {o.CLUSTERING_SORT_COLUMNS.key: ",".join(sort_columns)} if sort_columns else {}
    params[o.LAYOUT_STRATEGY.key] = o.LAYOUT_STRATEGY.get(options)
    plan = {"inputGroups": [_group_record(g, options) for g in groups],
            "strategy": {"strategyClassName": EXECUTION_STRATEGY, "strategyParams": params, "version": 1},
            "extraMetadata": {}, "version": 1, "preserveHoodieMetadata": True, "missingSchedulePartitions": []}
    requested = table.timeline.create_requested("clustering", im.encode(im.REQUESTED_REPLACE, {
        "operationType": "CLUSTER", "clusteringPlan": plan, "extraMetadata": {}, "version": 1}))
    crash_point("after_requested")
    log.info("scheduled clustering %s of %d groups in %s", requested.requested_time, len(groups), path)
    return requested


# ---- execution ---------------------------------------------------------------------------------

def _with_sort_key(rows: DataFrame, columns: list[str], strategy: str) -> tuple[DataFrame, tuple[str, ...]]:
    """Rows with the columns they are ordered by: the sort columns themselves (linear), or SORT, their
    position on the space-filling curve."""
    if not columns or strategy == "linear":
        return rows, tuple(columns)

    @F.pandas_udf("binary")  # type: ignore[call-overload]  # pyspark's stubs lack this form (no functionType)
    def key(*cols):
        import pandas as pd
        return pd.Series([layout.curve_key(v, strategy) for v in zip(*(c.tolist() for c in cols))])

    return rows.withColumn(SORT, key(*[F.col(c) for c in columns])), (SORT,)


def execute(spark: SparkSession, path: str, instant: str, options: Mapping[str, str] | None = None,
            progress: Progress = no_progress) -> Instant:
    """Runs the pending clustering `instant`: each input group's records (read through the connector)
    are sorted and written to the group's new file groups; the input groups are replaced."""
    options = dict(options or {})
    table = ServiceTable.open(path, options)
    pending = {i.requested_time: i for i in pending_clusterings(table)}
    if instant not in pending:
        raise ClusteringError(f"{instant} is not a pending clustering of {path}; pending: "
                              f"{', '.join(pending) or 'none'} (schedule one with pyhudi cluster --schedule)")
    plan = requested_plan(table.timeline, pending[instant])["clusteringPlan"]
    with attempt(table, pending[instant]) as inflight:
        crash_point("after_inflight")
        return _run(spark, table, inflight, plan, options, progress)


def _run(spark: SparkSession, table: ServiceTable, inflight: Instant, plan: dict, options: Mapping[str, str],
         progress: Progress) -> Instant:
    instant = inflight.requested_time
    groups = plan["inputGroups"] or []
    progress(f"clustering {len(groups)} groups of {instant}")
    params = (plan.get("strategy") or {}).get("strategyParams") or {}
    sort_columns = [c for c in params.get(o.CLUSTERING_SORT_COLUMNS.key, "").split(",") if c]
    strategy = params.get(o.LAYOUT_STRATEGY.key, "linear")
    schema = current_schema(table.storage, table.base, table.props)
    stats = _write(spark, table, instant, groups, schema, sort_columns, strategy, options)
    crash_point("after_files")
    replaced: dict[str, list[str]] = {}
    for s in clustering_slices({"clusteringPlan": plan}):
        replaced.setdefault(s["partitionPath"], []).append(s["fileId"])
    commit_schema = avro_schema.to_json(avro_schema.to_writer_style(schema))
    meta = im.replace_commit_metadata(by_partition(stats), "CLUSTER", commit_schema, replaced)
    done = commit(table, inflight, im.REPLACE_COMMIT, meta, write_stats=stats, replaced=replaced,
                  schema=commit_schema, record_index=lambda mdt: record_index.moved_to(spark, table, stats, mdt))
    table.storage.delete(f"{table.base}/.hoodie/.temp/{instant}")
    progress(f"clustering {instant} completed: {len(stats)} files written, "
             f"{sum(len(v) for v in replaced.values())} file groups replaced")
    return done


def _write(spark: SparkSession, table: ServiceTable, instant: str, groups: list[dict], schema: dict,
           sort_columns: list[str], strategy: str, options: Mapping[str, str]) -> list:
    """Each group's records into its new file groups: split by ranges of the sort order, sorted in each."""
    rows = (spark.read.format("hudi-meta").options(**own_records.READ_OPTIONS)
            .option(read_keys.CLUSTERING_INSTANT, instant).load(table.uri))
    missing = [c for c in sort_columns if c not in rows.columns]
    if missing:
        raise ClusteringError(f"sort column(s) {', '.join(missing)} ({o.CLUSTERING_SORT_COLUMNS.key}) are not "
                              f"columns of the table; its columns: {', '.join(rows.columns)}")
    members = [(s["fileId"], gi) for gi, g in enumerate(groups) for s in g["slices"] or ()]
    outputs = [(gi, k, file_names.new_file_id()) for gi, g in enumerate(groups)
               for k in range(1, (g.get("numOutputFileGroups") or 1) + 1)]
    counts = {gi: g.get("numOutputFileGroups") or 1 for gi, g in enumerate(groups)}
    member_df = spark.createDataFrame(members, f"_hudi_mf string, {_GROUP} int")
    output_df = spark.createDataFrame(outputs, f"_hudi_og int, _hudi_ok int, {FG} string")
    rows = rows.join(F.broadcast(member_df), own_records.file_id_of(F.col("_hoodie_file_name")) == F.col(
        "_hudi_mf")).drop("_hudi_mf")
    rows, sort_by = _with_sort_key(rows, sort_columns, strategy)
    if max(counts.values()) > 1:
        order = [F.col(c) for c in sort_by] or [F.col("_hoodie_record_key")]
        tiles = F.ntile(max(counts.values())).over(Window.partitionBy(_GROUP).orderBy(*order))
        size = F.element_at(F.create_map(*[F.lit(x) for kv in counts.items() for x in kv]), F.col(_GROUP))
        rows = rows.withColumn(_TILE, F.ceil(tiles * size / max(counts.values())).cast("int"))
    else:
        rows = rows.withColumn(_TILE, F.lit(1))
    work = (rows.join(F.broadcast(output_df), (F.col(_GROUP) == F.col("_hudi_og")) & (F.col(_TILE) == F.col(
        "_hudi_ok"))).drop(_GROUP, _TILE, "_hudi_og", "_hudi_ok")
        .withColumn(OP, F.lit(OLD)).withColumn(BASE, F.lit(None).cast("string")))
    writer_schema = avro_schema.to_json(avro_schema.with_meta_fields(avro_schema.to_writer_style(schema)))
    task = WriteTask(table.uri, instant, writer_schema, "COPY_ON_WRITE", None, False,
                     o.LOG_BLOCK_FORMAT.get(options), o.COMPRESSION.get(options), sort_by=sort_by)
    return executor.write_groups(work, task, max(1, len(outputs)))


# ---- entry points ------------------------------------------------------------------------------

def cluster(spark: SparkSession, path: str, options: Mapping[str, str] | None = None, *,
            instant: str | None = None, schedule_only: bool = False, progress: Progress = no_progress) -> list[str]:
    """Runs `instant`, or every pending clustering, oldest first, and - when none is pending - schedules
    one and runs it; `schedule_only` stops after scheduling. Returns the instant times."""
    options = checked(options)
    return run_planned(pending_clusterings(ServiceTable.open(path)), instant, schedule_only,
                       lambda: schedule(spark, path, options), lambda t: execute(spark, path, t, options, progress))


def is_due(table: ServiceTable, options: Mapping[str, str]) -> bool:
    """hoodie.clustering.inline.max.commits commits since the last clustering (completed or pending)."""
    instants = table.timeline.instants()
    last = max((i.requested_time for i in instants if i.action == "clustering" or (
        i.action == "replacecommit" and i.is_completed and _is_clustering(table, i))), default="")
    commits = [i for i in instants if i.is_completed and i.action in ("commit", "deltacommit", "replacecommit")
               and i.requested_time > last]
    return len(commits) >= o.CLUSTERING_MAX_COMMITS.get(options)


def _is_clustering(table: ServiceTable, inst: Instant) -> bool:
    # a completed clustering keeps its requested file under the clustering action (layout 2)
    return table.storage.exists(f"{table.timeline.dir}/{inst.requested_time}.clustering.requested")


def run_inline(spark: SparkSession, path: str, options: Mapping[str, str]) -> list[str]:
    """After a write (hoodie.clustering.inline / hoodie.clustering.schedule.inline), when due."""
    inline, schedule_only = o.CLUSTERING_INLINE.get(options), o.CLUSTERING_SCHEDULE_INLINE.get(options)
    if not (inline or schedule_only) or not is_due(ServiceTable.open(path), options):
        return []
    return cluster(spark, path, options, schedule_only=schedule_only and not inline)
