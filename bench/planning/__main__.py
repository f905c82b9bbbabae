"""python -m bench.planning run [--sizes 1k,20k,100k] [--reps N] [--rebuild]
python -m bench.planning report          (report.md + plot again from results.json)
python -m bench.planning profile [--size 100k] [--system hudi-meta-mdt] [--scenario full]
                                         (Java Flight Recorder: where a Spark-based plan spends its time)

Query-planning benchmark: the time to plan a full scan, a one-partition scan and a selective range
scan over tables of 1k, 20k and 100k data files, for hudi-meta with its metadata table, hudi-meta
listing storage, spark.read.parquet, delta-rs and pyiceberg (the same Parquet files for all)."""
from __future__ import annotations

import argparse
import os
import sys

from bench.planning import build


def main(argv: list[str] | None = None) -> int:
    from bench.planning import runner

    ap = argparse.ArgumentParser(prog="python -m bench.planning", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="command", required=True)
    run = sub.add_parser("run", help="build (or reuse) the tables and time the planning")
    run.add_argument("--sizes", default=",".join(build.SHAPES),
                     help=f"comma-separated, of {', '.join(build.SHAPES)} (default: all)")
    run.add_argument("--reps", type=int, help="measured runs per case (default: "
                     + ", ".join(f"{k}: {v}" for k, v in runner.DEFAULT_REPS.items()) + ")")
    run.add_argument("--rebuild", action="store_true", help="build the tables again even when a build is there")
    run.add_argument("--workdir", default=runner.DEFAULT_ROOT, help="where the tables live (default %(default)s)")
    run.add_argument("--out", help="results directory (default: bench/results/planning for a full run with the "
                     "default repetitions, else <workdir>/results, so a smoke run leaves the committed results alone)")
    run.add_argument("--no-plots", action="store_true")
    run.add_argument("--no-row-counts", action="store_true", help="skip the untimed row-count check")
    rep = sub.add_parser("report", help="write report.md and the plot again from results.json")
    rep.add_argument("--out", default=runner.RESULTS_DIR)
    prof = sub.add_parser("profile", help="profile one Spark-based plan with Java Flight Recorder")
    prof.add_argument("--size", default="100k", choices=list(build.SHAPES))
    prof.add_argument("--system", default="hudi-meta-mdt", choices=["hudi-meta-mdt", "hudi-meta-listing", "spark-parquet"])
    prof.add_argument("--scenario", default="full", choices=["full", "partition", "range"])
    prof.add_argument("--runs", type=int, default=5)
    prof.add_argument("--workdir", default=runner.DEFAULT_ROOT)
    args = ap.parse_args(argv)

    if args.command == "profile":
        from rich.console import Console

        from bench.planning import profile

        res = profile.profile(args.size, args.system, args.scenario, args.runs, args.workdir)
        profile.print_profile(res, Console(width=160))
        return 0

    if args.command == "run":
        sizes = [s.strip() for s in args.sizes.split(",") if s.strip()]
        unknown = [s for s in sizes if s not in build.SHAPES]
        if unknown or not sizes:
            ap.error(f"unknown size(s) {unknown}; valid: {', '.join(build.SHAPES)}")
        if args.reps is not None and args.reps < 1:
            ap.error("--reps must be at least 1")
        out = args.out
        if out is None:
            full = sizes == list(build.SHAPES) and args.reps is None
            out = runner.RESULTS_DIR if full else os.path.join(args.workdir, "results")
        runner.run(sizes, reps=args.reps, rebuild=args.rebuild, root=args.workdir, out=out,
                   plots=not args.no_plots, row_counts=not args.no_row_counts)
        return 0

    from bench import results
    from bench.planning import report

    results.rewrite_report(report, args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
