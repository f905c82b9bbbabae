"""SQL `CALL` procedures with Apache Hudi's names, arguments and result columns, run by pyhudi.

The connector (io.hudimeta.spark.procedures) declares each procedure's parameters and columns, resolves
`table` to its base path and calls :func:`run` through the py4j callback (pyhudi.spark.bridge) with the other
arguments as text. Each procedure here drives what the CLI drives (pyhudi.cli) and returns its rows as dicts
keyed by result column. show_fsview_latest runs in the connector (it reads the JVM's synced view).
"""
from __future__ import annotations

import json
import logging
import time
from typing import Any, Callable, Mapping, overload

from pyhudi.config import options as o
from pyhudi.errors import HudiError
from pyhudi.metadata import of_table
from pyhudi.services import archival, clean, clustering, compaction, restore, rollback, savepoint
from pyhudi.services.instant import ServiceTable, checked, run_each
from pyhudi.spark import metadata_procedures
from pyhudi.storage import Storage
from pyhudi.table import instant_metadata as im
from pyhudi.table import properties
from pyhudi.table.file_slices import listing_from_storage
from pyhudi.table.pending_plans import clustering_slices, requested_plan
from pyhudi.table.timeline import WRITE_ACTIONS, Instant

log = logging.getLogger(__name__)

Row = dict[str, Any]
Args = Mapping[str, str]


class ProcedureError(HudiError, ValueError):
    pass


def run(spark, name: str, path: str, args: Args) -> list[Row]:
    """The rows of procedure `name` on the table at `path`; `args` holds the given (or defaulted) arguments."""
    procedure = PROCEDURES.get(name)
    if procedure is None:
        raise ProcedureError(f"no procedure {name!r}; pyhudi runs {', '.join(sorted(PROCEDURES))}")
    return procedure(spark, path, args)


# ---- arguments -----------------------------------------------------------------------------------

@overload
def _int(args: Args, key: str, default: int) -> int: ...
@overload
def _int(args: Args, key: str, default: None = None) -> int | None: ...
def _int(args: Args, key: str, default: int | None = None) -> int | None:
    return int(args[key]) if args.get(key) is not None else default


def _flag(args: Args, key: str) -> bool:
    return str(args.get(key, "false")).lower() == "true"


def _options(args: Args, named: Mapping[str, str] | None = None) -> dict[str, str]:
    """Hudi's `options => 'k1=v1,k2=v2'` plus the arguments that stand for an option key (`named`: argument ->
    option key), checked as a service checks its options."""
    out = {key: args[arg] for arg, key in (named or {}).items() if args.get(arg) is not None}
    for pair in filter(None, (args.get("options") or "").split(",")):
        key, sep, value = pair.partition("=")
        if not sep:
            raise ProcedureError(f"options => {args['options']!r}: {pair!r} is not key=value")
        out[key.strip()] = value.strip()
    return checked(out)


OPERATIONS = {"schedule": (True, False), "execute": (False, True), "scheduleandexecute": (True, True)}


def _operation(op: str | None) -> str:
    """Hudi's HoodieProcedureUtils.Operation of an `op` argument (scheduleAndExecute when absent; 'run' is
    its other name), refused by name before anything else is looked at."""
    name = (op or "scheduleAndExecute").lower()
    name = "scheduleandexecute" if name == "run" else name
    if name not in OPERATIONS:
        raise ProcedureError(f"op => {op!r}: use 'schedule', 'execute' or 'scheduleAndExecute' (or 'run')")
    return name


def _pending_to_run(pending: list[str], args: Args, op: str | None) -> tuple[list[str], bool, bool]:
    """Hudi's HoodieProcedureUtils.filterPendingInstantsAndGetOperation: (pending instants to run, schedule?,
    execute?). Given `instants` run just those (op must be execute); else op decides, scheduleAndExecute by
    default, and `limit` caps the pending ones run."""
    if args.get("instants"):
        if op is not None and op.lower() != "execute":
            raise ProcedureError("instants => ... only goes with op => 'execute' (or no op)")
        wanted = sorted(t.strip() for t in args["instants"].split(",") if t.strip())
        unknown = [t for t in wanted if t not in pending]
        if unknown:
            raise ProcedureError(f"instants {', '.join(unknown)} are not pending "
                                 f"(pending: {', '.join(pending) or 'none'})")
        return wanted, False, True
    op = _operation(op)
    limit = _int(args, "limit")
    return ([] if op == "schedule" else pending[:limit] if limit is not None else pending), *OPERATIONS[op]


# ---- commits -------------------------------------------------------------------------------------

def _commit_metadata(table: ServiceTable, inst: Instant) -> dict:
    return im.decode(table.timeline.read(inst), layout_version=table.timeline.layout)


def _completed_commit(table: ServiceTable, instant: str) -> Instant:
    found = [i for i in table.timeline.completed(WRITE_ACTIONS) if i.requested_time == instant]
    if not found:
        raise ProcedureError(f"commit {instant} not found among the completed commits of {table.base}")
    return found[0]


def show_commits(spark, path: str, args: Args) -> list[Row]:
    """Hudi's ShowCommitsProcedure: completed commits, newest first, totals of their write stats."""
    table = ServiceTable.open(path)
    commits = sorted(table.timeline.completed(WRITE_ACTIONS), key=lambda i: i.requested_time, reverse=True)
    return [_commit_row(table, i) for i in commits[: _int(args, "limit", 10)]]


def _commit_row(table: ServiceTable, inst: Instant) -> Row:
    meta = _commit_metadata(table, inst)
    stats = [s for _, s in im.write_stats(meta)]
    # HoodieCommitMetadata.fetchTotalFilesInsert/Updated: a stat's prevCommit is "null" for a new file
    added = sum(1 for s in stats if str(s.get("prevCommit")).lower() == "null")
    return {"commit_time": inst.requested_time, "state_transition_time": inst.completion_time,
            "action": inst.action, "total_bytes_written": _total(stats, "totalWriteBytes"),
            "total_files_added": added,
            "total_files_updated": sum(1 for s in stats if s.get("prevCommit") is not None) - added,
            "total_partitions_written": len(meta.get("partitionToWriteStats") or {}),
            "total_records_written": _total(stats, "numWrites"),
            "total_update_records_written": _total(stats, "numUpdateWrites"),
            "total_errors": _total(stats, "totalWriteErrors")}


def _total(stats: list[dict], key: str) -> int:
    return sum(s.get(key) or 0 for s in stats)


def show_commit_files(spark, path: str, args: Args) -> list[Row]:
    """Hudi's ShowCommitFilesProcedure: one row per file a completed commit wrote."""
    table = ServiceTable.open(path)
    inst = _completed_commit(table, args["instant_time"])
    rows = [{"action": inst.action, "partition_path": partition, "file_id": s.get("fileId"),
             "previous_commit": s.get("prevCommit"), "total_records_updated": s.get("numUpdateWrites"),
             "total_records_written": s.get("numWrites"), "total_bytes_written": s.get("totalWriteBytes"),
             "total_errors": s.get("totalWriteErrors"), "file_size": s.get("fileSizeInBytes")}
            for partition, s in im.write_stats(_commit_metadata(table, inst))]
    return rows[: _int(args, "limit", 10)]


def rollback_to_instant(spark, path: str, args: Args) -> list[Row]:
    rollback.rollback_commit(path, args["instant_time"])
    return [{"rollback_result": True}]


# ---- compaction and clustering -------------------------------------------------------------------

def _planned_rows(table: ServiceTable, times: list[str], row: Callable[[Instant, dict], Row]) -> list[Row]:
    """One row per instant of `times` as the timeline holds it now (with its plan), newest first."""
    now = {i.requested_time: i for i in ServiceTable.open(table.uri).timeline.instants()}
    return [row(now[t], requested_plan(table.timeline, _pending_form(now[t]))) for t in sorted(times, reverse=True)
            if t in now]


def _pending_form(inst: Instant) -> Instant:
    """The instant under the action its plan was requested with (a completed compaction is a `commit`)."""
    action = {"commit": "compaction", "replacecommit": "clustering"}.get(inst.action, inst.action)
    return Instant(inst.requested_time, action, inst.state)


def _compaction_row(inst: Instant, plan: dict) -> Row:
    return {"timestamp": inst.requested_time, "operation_size": len(plan.get("operations") or ()),
            "state": inst.state.upper()}


def run_compaction(spark, path: str, args: Args) -> list[Row]:
    """Hudi's RunCompactionProcedure: op 'run' is scheduleAndExecute; a timestamp runs that pending plan."""
    op = _operation(args["op"])
    options = _options(args)
    instants = dict(args)
    if args.get("timestamp") is not None and not args.get("instants"):
        instants["instants"], op = args["timestamp"], "execute"
    table = compaction.mor_table(path, options)
    pending = [i.requested_time for i in compaction.pending_compactions(table)]
    times, schedule, execute = _pending_to_run(pending, instants, op)
    if schedule:
        scheduled = compaction.schedule(spark, path, options)
        times = [scheduled.requested_time] if scheduled else times  # Hudi runs the new plan alone
    if execute:
        run_each(times, lambda t: compaction.execute(spark, path, t, options))
    return _planned_rows(table, times, _compaction_row)


def show_compaction(spark, path: str, args: Args) -> list[Row]:
    """Hudi's ShowCompactionProcedure: compactions (pending, and completed as commits), newest first."""
    table = compaction.mor_table(path)
    times = {i.requested_time for i in table.timeline.instant_files() if i.action == "compaction"}  # their plans
    return _planned_rows(table, sorted(times)[-_int(args, "limit", 20):], _compaction_row)


def _clustering_row(show_partitions: bool) -> Callable[[Instant, dict], Row]:
    def row(inst: Instant, plan: dict) -> Row:
        parts = sorted({s["partitionPath"] for s in clustering_slices(plan)})  # a field of every Avro slice info
        return {"timestamp": inst.requested_time, "state": inst.state.upper(),
                "input_group_size": len((plan.get("clusteringPlan") or {}).get("inputGroups") or ()),
                "involved_partitions": ",".join(parts) if show_partitions else "*"}
    return row


def run_clustering(spark, path: str, args: Args) -> list[Row]:
    """Hudi's RunClusteringProcedure: `order` sets the sort columns, `order_strategy` the layout."""
    for unsupported in ("predicate", "selected_partitions"):
        if args.get(unsupported):
            raise ProcedureError(f"run_clustering: {unsupported} is not supported (pyhudi's clustering plans "
                                 "every partition)")
    options = _options(args, {"order": o.CLUSTERING_SORT_COLUMNS.key, "order_strategy": o.LAYOUT_STRATEGY.key})
    table = ServiceTable.open(path, options)
    pending = [i.requested_time for i in clustering.pending_clusterings(table)]
    times, schedule, execute = _pending_to_run(pending, args, args.get("op"))
    if schedule:
        scheduled = clustering.schedule(spark, path, options)
        times = times + [scheduled.requested_time] if scheduled else times  # Hudi runs it with the pending ones
    if execute:
        run_each(times, lambda t: clustering.execute(spark, path, t, options))
    return _planned_rows(table, times, _clustering_row(_flag(args, "show_involved_partition")))


# ---- cleaning, savepoints ------------------------------------------------------------------------

CLEAN_ARGS = {"clean_policy": o.CLEANER_POLICY.key, "retain_commits": o.CLEANER_COMMITS_RETAINED.key,
              "hours_retained": o.CLEANER_HOURS_RETAINED.key,
              "file_versions_retained": o.CLEANER_FILE_VERSIONS_RETAINED.key,
              "trigger_strategy": o.CLEAN_TRIGGER_STRATEGY.key, "trigger_max_commits": o.CLEAN_MAX_COMMITS.key}


def run_clean(spark, path: str, args: Args) -> list[Row]:
    """Hudi's RunCleanProcedure: a clean when one is due (no row when there is nothing to clean)."""
    if not _flag(args, "schedule_in_line"):
        raise ProcedureError("run_clean: schedule_in_line => false is not supported; pyhudi plans and runs a "
                             "clean in one go (and finishes one that died first)")
    done = clean.clean(path, _options(args, CLEAN_ARGS))
    if done is None:
        return []
    table = ServiceTable.open(path)
    meta = im.decode(table.timeline.read(done), im.CLEAN, layout_version=table.timeline.layout)
    return [{"start_clean_time": meta.get("startCleanTime"), "time_taken_in_millis": meta.get("timeTakenInMillis"),
             "total_files_deleted": meta.get("totalFilesDeleted"),
             "earliest_commit_to_retain": meta.get("earliestCommitToRetain"),
             "bootstrap_part_metadata": json.dumps(meta.get("bootstrapPartitionMetadata")),
             "version": meta.get("version")}]


def create_savepoint(spark, path: str, args: Args) -> list[Row]:
    """Hudi's CreateSavepointProcedure: false (and a warning saying why) when the commit cannot be savepointed."""
    try:
        savepoint.create(path, args.get("commit_time") or None, args.get("user", ""), args.get("comments", ""))
    except savepoint.SavepointError as e:
        log.warning("create_savepoint: %s", e)
        return [{"create_savepoint_result": False}]
    return [{"create_savepoint_result": True}]


def rollback_to_savepoint(spark, path: str, args: Args) -> list[Row]:
    """Hudi's RollbackToSavepointProcedure: a restore to the savepoint (default: the latest)."""
    saved = savepoint.savepoint_times(ServiceTable.open(path).timeline)
    if not saved:
        raise ProcedureError(f"{path} has no completed savepoint to roll back to")
    instant = args.get("instant_time") or saved[-1]
    if instant not in saved:
        raise ProcedureError(f"{instant} is not a savepoint of {path} (savepoints: {', '.join(saved)})")
    try:
        restore.restore(path, instant, spark=spark)
    except restore.RestoreError as e:
        log.warning("rollback_to_savepoint: %s", e)
        return [{"rollback_savepoint_result": False}]
    return [{"rollback_savepoint_result": True}]


def show_savepoints(spark, path: str, args: Args) -> list[Row]:
    """Hudi's ShowSavepointsProcedure: the savepoints' instant times, newest first."""
    return [{"savepoint_time": t} for t in reversed(savepoint.savepoint_times(ServiceTable.open(path).timeline))]


def delete_savepoint(spark, path: str, args: Args) -> list[Row]:
    """Hudi's DeleteSavepointProcedure: false (and a warning saying why) when there is no such savepoint."""
    try:
        savepoint.delete(path, args["instant_time"])
    except savepoint.SavepointError as e:
        log.warning("delete_savepoint: %s", e)
        return [{"delete_savepoint_result": False}]
    return [{"delete_savepoint_result": True}]


def show_table_properties(spark, path: str, args: Args) -> list[Row]:
    """Hudi's ShowTablePropertiesProcedure: hoodie.properties as key/value rows, up to `limit`."""
    props = properties.load(*Storage.for_uri(path))
    return [{"key": k, "value": v} for k, v in sorted(props.items())][:_int(args, "limit", 10)]


def archive_commits(spark, path: str, args: Args) -> list[Row]:
    """Hudi's ArchiveCommitsProcedure: archives by min/max commits kept (Hudi's hoodie.keep.* keys); 0 when done."""
    options = {o.KEEP_MIN_COMMITS.key: str(_int(args, "min_commits", 20)),
               o.KEEP_MAX_COMMITS.key: str(_int(args, "max_commits", 30)),
               o.CLEANER_COMMITS_RETAINED.key: str(_int(args, "retain_commits", 10))}
    archival.archive(path, options)
    return [{"result": 0}]


# ---- the metadata table --------------------------------------------------------------------------

def _metadata_writer(path: str):
    mdt = ServiceTable.open(path).metadata_writer()
    if mdt is None:
        raise ProcedureError(f"{path} has no metadata table (create it with `pyhudi metadata create {path}`)")
    return mdt


def create_metadata_table(spark, path: str, args: Args) -> list[Row]:
    """Hudi's CreateMetadataTableProcedure: builds the metadata table from one listing of the table (writers need
    not stop, as `pyhudi metadata create`); refused when the table has one."""
    mdt = of_table(path)
    if mdt.exists():
        raise ProcedureError(f"Metadata directory ({mdt.mdt_path}) not empty: {path} has a metadata table; "
                             "CALL delete_metadata_table first to build it again")
    started = time.monotonic()
    mdt.initialize()
    return [{"result": f"Created Metadata Table in {mdt.mdt_path} (duration={time.monotonic() - started:.3f}secs)"}]


def delete_metadata_table(spark, path: str, args: Args) -> list[Row]:
    """Hudi's DeleteMetadataTableProcedure: the table stops listing its metadata partitions, then the folder
    goes; readers list storage until it is created again."""
    mdt = of_table(path)
    mdt.delete()
    return [{"result": f"Deleted Metadata Table at '{mdt.mdt_path}'"}]


def show_metadata_table_stats(spark, path: str, args: Args) -> list[Row]:
    """Hudi's HoodieMetadataMetrics.getStats: per metadata partition, the sizes and counts of the base and log
    files of its latest slices; then the number of data partitions."""

    mdt = _metadata_writer(path)
    state, stats = mdt.state(), {}
    for part in mdt.partitions():
        sizes = {e.name: e.size for e in mdt.storage.list(f"{mdt.mdt_path}/{part}") if not e.is_dir}
        slices = state.latest(part).values()
        bases = [s.base for s in slices if s.base]
        logs = [name for s in slices for name in s.logs]
        stats.update({f"{part}.totalBaseFileSizeInBytes": sum(sizes.get(b, 0) for b in bases),
                      f"{part}.totalLogFileSizeInBytes": sum(sizes.get(n, 0) for n in logs),
                      f"{part}.baseFileCount": len(bases), f"{part}.logFileCount": len(logs)})
    stats["partitionCount"] = len(mdt.files_listing())
    return [{"stat_key": k, "stat_value": str(v)} for k, v in sorted(stats.items())]


def show_metadata_table_partitions(spark, path: str, args: Args) -> list[Row]:
    """Hudi's ShowMetadataTablePartitionsProcedure: the data partitions the metadata table lists, sorted."""
    return [{"partition": p} for p in _metadata_writer(path).files_listing()]


def show_metadata_table_files(spark, path: str, args: Args) -> list[Row]:
    """Hudi's ShowMetadataTableFilesProcedure: the files the metadata table lists in one data partition ('' for
    a table without partitions), up to `limit`."""
    partition = args.get("partition") or ""
    listing = _metadata_writer(path).files_listing()
    if partition not in listing:
        raise ProcedureError(f"the metadata table of {path} lists no partition {partition!r} (its partitions: "
                             f"{', '.join(repr(p) for p in listing) or 'none'})")
    return [{"file_path": name} for name in sorted(listing[partition])][:_int(args, "limit", 100)]


def validate_metadata_table_files(spark, path: str, args: Args) -> list[Row]:
    """Hudi's ValidateMetadataTableFilesProcedure: the files of each partition as the metadata table and a storage
    listing of committed files see them; only those that differ unless `verbose`."""
    mdt = _metadata_writer(path)
    in_mdt = mdt.files_listing()
    on_storage = {p: {name: size for name, size, _ in files}
                  for p, files in listing_from_storage(mdt.storage, mdt.base_path, mdt.data_timeline()).items()}
    rows = []
    for partition in sorted(set(in_mdt) | set(on_storage)):
        fs, md = on_storage.get(partition, {}), in_mdt.get(partition, {})
        for name in sorted(set(fs) | set(md)):
            row = {"partition": partition, "file_name": name, "is_present_in_fs": name in fs,
                   "is_present_in_metadata": name in md, "fs_size": fs.get(name, 0), "metadata_size": md.get(name, 0)}
            if _flag(args, "verbose") or name not in fs or name not in md or fs[name] != md[name]:
                rows.append(row)
    return rows


PROCEDURES: dict[str, Callable[[Any, str, Args], list[Row]]] = {
    f.__name__: f for f in (show_commits, show_commit_files, rollback_to_instant, run_compaction, show_compaction,
                            run_clustering, run_clean, create_savepoint, rollback_to_savepoint,
                            show_savepoints, delete_savepoint, show_table_properties, archive_commits,
                            create_metadata_table, delete_metadata_table,
                            show_metadata_table_stats, show_metadata_table_partitions,
                            show_metadata_table_files, validate_metadata_table_files,
                            metadata_procedures.validate_metadata_table, metadata_procedures.repair_metadata_table)}
