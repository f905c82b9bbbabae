"""python -m apache_hudi [--release R] install | sql STATEMENT [--table NAME=PATH] | read PATH | validate PATH
python -m apache_hudi matrix [--only NAME]"""
from __future__ import annotations

import argparse
import sys

from apache_hudi.releases import NEWEST, RELEASES


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m apache_hudi", description=__doc__)
    ap.add_argument("--release", default=NEWEST, choices=list(RELEASES),
                    help="Apache Hudi release (default %(default)s)")
    sub = ap.add_subparsers(dest="command", required=True)
    sub.add_parser("install", help="fetch the release's bundle and make the pyspark virtualenv")
    sql = sub.add_parser("sql", help="run one SQL statement or CALL in Apache Hudi's Spark session")
    sql.add_argument("statement")
    sql.add_argument("--table", action="append", default=[], metavar="NAME=PATH",
                     help="register the table at PATH as NAME first (procedures take table => NAME)")
    read = sub.add_parser("read", help='spark.read.format("hudi").load(PATH), printed')
    read.add_argument("path")
    read.add_argument("--option", action="append", default=[], metavar="KEY=VALUE")
    read.add_argument("--where", help="a SQL condition")
    read.add_argument("--limit", type=int, default=50)
    mat = sub.add_parser("matrix", help="every scenario of apache_hudi.matrix.FULL; results in apache_hudi/results")
    mat.add_argument("--only", action="append", default=[], metavar="NAME", help="scenarios whose name has NAME")
    val = sub.add_parser("validate", help="Hudi's metadata-table reader against the data files; exit 1 on a difference")
    val.add_argument("path")
    args = ap.parse_args(argv)

    from apache_hudi import install
    from apache_hudi.process import ApacheHudi, HudiError
    from apache_hudi.releases import release

    if args.command == "matrix":
        from apache_hudi import report

        return report.run(args.only)
    if args.command == "install":
        print(install.python())
        print(install.bundle_jar(release(args.release)))
        return 0
    with ApacheHudi(args.release) as hudi:
        try:
            return _run(hudi, args)
        except HudiError as exc:
            print(f"Apache Hudi {args.release}: {exc}", file=sys.stderr)
            return 2


def _run(hudi, args) -> int:
    if args.command == "sql":
        for item in args.table:
            name, path = item.split("=", 1)
            hudi.register(path, name)
        _show(hudi.sql(args.statement), limit=None)
    elif args.command == "read":
        options = dict(item.split("=", 1) for item in args.option)
        _show(hudi.read(args.path, where=args.where, **options), limit=args.limit)
    elif args.command == "validate":
        from apache_hudi.validate import validate

        problems = validate(hudi, args.path)
        for line in problems:
            print(line)
        print(f"Apache Hudi {hudi.release.version}: {len(problems)} differences" if problems
              else f"Apache Hudi {hudi.release.version}: the metadata table agrees with the data")
        return 1 if problems else 0
    return 0


def _show(table, limit: int | None) -> None:
    rows = table.to_pylist()
    shown = rows if limit is None else rows[:limit]
    print(" | ".join(table.column_names))
    for row in shown:
        print(" | ".join("" if v is None else str(v) for v in row.values()))
    print(f"({len(rows)} rows{'' if len(shown) == len(rows) else f', {len(shown)} shown'})")


if __name__ == "__main__":
    sys.exit(main())
