"""pyhudi command line: table maintenance that needs no Spark.

  pyhudi timeline PATH [--archived]          the instants of a table (and those archived)
  pyhudi rollback PATH                       roll back writes that never completed (a writer that died)
  pyhudi metadata create|delete PATH         build (from one listing, writers need not stop) or drop it
  pyhudi metadata validate PATH              compare the metadata table with a real listing
  pyhudi metadata stats PATH                 what the metadata table holds
  pyhudi metadata perf PATH                  partitions/files lookups: metadata table vs listing
  pyhudi clean PATH [--policy P] [--retain-commits N]
                                             delete file versions no reader needs any more (cleaning)
  pyhudi archive PATH [--min-commits N] [--max-commits N]
                                             move old instants into the timeline history (archival)
  pyhudi savepoint create|list|delete PATH [--instant T] [--user U] [--comments C]
                                             keep a commit's files, so the table can be restored to it
  pyhudi restore PATH --to T                 roll the table back to its savepoint at T
  pyhudi index create PATH [--type record_index | --type secondary --column C [--name N]
                           | --type column_stats | bloom_filters | partition_stats]
                                             build an index while writers go on (the indexing action; Spark)
  pyhudi index list PATH                     the metadata table's index partitions (built or being built)
  pyhudi index lookup PATH KEY...            where the record index says each record key lives
  pyhudi index lookup --name N PATH VALUE... the record keys secondary index N holds for each value
  pyhudi index drop PATH [--type record_index | column_stats | ... | --name N]
                                             drop an index partition (writes that enable it build it again)
  pyhudi timeline-server PATH --port N       serve the table's file-system view to writers (Hudi RFC-03;
                                             runs a JVM, not Spark), until killed
"""
from __future__ import annotations

import argparse
import os
import re
import shutil
import sys
import time

from rich.console import Console
from rich.table import Table

from pyhudi.errors import HudiError
from pyhudi.metadata import MetadataWriter, listing_from_storage
from pyhudi.storage import Storage
from pyhudi.table import properties
from pyhudi.table.rollback import rollback_failed_writes
from pyhudi.table.timeline import Timeline


def _timeline(path: str) -> tuple[Storage, str, Timeline]:
    storage, base = Storage.for_uri(path)
    return storage, base, Timeline.for_table(storage, base, properties.load(storage, base))


def cmd_timeline(args, console: Console) -> int:
    storage, base, tl = _timeline(args.path)
    table = Table(title=f"timeline of {args.path}")
    for col in ("requested", "completed", "action", "state"):
        table.add_column(col)
    if getattr(args, "archived", False) and tl.layout == 2:  # the LSM history first: it holds the older instants
        from pyhudi.table.lsm_timeline import LSMTimeline
        for row in LSMTimeline.for_table(storage, base, properties.load(storage, base)).instants(
                columns=("instantTime", "completionTime", "action")):
            table.add_row(row.instant_time, row.completion_time or "", row.action, "archived")
    for inst in tl.instants():
        table.add_row(inst.requested_time, inst.completion_time or "", inst.action, inst.state)
    console.print(table)
    return 0


def cmd_rollback(args, console: Console) -> int:
    storage, base, tl = _timeline(args.path)
    with console.status("rolling back pending writes..."):
        done = rollback_failed_writes(storage, base, tl)
    if not done:
        console.print("nothing to roll back: no pending write")
    for inst in done:
        console.print(f"rolled back; rollback instant {inst.requested_time} completed at {inst.completion_time}")
    return 0


def _metadata(path: str) -> MetadataWriter:
    storage, base = Storage.for_uri(path)
    return MetadataWriter(storage, base, properties.load(storage, base))


def cmd_metadata(args, console: Console) -> int:
    mdt = _metadata(args.path)
    if args.action == "create":
        with console.status("listing the table (writers may go on meanwhile)...") as status:
            def progress(stage: str, detail: str) -> None:
                console.print(f"{stage}: {detail}")
                status.update({"listed": "building the metadata partitions...",
                               "built": "applying writes completed during the build..."}.get(stage, "finishing..."))
            instants = mdt.initialize(progress=progress)
        console.print(f"metadata table created: partitions {', '.join(mdt.partitions())} "
                      f"(instants {', '.join(instants)})")
        return 0
    if args.action == "delete":
        mdt.delete()
        console.print("metadata table deleted; readers list storage until it is created again")
        return 0
    if not mdt.exists():
        console.print(f"[red]no metadata table at {mdt.mdt_path}[/red]; create it with `pyhudi metadata create`")
        return 1
    return {"validate": _validate, "stats": _stats, "perf": _perf}[args.action](mdt, console)


def _validate(mdt: MetadataWriter, console: Console) -> int:
    with console.status("listing storage and reading the metadata table..."):
        diff = mdt.validate()
    if not diff:
        console.print("metadata table agrees with the storage listing: no difference")
        return 0
    for kind, detail in diff.items():
        console.print(f"[red]{kind}[/red]: {detail}")
    return 1


def _stats(mdt: MetadataWriter, console: Console) -> int:
    listing = mdt.files_listing()
    table = Table(title=f"metadata table of {mdt.base_path}")
    for col in ("metadata partition", "files on storage", "bytes"):
        table.add_column(col)
    for part in mdt.partitions():
        entries = [e for e in mdt.storage.list(f"{mdt.mdt_path}/{part}") if not e.is_dir]
        table.add_row(part, str(len(entries)), str(sum(e.size for e in entries)))
    console.print(table)
    console.print(f"data partitions listed: {len(listing)}; data files listed: "
                  f"{sum(len(f) for f in listing.values())}")
    return 0


def _timed(fn):
    start = time.perf_counter()
    out = fn()
    return out, (time.perf_counter() - start) * 1000


def _perf(mdt: MetadataWriter, console: Console) -> int:
    """RFC-15's comparison: getAllPartitions and getAllFilesInPartition, metadata vs listing."""
    from_mdt, mdt_ms = _timed(mdt.files_listing)
    from_storage, list_ms = _timed(lambda: listing_from_storage(mdt.storage, mdt.base_path))
    table = Table(title="metadata table vs storage listing (ms)")
    for col in ("operation", "metadata table", "listing"):
        table.add_column(col)
    table.add_row(f"getAllPartitions + getAllFilesInPartition ({len(from_mdt)} partitions)",
                  f"{mdt_ms:.1f}", f"{list_ms:.1f}")
    if from_mdt:
        part = sorted(from_mdt)[0]
        _, one_mdt = _timed(lambda: mdt.files_listing().get(part))
        _, one_list = _timed(lambda: mdt.storage.list(f"{mdt.base_path}/{part}" if part else mdt.base_path))
        table.add_row(f"getAllFilesInPartition({part or '.'})", f"{one_mdt:.1f}", f"{one_list:.1f}")
    console.print(table)
    return 0


def _options(pairs: list[str]) -> dict[str, str]:
    out = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise ValueError(f"--option {pair!r} is not KEY=VALUE")
        out[key.strip()] = value.strip()
    return out


def _spark():
    from pyhudi import spark_session  # lazily: only the services that rewrite files need Spark
    return spark_session()


def _run_planned(args, console: Console, action: str, run, nothing: str) -> int:
    done = run(_spark(), args.path, _options(args.option), instant=args.instant, schedule_only=args.schedule,
               progress=console.print)
    if not done:
        console.print(f"nothing to {nothing}")
    for t in done:
        console.print(f"{action} {t} {'scheduled' if args.schedule else 'completed'}")
    return 0


def cmd_compact(args, console: Console) -> int:
    from pyhudi.services import compaction
    nothing = "compact: no pending plan and no file slice with log files"
    if args.instant is None and not compaction.may_have_work(args.path):  # said without starting Spark
        console.print(f"nothing to {nothing}")
        return 0
    return _run_planned(args, console, "compaction", compaction.compact, nothing)


def cmd_log_compact(args, console: Console) -> int:
    from pyhudi.services import log_compaction
    return _run_planned(args, console, "logcompaction", log_compaction.log_compact,
                        "log-compact: no pending plan and no file slice with enough log blocks "
                        "(hoodie.log.compaction.blocks.threshold)")


def cmd_clean(args, console: Console) -> int:
    from pyhudi.config import options as o
    from pyhudi.services import clean

    options = _options(args.option)
    for value, option in ((args.policy, o.CLEANER_POLICY), (args.retain_commits, o.CLEANER_COMMITS_RETAINED),
                          (args.retain_versions, o.CLEANER_FILE_VERSIONS_RETAINED),
                          (args.retain_hours, o.CLEANER_HOURS_RETAINED)):
        if value is not None:
            options[option.key] = str(value)
    done = clean.clean(args.path, options, progress=console.print)
    if done is None:
        console.print("nothing to clean")
        return 0
    deleted = clean.describe(args.path, done)
    for partition, names in sorted(deleted.items()):
        for name in names:
            console.print(f"deleted {partition + '/' if partition else ''}{name}")
    console.print(f"clean {done.requested_time} completed: {sum(map(len, deleted.values()))} files deleted")
    return 0


def cmd_archive(args, console: Console) -> int:
    from pyhudi.config import options as o
    from pyhudi.services import archival

    options = _options(args.option)
    for value, option in ((args.min_commits, o.KEEP_MIN_COMMITS), (args.max_commits, o.KEEP_MAX_COMMITS)):
        if value is not None:
            options[option.key] = str(value)
    done = archival.archive(args.path, options, progress=console.print)
    if not done:
        console.print("nothing to archive")
    for inst in done:
        console.print(f"archived {inst.action} {inst.requested_time}")
    return 0


def cmd_cluster(args, console: Console) -> int:
    from pyhudi.services import clustering
    return _run_planned(args, console, "clustering", clustering.cluster,
                        "cluster: no pending plan and no partition with small files to stitch")


def cmd_savepoint(args, console: Console) -> int:
    from pyhudi.services import savepoint

    if args.action == "create":
        done = savepoint.create(args.path, args.instant, args.user, args.comments)
        console.print(f"savepoint {done.requested_time} created (completed at {done.completion_time})")
    elif args.action == "delete":
        if not args.instant:
            console.print("[red]error:[/red] savepoint delete needs --instant T")
            return 2
        savepoint.delete(args.path, args.instant)
        console.print(f"savepoint {args.instant} deleted")
    else:
        saved = savepoint.list_savepoints(args.path)
        if not saved:
            console.print("no savepoint")
            return 0
        for s in saved:
            at = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(s.savepointed_at / 1000))
            console.print(f"savepoint {s.instant} (completed {s.completion_time}) by {s.savepointed_by or '-'} "
                          f"at {at}: {sum(map(len, s.files.values()))} files kept; {s.comments}", soft_wrap=True)
    return 0


def cmd_restore(args, console: Console) -> int:
    from pyhudi.services import restore

    done = restore.restore(args.path, args.to, progress=console.print)
    console.print(f"restored to savepoint {args.to}; restore instant {done.requested_time}")
    return 0


def _metadata_writer(path: str) -> MetadataWriter:
    """The metadata table of `path` with every partition it has kept (nothing dropped by opening it)."""
    from pyhudi.metadata.layout import SUPPORTED_PARTITIONS

    storage, base = Storage.for_uri(path)
    props = properties.load(storage, base)
    return MetadataWriter(storage, base, props, partitions=SUPPORTED_PARTITIONS)


def cmd_index(args, console: Console) -> int:
    from pyhudi.metadata import record_index as ri
    from pyhudi.metadata.keys import RECORD_INDEX
    from pyhudi.metadata.layout import INFLIGHT_PARTITIONS_KEY, completed_partitions, csv
    from pyhudi.metadata.state import MdtState
    from pyhudi.table import index_definitions

    part = _index_partition(args)
    if args.action == "create":
        from pyhudi.services import indexing
        done = indexing.create(_spark(), args.path, part, _options(args.option), progress=console.print,
                               column=args.column)
        console.print(f"indexing {done.requested_time} completed: {part} is built")
        if part in ("record_index", "bloom_filters"):  # Apache Hudi's writers keep these by option only
            key = "record.index.enable" if part == "record_index" else "index.bloom.filter.enable"
            console.print(f"writes keep it with hoodie.metadata.{key}=true (a write with it false drops it)")
        return 0
    mdt = _metadata_writer(args.path)
    built = completed_partitions(mdt.data_props) if mdt.exists() else []
    if args.action == "list":
        state = MdtState(mdt) if built else None
        defs = index_definitions.load(mdt.storage, mdt.base_path, mdt.data_props)
        for p in built:
            on = index_definitions.secondary_column(defs, p)
            console.print(f"{p}: built, {len(state.latest(p))} file groups" + (f", on column {on}" if on else ""))
        for p in csv(mdt.data_props.get(INFLIGHT_PARTITIONS_KEY)):
            console.print(f"{p}: being built")
        return 0
    if part not in built:
        what = "record index; write with hoodie.metadata.record.index.enable=true (or hoodie.index.type=" \
               "RECORD_INDEX) to build it" if part == RECORD_INDEX else f"{part}; pyhudi index create builds it"
        console.print(f"[red]error:[/red] {args.path} has no {what}")
        return 2
    if args.action == "drop":
        from pyhudi.services import indexing
        console.print(f"dropped {', '.join(indexing.drop(args.path, part))} of {args.path}")
        return 0
    if not args.keys:
        console.print("[red]error:[/red] index lookup needs at least one KEY (or VALUE with --name)")
        return 2
    if part != RECORD_INDEX:
        return _secondary_lookup(mdt, part, args.keys, console)
    found = mdt.read_partition(RECORD_INDEX, keys=args.keys)
    for key in args.keys:
        where = ri.location_of(found[key]) if key in found else None
        if where is None:
            console.print(f"{key}: not in the table")
        else:
            partition, file_id, millis = where
            console.print(f"{key}: partition {partition or '(none)'}, file group {file_id}, placed at "
                          f"{time.strftime('%Y-%m-%d %H:%M:%S', time.localtime(millis / 1000))}", soft_wrap=True)
    return 0


def _index_partition(args) -> str:
    """The MDT partition an index command names: record_index, or secondary_index_<name>."""
    from pyhudi.metadata import secondary_index as si

    if args.type != "secondary" and not args.name:
        if args.column:
            raise SystemExit("error: --column goes with --type secondary")
        return args.type
    if not (args.name or args.column):
        raise SystemExit("error: a secondary index needs --column COLUMN (to create one) or --name NAME")
    return si.partition_of(args.name or f"{args.column}_idx")


def _secondary_lookup(mdt, part: str, values: list[str], console: Console) -> int:
    from pyhudi.metadata import secondary_index as si

    found = mdt.read_partition(part, prefixes=[si.value_prefix(v) for v in values])
    keys: dict[str, list[str]] = {}
    for entry in sorted(found):
        value, key = si.split_key(entry)
        keys.setdefault(value, []).append(key)
    for value in values:
        console.print(f"{value}: " + (", ".join(keys[value]) if value in keys else "no record"), soft_wrap=True)
    return 0


def cmd_timeline_server(args, console: Console) -> int:
    """Replaces this process with the JVM of io.hudimeta.view.TimelineServer, so Ctrl-C and SIGTERM (or
    SIGKILL) reach the server itself and no orphan keeps serving."""
    from pyhudi import build  # lazily: only this command needs the connector jar

    java = _java()
    try:
        classpath = os.pathsep.join([str(build.build(quiet=True)), str(build.spark_jars_dir() / "*")])
    except build.BuildError as e:
        console.print(f"[red]error:[/red] {e}")
        return 1
    # a URI goes as given; a local path is made absolute (the JVM would resolve it alike, but say so)
    path = args.path if re.match(r"^[A-Za-z][A-Za-z0-9+.-]+:", args.path) else os.path.abspath(args.path)
    cmd = [java, "-cp", classpath, "io.hudimeta.view.TimelineServer", path, "--port", str(args.port)]
    for flag, value in (("--view-type", args.view_type), ("--spillable-mem", args.spillable_mem),
                        ("--spillable-dir", args.spillable_dir)):
        if value is not None:
            cmd += [flag, str(value)]
    sys.stdout.flush()
    sys.stderr.flush()
    os.execv(java, cmd)
    return 0  # not reached


def _java() -> str:
    home = os.environ.get("JAVA_HOME")
    candidate = os.path.join(home, "bin", "java") if home else shutil.which("java")
    if not candidate or not os.access(candidate, os.X_OK):
        raise JavaNotFoundError(f"no java found (JAVA_HOME={home or 'unset'}, PATH); the timeline server needs a JDK "
                          "or JRE 17+")
    return candidate


class JavaNotFoundError(HudiError, OSError):
    """The machine lacks what a command needs (a JVM)."""


def _planned_service(sub, command: str, action: str, fn, example: str, text: str) -> None:
    """The subcommand of a service that runs plans (compaction, clustering)."""
    p = sub.add_parser(command, help=text)
    p.add_argument("path", help="table base path (local path or URI)")
    p.add_argument("--instant", help=f"run this pending {action} only")
    p.add_argument("--schedule", action="store_true", help="only write a plan (run it later)")
    p.add_argument("--option", action="append", default=[], metavar="KEY=VALUE",
                   help=f"an Apache Hudi option, e.g. {example}; repeatable")
    p.set_defaults(fn=fn)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="pyhudi", description="pyhudi table maintenance")
    sub = ap.add_subparsers(dest="command", required=True)
    for name, fn, text in (("timeline", cmd_timeline, "list the instants of a table"),
                           ("rollback", cmd_rollback, "roll back writes that never completed")):
        p = sub.add_parser(name, help=text)
        p.add_argument("path", help="table base path (local path or URI)")
        p.set_defaults(fn=fn)
        if name == "timeline":
            p.add_argument("--archived", action="store_true", help="also list the instants archived into the "
                                                                   "timeline history")
    meta = sub.add_parser("metadata", help="metadata table: create, delete, validate, stats, perf")
    meta.add_argument("action", choices=("create", "delete", "validate", "stats", "perf"))
    meta.add_argument("path", help="table base path (local path or URI)")
    meta.set_defaults(fn=cmd_metadata)
    ix = sub.add_parser("index", help="the metadata table's indexes: create (the indexing action), list, "
                                      "lookup KEY..., drop")
    ix.add_argument("action", choices=("create", "list", "lookup", "drop"))
    ix.add_argument("path", help="table base path (local path or URI)")
    ix.add_argument("keys", nargs="*", metavar="KEY", help="record keys (or, with --name, values) to look up")
    ix.add_argument("--type", default="record_index", choices=("record_index", "secondary", "column_stats",
                                                               "bloom_filters", "partition_stats"),
                    help="the index (create, drop); a secondary index is named by --name")
    ix.add_argument("--column", help="the column a secondary index covers (create)")
    ix.add_argument("--name", help="a secondary index's name (secondary_index_<name>; default <column>_idx)")
    ix.add_argument("--option", action="append", default=[], metavar="KEY=VALUE",
                    help="an Apache Hudi option, e.g. hoodie.metadata.record.index.min.filegroup.count=4; repeatable")
    ix.set_defaults(fn=cmd_index)
    ts = sub.add_parser("timeline-server", help="serve a table's file-system view to writers (Hudi RFC-03)")
    ts.add_argument("path", help="table base path (local path or URI)")
    ts.add_argument("--port", type=int, required=True, help="port to listen on (0: any free port)")
    ts.add_argument("--view-type", type=str.upper, choices=("MEMORY", "SPILLABLE_DISK"),
                    help="where the view keeps its files (hoodie.filesystem.view.type; default MEMORY)")
    ts.add_argument("--spillable-mem", type=int, metavar="BYTES",
                    help="heap bytes before SPILLABLE_DISK spills (hoodie.filesystem.view.spillable.mem)")
    ts.add_argument("--spillable-dir", metavar="DIR",
                    help="local directory SPILLABLE_DISK spills to (hoodie.filesystem.view.spillable.dir)")
    ts.set_defaults(fn=cmd_timeline_server)
    # ---- table services (each registers its own subcommand; keep one block per service) ----
    # compaction
    _planned_service(sub, "compact", "compaction", cmd_compact, "hoodie.compaction.strategy=...",
                     "compact a merge-on-read table: run pending plans, or schedule one and run it")
    # log compaction
    _planned_service(sub, "log-compact", "logcompaction", cmd_log_compact, "hoodie.log.compaction.blocks.threshold=5",
                     "merge the log blocks of each file slice of a merge-on-read table into one log file")
    # clean
    cl = sub.add_parser("clean", help="delete file versions no reader needs any more (Apache Hudi's cleaner policies)")
    cl.add_argument("path", help="table base path (local path or URI)")
    cl.add_argument("--policy", type=str.upper,
                    choices=("KEEP_LATEST_COMMITS", "KEEP_LATEST_FILE_VERSIONS", "KEEP_LATEST_BY_HOURS"),
                    help="hoodie.cleaner.policy (default KEEP_LATEST_COMMITS)")
    cl.add_argument("--retain-commits", type=int, metavar="N", help="hoodie.cleaner.commits.retained (default 10)")
    cl.add_argument("--retain-versions", type=int, metavar="N",
                    help="hoodie.cleaner.fileversions.retained (default 3)")
    cl.add_argument("--retain-hours", type=int, metavar="N", help="hoodie.cleaner.hours.retained (default 24)")
    cl.add_argument("--option", action="append", default=[], metavar="KEY=VALUE",
                    help="an Apache Hudi option, e.g. hoodie.cleaner.incremental.mode=false; repeatable")
    cl.set_defaults(fn=cmd_clean)
    # archival
    arc = sub.add_parser("archive", help="move old instants from the active timeline into the timeline history")
    arc.add_argument("path", help="table base path (local path or URI)")
    arc.add_argument("--min-commits", type=int, metavar="N", help="hoodie.keep.min.commits (default 20)")
    arc.add_argument("--max-commits", type=int, metavar="N", help="hoodie.keep.max.commits (default 30)")
    arc.add_argument("--option", action="append", default=[], metavar="KEY=VALUE",
                     help="an Apache Hudi option, e.g. hoodie.timeline.compaction.batch.size=10; repeatable")
    arc.set_defaults(fn=cmd_archive)
    # savepoint, restore
    sp = sub.add_parser("savepoint", help="savepoints: keep a commit's files so the table can be restored to it")
    sp.add_argument("action", choices=("create", "list", "delete"))
    sp.add_argument("path", help="table base path (local path or URI)")
    sp.add_argument("--instant", help="the commit to savepoint (create: default the latest) or the savepoint to delete")
    sp.add_argument("--user", default="", help="who savepoints (savepointedBy)")
    sp.add_argument("--comments", default="", help="why (comments)")
    sp.set_defaults(fn=cmd_savepoint)
    rs = sub.add_parser("restore", help="restore a table to a savepoint: roll back every instant after it")
    rs.add_argument("path", help="table base path (local path or URI)")
    rs.add_argument("--to", required=True, metavar="INSTANT", help="the savepoint's instant time")
    rs.set_defaults(fn=cmd_restore)
    # clustering
    _planned_service(sub, "cluster", "clustering", cmd_cluster, "hoodie.clustering.plan.strategy.sort.columns=a,b",
                     "cluster a table: stitch small files, sort records by the sort columns")
    args = ap.parse_args(argv)
    console = Console()
    try:
        return args.fn(args, console)
    except (HudiError, ValueError, OSError) as e:
        console.print(f"[red]error:[/red] {e}")
        return 2


if __name__ == "__main__":
    sys.exit(main())
