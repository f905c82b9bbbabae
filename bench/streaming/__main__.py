"""python -m bench.streaming [--commits N] [--inserts N] [--updates N] [--only VARIANT] [--workdir DIR] [--out DIR]
                          [--index-type TYPE] [--log-index-key KEY] [--option KEY=VALUE] [--warmup N] [--no-plots]
python -m bench.streaming --report [--out DIR]   (report.md + plot again from results.json)

Streaming ingest (issue 17): N commits (default 200), each of 1,000 new keys + 1,000 updates of random
existing keys, into a merge-on-read table written by pyhudi with the BLOOM index, pyhudi's log-file
indexing on and off, Avro and Parquet log data blocks. Measures each commit's latency, the base and log
files left on disk, and snapshot / read-optimized full-scan reads through hudi-meta after the last commit."""
from __future__ import annotations

import argparse
import sys


def _csv(text: str) -> list[str]:
    return [s.strip() for s in text.split(",") if s.strip()]


def main(argv: list[str] | None = None) -> int:
    from bench.streaming import runner

    ap = argparse.ArgumentParser(prog="python -m bench.streaming", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--commits", type=int, default=runner.DEFAULT_COMMITS, help="commits per variant (default %(default)s)")
    ap.add_argument("--inserts", type=int, default=runner.DEFAULT_INSERTS, help="new keys per commit (default %(default)s)")
    ap.add_argument("--updates", type=int, default=runner.DEFAULT_UPDATES,
                    help="updates of random existing keys per commit (default %(default)s)")
    ap.add_argument("--only", action="append", help=f"only these variants ({', '.join(runner.VARIANTS)}); repeatable "
                    "or comma-separated")
    ap.add_argument("--workdir", default=runner.DEFAULT_ROOT, help="where the tables live (default %(default)s)")
    ap.add_argument("--out", default=runner.RESULTS_DIR, help="results directory (default %(default)s)")
    ap.add_argument("--index-type", default=runner.INDEX_TYPE, help="hoodie.index.type (default %(default)s)")
    ap.add_argument("--log-index-key", default=runner.LOG_INDEX_KEY,
                    help="the option the ON variants set to true (default %(default)s)")
    ap.add_argument("--option", action="append", default=[], metavar="KEY=VALUE",
                    help="a write option for every variant; repeatable")
    ap.add_argument("--warmup", type=int, default=runner.JVM_WARMUP_COMMITS,
                    help="untimed JVM warm-up commits per variant on a scratch table (default %(default)s)")
    ap.add_argument("--no-plots", action="store_true")
    ap.add_argument("--report", action="store_true", help="only write report.md and the plot again from results.json")
    args = ap.parse_args(argv)

    if args.report:
        from bench import results
        from bench.streaming import report

        results.rewrite_report(report, args.out)
        return 0
    only = [w for o in args.only or [] for w in _csv(o)] or None
    unknown = [w for w in only or [] if w not in runner.VARIANTS]
    if unknown:
        ap.error(f"unknown variant(s) {', '.join(unknown)}; valid: {', '.join(runner.VARIANTS)}")
    if args.commits < 1 or args.inserts < 1 or args.updates < 0 or args.warmup < 0:
        ap.error("--commits and --inserts must be at least 1, --updates and --warmup at least 0")
    extra = {}
    for kv in args.option:
        key, sep, value = kv.partition("=")
        if not sep or not key.strip():
            ap.error(f"--option takes KEY=VALUE, got {kv!r}")
        extra[key.strip()] = value.strip()
    runner.run(args.commits, args.inserts, args.updates, only, args.workdir, args.out, index_type=args.index_type,
               log_index_key=args.log_index_key, extra=extra, warmup_commits=args.warmup, plots=not args.no_plots)
    return 0


if __name__ == "__main__":
    sys.exit(main())
