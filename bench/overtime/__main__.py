"""python -m bench.overtime run [--rows N] [--upserts N] [--every N] [--only SYSTEM] [--workdir DIR] [--out DIR]
python -m bench.overtime report [--out DIR]

Each system starts from the same rows (N rows, 10 partitions) and takes the same upserts: 0.1% of
the rows, updates of keys spread over the table. Upsert latency is recorded for every commit; every
`--every` commits a snapshot scan (sum and count over the whole table) is timed too."""
from __future__ import annotations

import argparse
import sys

from bench.overtime import runner


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m bench.overtime", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="command", required=True)
    run = sub.add_parser("run", help="build the tables and time the upserts and scans")
    run.add_argument("--rows", type=int, default=runner.DEFAULT_ROWS, help="rows of the table (default %(default)s)")
    run.add_argument("--upserts", type=int, default=runner.DEFAULT_UPSERTS, help="(default %(default)s)")
    run.add_argument("--every", type=int, default=10, help="scan every N commits (default %(default)s)")
    run.add_argument("--only", action="append", help=f"only these systems ({', '.join(runner.SYSTEMS)}); repeatable")
    run.add_argument("--workdir", default=runner.DEFAULT_ROOT, help="where the tables live (default %(default)s)")
    run.add_argument("--out", default=runner.RESULTS_DIR, help="results directory (default %(default)s)")
    rep = sub.add_parser("report", help="report.md and the plot again from results.json")
    rep.add_argument("--out", default=runner.RESULTS_DIR)
    args = ap.parse_args(argv)
    if args.command == "report":
        runner.report(args.out)
        return 0
    unknown = [s for s in (args.only or []) if s not in runner.SYSTEMS]
    if unknown:
        ap.error(f"unknown system(s) {', '.join(unknown)}; valid: {', '.join(runner.SYSTEMS)}")
    runner.run(args.rows, args.upserts, args.every, args.only or list(runner.SYSTEMS), args.workdir, args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
