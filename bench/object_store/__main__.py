"""python -m bench.object_store run [--scale full|metadata|tiny] [--reps N] [--warm-reps N]
python -m bench.object_store report          (report.md + plot again from results.json)

Planning a full snapshot query of 100k- and 1M-file tables from the metadata table and by listing, and a
small upsert, on the project's S3 server at 0, 5 and 30 ms per request: seconds and requests by op."""
from __future__ import annotations

import argparse
import json
import os
import sys

from bench.object_store import tables


def main(argv: list[str] | None = None) -> int:
    from bench.object_store import markdown, report, runner

    ap = argparse.ArgumentParser(prog="python -m bench.object_store", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="command", required=True)
    run = sub.add_parser("run", help="build (or reuse) the tables, upload them, time planning and the upsert")
    run.add_argument("--scale", default="full", choices=list(tables.SCALES),
                     help="full: 100k (real) and 1M (.hoodie only) files; metadata: 100k and 1M .hoodie only (the metadata-table "
                     "plans), 200 real; tiny: 200 and 2k, for the smoke test")
    run.add_argument("--reps", type=int, help="cold runs per case and latency, and timed upserts (default 3)")
    run.add_argument("--warm-reps", type=int, help="warm runs per case and latency (default: --reps)")
    run.add_argument("--workdir", default=runner.DEFAULT_ROOT, help="where the local tables live (default %(default)s)")
    run.add_argument("--out", help="results directory (default bench/results/object_store for a full run at the "
                     "default repetitions, else <workdir>/results)")
    run.add_argument("--no-plots", action="store_true")
    rep = sub.add_parser("report", help="write report.md and the plot again from results.json")
    rep.add_argument("--out", default=runner.RESULTS_DIR)
    args = ap.parse_args(argv)

    if args.command == "run":
        if (args.reps is not None and args.reps < 1) or (args.warm_reps is not None and args.warm_reps < 0):
            ap.error("--reps must be at least 1, --warm-reps at least 0")
        out = args.out
        if out is None:
            default = args.scale == "full" and args.reps is None and args.warm_reps is None
            out = runner.RESULTS_DIR if default else os.path.join(args.workdir, "results")
        runner.run(args.scale, reps=args.reps, warm_reps=args.warm_reps, root=args.workdir, out=out,
                   plots=not args.no_plots)
        return 0

    with open(os.path.join(args.out, "results.json")) as f:
        doc = json.load(f)
    doc["extrapolated"] = report.extrapolate(doc) if tables.SCALES[doc["scale"]].extrapolate else {}
    doc["targets"] = report.targets(doc)
    markdown.write_markdown(doc, args.out)
    report.write_plot(doc, args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
