"""The timeline's commands, none needing Spark: list the instants, roll back writes that never completed,
savepoints and restoring to one."""
from __future__ import annotations

import time

from rich.console import Console
from rich.table import Table

from pyhudi.cli import common
from pyhudi.table import properties
from pyhudi.table.rollback import rollback_failed_writes


def cmd_timeline(args, console: Console) -> int:
    storage, base, tl = common.table_timeline(args.path)
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


@common.writes()
def cmd_rollback(args, console: Console) -> int:
    storage, base, tl = common.table_timeline(args.path)
    with console.status("rolling back pending writes..."):
        done = rollback_failed_writes(storage, base, tl)
    if not done:
        console.print("nothing to roll back: no pending write")
    for inst in done:
        console.print(f"rolled back; rollback instant {inst.requested_time} completed at {inst.completion_time}")
    return 0


@common.writes("create", "delete")
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


@common.writes()
def cmd_restore(args, console: Console) -> int:
    from pyhudi.services import restore

    done = restore.restore(args.path, args.to, progress=console.print, spark=common.spark)
    console.print(f"restored to savepoint {args.to}; restore instant {done.requested_time}")
    return 0


def register(sub) -> None:
    tl = sub.add_parser("timeline", help="list the instants of a table")
    common.add_path(tl)
    tl.add_argument("--archived", action="store_true", help="also list the instants archived into the timeline "
                                                            "history")
    tl.set_defaults(fn=cmd_timeline)
    rb = sub.add_parser("rollback", help="roll back writes that never completed")
    common.add_path(rb)
    rb.set_defaults(fn=cmd_rollback)
    sp = sub.add_parser("savepoint", help="savepoints: keep a commit's files so the table can be restored to it")
    sp.add_argument("action", choices=("create", "list", "delete"))
    common.add_path(sp)
    sp.add_argument("--instant", help="the commit to savepoint (create: default the latest) or the savepoint to delete")
    sp.add_argument("--user", default="", help="who savepoints (savepointedBy)")
    sp.add_argument("--comments", default="", help="why (comments)")
    sp.set_defaults(fn=cmd_savepoint)
    rs = sub.add_parser("restore", help="restore a table to a savepoint: roll back every instant after it")
    common.add_path(rs)
    rs.add_argument("--to", required=True, metavar="INSTANT", help="the savepoint's instant time")
    rs.set_defaults(fn=cmd_restore)
