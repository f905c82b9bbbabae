"""The metadata table's commands: create (from one listing, writers need not stop), delete, validate every
partition against the data and repair what differs (Spark only for the record-level indexes), stats, and the
RFC-15 comparison of lookups (perf)."""
from __future__ import annotations

import time

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from pyhudi.cli import common
from pyhudi.errors import HudiError
from pyhudi.metadata import MetadataWriter, listing_from_storage, of_table
from pyhudi.metadata.validation import exit_status
from pyhudi.services import metadata_check, metadata_repair

SHOWN = 20  # differences shown per partition


@common.writes("create", "delete", "repair")
def cmd_metadata(args, console: Console) -> int:
    mdt = of_table(args.path)
    if args.action == "create":
        with console.status("listing the table (writers may go on meanwhile)...") as status:
            def progress(stage: str, detail: str) -> None:
                console.print(f"{stage}: {detail}")
                status.update({"listed": "building the metadata partitions...",
                               "built": "applying writes completed during the build..."}.get(stage, "finishing..."))
            instants = mdt.initialize(progress=progress)
        console.print(f"metadata table created: partitions {', '.join(mdt.partitions())} "
                      f"(instants {', '.join(instants)})")
        return 0
    if args.action == "delete":
        mdt.delete()
        console.print("metadata table deleted; readers list storage until it is created again")
        return 0
    if not mdt.exists():
        console.print(f"[red]no metadata table at {mdt.mdt_path}[/red]; create it with `pyhudi metadata create`")
        return 1
    if args.action == "validate":
        return _validate(args, mdt, console)
    if args.action == "repair":
        return _repair(args, console)
    return {"stats": _stats, "perf": _perf}[args.action](mdt, console)


def _validate(args, mdt: MetadataWriter, console: Console) -> int:
    """Storage listed partition by partition under a bar, then each metadata partition checked; the exit
    status has one bit per partition that differs (pyhudi.metadata.validation.EXIT_BITS)."""
    with console.status("reading the metadata table..."):
        try:
            expected = len(mdt.files_listing())
        except (HudiError, OSError) as e:  # the check below names the file
            console.print(f"[red]the metadata table's files partition cannot be read[/red]: {e}")
            expected = 0
    with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                  console=console, transient=True) as bar:
        task = bar.add_task("listing storage", total=expected or None)
        listing = listing_from_storage(mdt.storage, mdt.base_path, mdt.data_timeline(),
                                       listed=lambda partition: bar.advance(task))
    console.print(f"listed {len(listing):,} partitions of storage ({expected:,} in the metadata table)")
    with console.status("checking the metadata partitions against the data..."):
        results = metadata_check.validate(args.path, args.partition or None, common.spark, listing)
    for part, diffs in results.items():
        if not diffs:
            console.print(f"{part}: agrees with the data")
            continue
        console.print(f"[red]{part}: {len(diffs):,} difference(s)[/red]")
        for d in diffs[:SHOWN]:
            console.print(f"  {d.where or '(table)'}: {d.what}: metadata table {d.metadata!r}, data {d.actual!r}")
        if len(diffs) > SHOWN:
            console.print(f"  ... and {len(diffs) - SHOWN:,} more")
    status = exit_status(results)
    if status:
        console.print(f"build what differs again: pyhudi metadata repair {args.path} "
                      f"(exit status {status}: {', '.join(p for p, d in results.items() if d)})")
    return status


def _repair(args, console: Console) -> int:
    """Each partition named (or each the validator finds differing) built again, then the validator's answer."""
    with console.status("repairing the metadata table (writers may go on meanwhile)...") as status:
        def progress(line: str) -> None:
            console.print(line)
            status.update(line)
        rebuilt, after = metadata_repair.repair(args.path, args.partition or None, common.spark, progress)
    console.print(f"built again: {', '.join(rebuilt)}" if rebuilt else "nothing to repair: every partition agrees")
    for part, diffs in after.items():
        said = "agrees with the data" if not diffs else f"[red]{len(diffs):,} difference(s)[/red]"
        console.print(f"{part}: {said}")
    return exit_status(after)


def _stats(mdt: MetadataWriter, console: Console) -> int:
    listing = mdt.files_listing()
    table = Table(title=f"metadata table of {mdt.base_path}")
    for col in ("metadata partition", "files on storage", "bytes"):
        table.add_column(col)
    for part in mdt.partitions():
        entries = [e for e in mdt.storage.list(f"{mdt.mdt_path}/{part}") if not e.is_dir]
        table.add_row(part, str(len(entries)), str(sum(e.size for e in entries)))
    console.print(table)
    console.print(f"data partitions listed: {len(listing)}; data files listed: "
                  f"{sum(len(f) for f in listing.values())}")
    return 0


def _timed(fn):
    start = time.perf_counter()
    out = fn()
    return out, (time.perf_counter() - start) * 1000


def _perf(mdt: MetadataWriter, console: Console) -> int:
    """RFC-15's comparison: getAllPartitions and getAllFilesInPartition, metadata vs listing."""
    from_mdt, mdt_ms = _timed(mdt.files_listing)
    from_storage, list_ms = _timed(lambda: listing_from_storage(mdt.storage, mdt.base_path))
    table = Table(title="metadata table vs storage listing (ms)")
    for col in ("operation", "metadata table", "listing"):
        table.add_column(col)
    table.add_row(f"getAllPartitions + getAllFilesInPartition ({len(from_mdt)} partitions)",
                  f"{mdt_ms:.1f}", f"{list_ms:.1f}")
    if from_mdt:
        part = sorted(from_mdt)[0]
        _, one_mdt = _timed(lambda: mdt.files_listing().get(part))
        _, one_list = _timed(lambda: mdt.storage.list(f"{mdt.base_path}/{part}" if part else mdt.base_path))
        table.add_row(f"getAllFilesInPartition({part or '.'})", f"{one_mdt:.1f}", f"{one_list:.1f}")
    console.print(table)
    return 0


def register(sub) -> None:
    meta = sub.add_parser("metadata", help="metadata table: create, delete, validate, repair, stats, perf")
    meta.add_argument("action", choices=("create", "delete", "validate", "repair", "stats", "perf"))
    common.add_path(meta)
    meta.add_argument("--partition", action="append", default=[], metavar="PARTITION",
                      help="validate, repair: only this metadata partition (files, column_stats, partition_stats, "
                           "bloom_filters, record_index, secondary_index_<name>); repeatable")
    meta.set_defaults(fn=cmd_metadata)
