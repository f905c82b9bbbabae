"""pyhudi command line: table maintenance that needs no Spark.

  pyhudi timeline PATH           the instants of a table
  pyhudi rollback PATH           roll back writes that never completed (a writer that died)
"""
from __future__ import annotations

import argparse
import sys

from rich.console import Console
from rich.table import Table

from pyhudi import properties
from pyhudi.rollback import rollback_failed_writes
from pyhudi.storage import Storage
from pyhudi.timeline import Timeline


def _timeline(path: str) -> tuple[Storage, str, Timeline]:
    storage, base = Storage.for_uri(path)
    return storage, base, Timeline.for_table(storage, base, properties.load(storage, base))


def cmd_timeline(args, console: Console) -> int:
    _, _, tl = _timeline(args.path)
    table = Table(title=f"timeline of {args.path}")
    for col in ("requested", "completed", "action", "state"):
        table.add_column(col)
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


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="pyhudi", description="pyhudi table maintenance")
    sub = ap.add_subparsers(dest="command", required=True)
    for name, fn, text in (("timeline", cmd_timeline, "list the instants of a table"),
                           ("rollback", cmd_rollback, "roll back writes that never completed")):
        p = sub.add_parser(name, help=text)
        p.add_argument("path", help="table base path (local path or URI)")
        p.set_defaults(fn=fn)
    args = ap.parse_args(argv)
    console = Console()
    try:
        return args.fn(args, console)
    except (ValueError, OSError) as e:
        console.print(f"[red]error:[/red] {e}")
        return 2


if __name__ == "__main__":
    sys.exit(main())
