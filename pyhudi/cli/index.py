"""The index commands: create (Apache Hudi's indexing action, on Spark, while writers go on), list, lookup
(the record index's location of keys, a secondary index's keys of values) and drop; only create starts Spark."""
from __future__ import annotations

import time

from rich.console import Console

from pyhudi.cli import common
from pyhudi.cli.progress import spark_tasks
from pyhudi.metadata import MetadataWriter
from pyhudi.storage import Storage
from pyhudi.table import properties


def _metadata_writer(path: str) -> MetadataWriter:
    """The metadata table of `path` with every partition it has kept (nothing dropped by opening it)."""
    from pyhudi.metadata.layout import SUPPORTED_PARTITIONS

    storage, base = Storage.for_uri(path)
    props = properties.load(storage, base)
    return MetadataWriter(storage, base, props, partitions=SUPPORTED_PARTITIONS)


@common.writes("create", "drop")
def cmd_index(args, console: Console) -> int:
    from pyhudi.metadata import record_index as ri
    from pyhudi.metadata.keys import RECORD_INDEX
    from pyhudi.metadata.layout import INFLIGHT_PARTITIONS_KEY, completed_partitions, csv
    from pyhudi.table import index_definitions

    part = _index_partition(args)
    if args.action == "create":
        from pyhudi.services import indexing
        spark = common.spark()
        with spark_tasks(spark, console, "indexing") as say:
            done = indexing.create(spark, args.path, part, common.options(args.option), progress=say,
                                   column=args.column)
        console.print(f"indexing {done.requested_time} completed: {part} is built")
        if part in ("record_index", "bloom_filters"):  # Apache Hudi's writers keep these by option only
            key = "record.index.enable" if part == "record_index" else "index.bloom.filter.enable"
            console.print(f"writes keep it with hoodie.metadata.{key}=true (a write with it false drops it)")
        return 0
    mdt = _metadata_writer(args.path)
    built = completed_partitions(mdt.data_props) if mdt.exists() else []
    if args.action == "list":
        state = mdt.state() if built else None
        defs = index_definitions.load(mdt.storage, mdt.base_path, mdt.data_props)
        for p in built:
            assert state is not None  # read above when some partition is built
            on = index_definitions.secondary_column(defs, p)
            console.print(f"{p}: built, {len(state.latest(p))} file groups" + (f", on column {on}" if on else ""))
        for p in csv(mdt.data_props.get(INFLIGHT_PARTITIONS_KEY)):
            console.print(f"{p}: being built")
        return 0
    if part not in built:
        what = "record index; write with hoodie.metadata.record.index.enable=true (or hoodie.index.type=" \
               "RECORD_INDEX) to build it" if part == RECORD_INDEX else f"{part}; pyhudi index create builds it"
        console.print(f"[red]error:[/red] {args.path} has no {what}")
        return 2
    if args.action == "drop":
        from pyhudi.services import indexing
        console.print(f"dropped {', '.join(indexing.drop(args.path, part))} of {args.path}")
        return 0
    if not args.keys:
        console.print("[red]error:[/red] index lookup needs at least one KEY (or VALUE with --name)")
        return 2
    if part != RECORD_INDEX:
        return _secondary_lookup(mdt, part, args.keys, console)
    found = mdt.read_partition(RECORD_INDEX, keys=args.keys)
    for key in args.keys:
        where = ri.location_of(found[key]) if key in found else None
        if where is None:
            console.print(f"{key}: not in the table")
        else:
            partition, file_id, millis = where
            console.print(f"{key}: partition {partition or '(none)'}, file group {file_id}, placed at "
                          f"{time.strftime('%Y-%m-%d %H:%M:%S', time.localtime(millis / 1000))}", soft_wrap=True)
    return 0


def _index_partition(args) -> str:
    """The MDT partition an index command names: record_index, or secondary_index_<name>."""
    from pyhudi.metadata import secondary_index as si

    if args.type != "secondary" and not args.name:
        if args.column:
            raise SystemExit("error: --column goes with --type secondary")
        return args.type
    if not (args.name or args.column):
        raise SystemExit("error: a secondary index needs --column COLUMN (to create one) or --name NAME")
    return si.partition_of(args.name or f"{args.column}_idx")


def _secondary_lookup(mdt, part: str, values: list[str], console: Console) -> int:
    from pyhudi.metadata import secondary_index as si

    found = mdt.read_partition(part, prefixes=[si.value_prefix(v) for v in values])
    keys: dict[str, list[str]] = {}
    for entry in sorted(found):
        value, key = si.split_key(entry)
        keys.setdefault(value, []).append(key)
    for value in values:
        console.print(f"{value}: " + (", ".join(keys[value]) if value in keys else "no record"), soft_wrap=True)
    return 0


def register(sub) -> None:
    ix = sub.add_parser("index", help="the metadata table's indexes: create (the indexing action), list, "
                                      "lookup KEY..., drop")
    ix.add_argument("action", choices=("create", "list", "lookup", "drop"))
    common.add_path(ix)
    ix.add_argument("keys", nargs="*", metavar="KEY", help="record keys (or, with --name, values) to look up")
    ix.add_argument("--type", default="record_index", choices=("record_index", "secondary", "column_stats",
                                                               "bloom_filters", "partition_stats"),
                    help="the index (create, drop); a secondary index is named by --name")
    ix.add_argument("--column", help="the column a secondary index covers (create)")
    ix.add_argument("--name", help="a secondary index's name (secondary_index_<name>; default <column>_idx)")
    common.add_options(ix, "hoodie.metadata.record.index.min.filegroup.count=4")
    ix.set_defaults(fn=cmd_index)
