"""The table services' commands: compact, log-compact and cluster (planned services: run pending plans, or
schedule one and run it; Spark, started only when the timeline and listing say there may be work), clean and
archive (no Spark)."""
from __future__ import annotations

from rich.console import Console

from pyhudi.cli import common
from pyhudi.cli.progress import spark_tasks


def _run_planned(args, console: Console, action: str, run, may_have_work, nothing: str) -> int:
    if args.instant is None and not may_have_work(args.path, common.options(args.option)):  # said without Spark
        console.print(f"nothing to {nothing}")
        return 0
    spark = common.spark()
    with spark_tasks(spark, console, action) as say:
        done = run(spark, args.path, common.options(args.option), instant=args.instant,
                   schedule_only=args.schedule, progress=say)
    if not done:
        console.print(f"nothing to {nothing}")
    for t in done:
        console.print(f"{action} {t} {'scheduled' if args.schedule else 'completed'}")
    return 0


@common.writes()
def cmd_compact(args, console: Console) -> int:
    from pyhudi.services import compaction
    return _run_planned(args, console, "compaction", compaction.compact, lambda path, _: compaction.may_have_work(path),
                        "compact: no pending plan and no file slice with log files")


@common.writes()
def cmd_log_compact(args, console: Console) -> int:
    from pyhudi.services import log_compaction
    return _run_planned(args, console, "logcompaction", log_compaction.log_compact, log_compaction.may_have_work,
                        "log-compact: no pending plan and no file slice with enough log blocks "
                        "(hoodie.log.compaction.blocks.threshold)")


@common.writes()
def cmd_cluster(args, console: Console) -> int:
    from pyhudi.services import clustering
    return _run_planned(args, console, "clustering", clustering.cluster, clustering.may_have_work,
                        "cluster: no pending plan and no partition with small files to stitch")


@common.writes()
def cmd_clean(args, console: Console) -> int:
    from pyhudi.config import options as o
    from pyhudi.services import clean

    options = common.options(args.option)
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


@common.writes()
def cmd_archive(args, console: Console) -> int:
    from pyhudi.config import options as o
    from pyhudi.services import archival

    options = common.options(args.option)
    for value, option in ((args.min_commits, o.KEEP_MIN_COMMITS), (args.max_commits, o.KEEP_MAX_COMMITS)):
        if value is not None:
            options[option.key] = str(value)
    done = archival.archive(args.path, options, progress=console.print)
    if not done:
        console.print("nothing to archive")
    for inst in done:
        console.print(f"archived {inst.action} {inst.requested_time}")
    return 0


def _planned_service(sub, command: str, action: str, fn, example: str, text: str) -> None:
    """The subcommand of a service that runs plans (compaction, clustering)."""
    p = sub.add_parser(command, help=text)
    common.add_path(p)
    p.add_argument("--instant", help=f"run this pending {action} only")
    p.add_argument("--schedule", action="store_true", help="only write a plan (run it later)")
    common.add_options(p, example)
    p.set_defaults(fn=fn)


def register(sub) -> None:
    _planned_service(sub, "compact", "compaction", cmd_compact, "hoodie.compaction.strategy=...",
                     "compact a merge-on-read table: run pending plans, or schedule one and run it")
    _planned_service(sub, "log-compact", "logcompaction", cmd_log_compact, "hoodie.log.compaction.blocks.threshold=5",
                     "merge the log blocks of each file slice of a merge-on-read table into one log file")
    cl = sub.add_parser("clean", help="delete file versions no reader needs any more (Apache Hudi's cleaner policies)")
    common.add_path(cl)
    cl.add_argument("--policy", type=str.upper,
                    choices=("KEEP_LATEST_COMMITS", "KEEP_LATEST_FILE_VERSIONS", "KEEP_LATEST_BY_HOURS"),
                    help="hoodie.cleaner.policy (default KEEP_LATEST_COMMITS)")
    cl.add_argument("--retain-commits", type=int, metavar="N", help="hoodie.cleaner.commits.retained (default 10)")
    cl.add_argument("--retain-versions", type=int, metavar="N",
                    help="hoodie.cleaner.fileversions.retained (default 3)")
    cl.add_argument("--retain-hours", type=int, metavar="N", help="hoodie.cleaner.hours.retained (default 24)")
    common.add_options(cl, "hoodie.cleaner.incremental.mode=false")
    cl.set_defaults(fn=cmd_clean)
    arc = sub.add_parser("archive", help="move old instants from the active timeline into the timeline history")
    common.add_path(arc)
    arc.add_argument("--min-commits", type=int, metavar="N", help="hoodie.keep.min.commits (default 20)")
    arc.add_argument("--max-commits", type=int, metavar="N", help="hoodie.keep.max.commits (default 30)")
    common.add_options(arc, "hoodie.timeline.compaction.batch.size=10")
    arc.set_defaults(fn=cmd_archive)
    _planned_service(sub, "cluster", "clustering", cmd_cluster, "hoodie.clustering.plan.strategy.sort.columns=a,b",
                     "cluster a table: stitch small files, sort records by the sort columns")
