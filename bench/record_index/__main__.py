"""python -m bench.record_index run [--rows N] [--only CASE] [--workdir DIR] [--out DIR]
python -m bench.record_index report [--out DIR]

The record index (issue 14) against its peers, in one run on the same data: N rows (default 5,000,000,
the medium table) of UUID keys in 50 partitions. Cases: `build` (the record index of the loaded table,
and its bytes per key on disk), `lookup` (100,000 existing keys located by the connector on
executors, block cache on and off, and Spark alone for the same job shape), `point` (one key through hudi-meta with and without the record index, and delta-rs),
`upsert` (1%: 80% updates of random keys, 20% new keys, merge-on-read with RECORD_INDEX, SIMPLE and
BUCKET, and delta-rs merge)."""
from __future__ import annotations

import argparse
import sys

from bench.record_index import runner


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m bench.record_index", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="command", required=True)
    run = sub.add_parser("run", help="build the tables and time every case")
    run.add_argument("--rows", type=int, default=runner.DEFAULT_ROWS, help="rows of the table (default %(default)s)")
    run.add_argument("--only", action="append", help=f"only these cases ({', '.join(runner.CASES)}); repeatable")
    run.add_argument("--workdir", default=runner.DEFAULT_ROOT, help="where the tables live (default %(default)s)")
    run.add_argument("--out", default=runner.RESULTS_DIR, help="results directory (default %(default)s)")
    rep = sub.add_parser("report", help="report.md again from results.json")
    rep.add_argument("--out", default=runner.RESULTS_DIR)
    args = ap.parse_args(argv)
    if args.command == "report":
        runner.report(args.out)
        return 0
    unknown = [c for c in (args.only or []) if c not in runner.CASES]
    if unknown:
        ap.error(f"unknown case(s) {', '.join(unknown)}; valid: {', '.join(runner.CASES)}")
    runner.run(args.rows, args.only or list(runner.CASES), args.workdir, args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
