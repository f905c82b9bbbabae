"""What the CLI's commands share: a table's timeline, `--option KEY=VALUE` pairs, the path argument, and the
Spark session of the commands that rewrite files (started only by them, its console bars off: the CLI draws
its own, pyhudi.cli.progress)."""
from __future__ import annotations

import functools
import sys

from pyhudi.storage import Storage
from pyhudi.table import properties
from pyhudi.table.timeline import Timeline


def table_timeline(path: str) -> tuple[Storage, str, Timeline]:
    storage, base = Storage.for_uri(path)
    return storage, base, Timeline.for_table(storage, base, properties.load(storage, base))


def options(pairs: list[str]) -> dict[str, str]:
    out = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise ValueError(f"--option {pair!r} is not KEY=VALUE")
        out[key.strip()] = value.strip()
    return out


def add_path(parser) -> None:
    parser.add_argument("path", help="table base path (local path or URI)")


def add_options(parser, example: str) -> None:
    parser.add_argument("--option", action="append", default=[], metavar="KEY=VALUE",
                        help=f"an Apache Hudi option, e.g. {example}; repeatable")


def spark():
    from pyhudi import spark_session  # lazily: only the services that rewrite files need Spark

    # a table on S3 named on the command line: S3A's jars (its settings come from $HADOOP_CONF_DIR/core-site.xml)
    on_s3 = any(arg.startswith(("s3://", "s3a://")) for arg in sys.argv[1:])
    return spark_session(s3_tables=on_s3 or None, **{"spark.ui.showConsoleProgress": "false"})


def writes(*actions: str):
    """Marks a command that writes the table (with `actions`: only those of its `action` argument): it is
    refused at once, before Spark starts or anything is planned, on a table version pyhudi only reads."""
    def wrap(command):
        @functools.wraps(command)
        def checked(args, console):
            if not actions or args.action in actions:
                storage, base = Storage.for_uri(args.path)
                properties.check_writable(properties.load(storage, base), args.path)
            return command(args, console)
        return checked
    return wrap
