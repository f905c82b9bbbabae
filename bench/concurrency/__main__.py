"""python -m bench.concurrency run [--kind KIND] [--writers 1,2,4] [--commits N] [--workdir DIR] [--out DIR]
python -m bench.concurrency report [--out DIR]

Commits per minute and conflict rate of 1, 2 and 4 concurrent writer processes on disjoint partitions and on
overlapping keys, for copy-on-write and merge-on-read tables under optimistic concurrency control and
merge-on-read under non-blocking concurrency control."""
from __future__ import annotations

import argparse
import sys

from bench.concurrency import runner
from bench.concurrency.worker import KINDS


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m bench.concurrency", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="command", required=True)
    run = sub.add_parser("run", help="run every case and write the results")
    run.add_argument("--kind", action="append", choices=KINDS, help="only these tables (repeatable; default all)")
    run.add_argument("--writers", default="1,2,4", help="writer counts (default %(default)s)")
    run.add_argument("--commits", type=int, default=10, help="upserts per writer (default %(default)s)")
    run.add_argument("--workdir", default=runner.DEFAULT_ROOT, help="where the tables live (default %(default)s)")
    run.add_argument("--out", default=runner.RESULTS_DIR, help="results directory (default %(default)s)")
    rep = sub.add_parser("report", help="report.md again from results.json")
    rep.add_argument("--out", default=runner.RESULTS_DIR)
    args = ap.parse_args(argv)
    if args.command == "report":
        runner.report(args.out)
        return 0
    counts = [int(n) for n in args.writers.split(",")]
    runner.run(args.kind or list(KINDS), counts, args.commits, args.workdir, args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
