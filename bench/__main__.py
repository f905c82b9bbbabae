"""python -m bench run [--scale small|medium] [--only NAME ...] [--resume]
python -m bench report [--scale small|medium]      (report + plots again from results.json)"""
from __future__ import annotations

import argparse
import json
import os
import sys

from bench.scales import SCALES
from bench.systems import SYSTEMS
from bench.workloads import WORKLOADS


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m bench", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="command", required=True)
    run = sub.add_parser("run", help="run the benchmark (data generation, every workload for every system)")
    run.add_argument("--scale", choices=list(SCALES), default="small",
                     help="; ".join(f"{k}: {v.shape.rows} rows, {v.description}" for k, v in SCALES.items()).replace("%", "%%"))
    run.add_argument("--only", action="append", default=[], metavar="NAME",
                     help="run only matching cases: a workload (" + ", ".join(WORKLOADS) + "), a system ("
                          + ", ".join(SYSTEMS) + ") or part of a case id; repeatable, comma-separated allowed")
    run.add_argument("--resume", action="store_true",
                     help="skip cases that results.json already holds for this data (an interrupted run goes on)")
    run.add_argument("--workdir", help="where data and tables live (default: <tmp>/pyhudi-bench/<scale>)")
    run.add_argument("--out", help="results directory (default: bench/results/<scale>)")
    run.add_argument("--no-plots", action="store_true", help="skip the PNG plots")
    rep = sub.add_parser("report", help="write report.md and the plots again from results.json")
    rep.add_argument("--scale", choices=list(SCALES), default="small")
    rep.add_argument("--out", help="results directory (default: bench/results/<scale>)")
    args = ap.parse_args(argv)

    from bench import runner

    if args.command == "run":
        only = [t.strip() for item in args.only for t in item.split(",") if t.strip()]
        doc = runner.run(scale=args.scale, only=only, resume=args.resume, workdir=args.workdir, out=args.out,
                         plots=not args.no_plots)
        return 1 if any(c.get("status") == "error" for c in doc["cases"].values()) else 0

    from rich.console import Console

    from bench import plots, report

    out = args.out or os.path.join(runner.RESULTS_ROOT, args.scale)
    with open(os.path.join(out, "results.json")) as f:
        doc = json.load(f)
    report.write_markdown(doc, out)
    plots.write_all(doc, out)
    console = Console()
    if not console.is_terminal:
        console = Console(width=max(console.width, 150))
    console.print(report.summary_table(doc))
    return 0


if __name__ == "__main__":
    sys.exit(main())
