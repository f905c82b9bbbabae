"""python -m bench.latency run [--sizes 1k,20k,100k] [--commits 10,100,500] [--reps N] [--only SYSTEM]
                              [--workdir DIR] [--out DIR] [--rebuild] [--no-snapshots] [--no-plots]
python -m bench.latency report [--out DIR]   (report.md + plot again from results.json)
python -m bench.latency server [--sizes 1k,20k,100k] [--calls N] [--reps N]   (the timeline server's costs)

Write-latency benchmark: one small upsert (100 rows in one partition: 50 updates, 50 new keys) into
tables of 1k, 20k and 100k data files after 10, 100 and 500 prior commits, for pyhudi with and without
its metadata table and delta-rs merging the same rows into a Delta table over the same files."""
from __future__ import annotations

import argparse
import os
import sys

from bench.latency import build


def _csv(text: str) -> list[str]:
    return [s.strip() for s in text.split(",") if s.strip()]


def _commits(ap, text: str) -> list[int]:
    try:
        values = [int(s) for s in _csv(text)]
    except ValueError:
        ap.error(f"--commits takes whole numbers, got {text!r}")
    if not values or min(values) < 1:
        ap.error("--commits: at least one count, each at least 1 (the load is the first commit)")
    return values


def main(argv: list[str] | None = None) -> int:
    from bench.latency import runner, systems

    ap = argparse.ArgumentParser(prog="python -m bench.latency", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="command", required=True)
    run = sub.add_parser("run", help="build (or reuse) the tables and time the upserts")
    run.add_argument("--sizes", default=",".join(runner.DEFAULT_SIZES),
                     help=f"comma-separated, of {', '.join(build.SHAPES)} (default: %(default)s)")
    run.add_argument("--commits", default=",".join(map(str, runner.DEFAULT_COMMITS)),
                     help="completed commits before each case's upserts, the load included (default: %(default)s)")
    run.add_argument("--reps", type=int, help=f"timed upserts per case (default {runner.DEFAULT_REPS})")
    run.add_argument("--only", action="append", help="only these systems (" + ", ".join(
        f"{k} or '{v.short}'" for k, v in systems.SYSTEMS.items()) + "); repeatable or comma-separated")
    run.add_argument("--rebuild", action="store_true", help="build the pristine tables again even when a build is there")
    run.add_argument("--no-snapshots", action="store_true", help="add every prior commit again instead of starting "
                     "a case from the table kept when it first reached that many commits (<size>-<kind>/commits-N)")
    run.add_argument("--workdir", default=runner.DEFAULT_ROOT, help="where the tables live (default %(default)s)")
    run.add_argument("--out", help="results directory (default: bench/results/latency for a full run - all default "
                     "sizes, commits and repetitions, every system - else <workdir>/results)")
    run.add_argument("--no-plots", action="store_true")
    srv = sub.add_parser("server", help="view-call latency of the timeline server; sync after a commit vs rebuild")
    srv.add_argument("--sizes", default=",".join(runner.DEFAULT_SIZES), help="comma-separated (default: %(default)s)")
    srv.add_argument("--calls", type=int, default=200, help="view calls timed per case (default %(default)s)")
    srv.add_argument("--reps", type=int, default=5, help="rebuild/sync rounds per size (default %(default)s)")
    srv.add_argument("--workdir", default=runner.DEFAULT_ROOT, help="where the tables live (default %(default)s)")
    srv.add_argument("--out", default=runner.RESULTS_DIR, help="results directory (default %(default)s)")
    rep = sub.add_parser("report", help="write report.md and the plot again from results.json")
    rep.add_argument("--out", default=runner.RESULTS_DIR)
    args = ap.parse_args(argv)

    if args.command == "server":
        from bench.latency import server

        sizes = _csv(args.sizes)
        if not sizes or any(s not in build.SHAPES for s in sizes):
            ap.error(f"--sizes: valid sizes are {', '.join(build.SHAPES)}")
        server.run(sizes, args.calls, args.reps, args.workdir, args.out)
        return 0
    if args.command == "run":
        sizes, commits = _csv(args.sizes), _commits(ap, args.commits)
        unknown = [s for s in sizes if s not in build.SHAPES]
        if unknown or not sizes:
            ap.error(f"unknown size(s) {unknown}; valid: {', '.join(build.SHAPES)}")
        if args.reps is not None and args.reps < 1:
            ap.error("--reps must be at least 1")
        only = [w for o in args.only or [] for w in _csv(o)] or None
        if only and not runner.select(only):
            ap.error(f"--only matches no system; valid: {', '.join(systems.SYSTEMS)}")
        out = args.out
        if out is None:
            full = (sizes == list(runner.DEFAULT_SIZES) and commits == list(runner.DEFAULT_COMMITS)
                    and args.reps is None and only is None)
            out = runner.RESULTS_DIR if full else os.path.join(args.workdir, "results")
        runner.run(sizes, commits, reps=args.reps or runner.DEFAULT_REPS, rebuild=args.rebuild, root=args.workdir,
                   out=out, only=only, plots=not args.no_plots, snapshots=not args.no_snapshots)
        return 0

    from bench import results
    from bench.latency import report

    results.rewrite_report(report, args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
