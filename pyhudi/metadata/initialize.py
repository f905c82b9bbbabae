"""Building metadata partitions from a listing of the data table: each partition at its own
`00000000000000xxx` deltacommit, with one base HFile per non-empty file group and the bootstrap
log file (one empty delete block) per file group. `MetadataWriter.initialize` runs this while
writers go on, and then catches up with them."""
from __future__ import annotations

import functools
import posixpath
import time
from typing import Callable, Iterable, Mapping

from pyhudi.metadata import contents, data_files
from pyhudi.metadata.context import MdtContext
from pyhudi.metadata.errors import MetadataTableError
from pyhudi.metadata.keys import BLOOM_FILTERS, COLUMN_STATS, FILES, PARTITION_STATS, file_group_id
from pyhudi.metadata.layout import (
    INFLIGHT_PARTITIONS_KEY,
    completed_partitions,
    csv,
    init_instant,
    metadata_table_properties,
)
from pyhudi.metadata.partition_stats import latest_slice_files, partition_stats
from pyhudi.metadata.records import (
    ColumnStats,
    MetadataRecord,
    all_partitions_record,
    bloom_filter_record,
    column_stats_record,
    partition_files_record,
)
from pyhudi.metadata.schema import schema_text_without_meta_fields
from pyhudi.metadata.state import DataTimeline
from pyhudi.table import file_names, properties
from pyhudi.table import instant_metadata as im
from pyhudi.table.timeline import COMPLETED, Timeline

MDT_DIRS = ("timeline/history", ".aux/.bootstrap/.partitions", ".aux/.bootstrap/.fileids", ".schema", ".temp",
            ".heartbeat")
Files = dict[str, dict[str, tuple]]  # partition -> file name -> (size, column stats JSON, bloom Base64)


def normalise_listing(listing: Mapping[str, Iterable[tuple]]) -> Files:
    """A listing (partition -> [(file name, size[, column stats[, bloom]])]) by partition and name."""
    out: Files = {}
    for partition, entries in listing.items():
        files = out.setdefault(partition.strip("/") if partition not in (".",) else "", {})
        for entry in entries:
            name, size = entry[0], int(entry[1])
            stats = entry[2] if len(entry) > 2 else None
            bloom_b64 = entry[3] if len(entry) > 3 else None
            files[posixpath.basename(name)] = (size, stats, bloom_b64)
    return out


def build(ctx: MdtContext, parts: list[str], files: Files, data: DataTimeline) -> list[str]:
    """Writes the MDT's layout and properties and builds `parts`; returns their instants."""
    mdt_props = metadata_table_properties(ctx.data_props)
    for d in MDT_DIRS:
        ctx.storage.mkdirs(f"{ctx.mdt_path}/.hoodie/{d}")
    properties.save(ctx.storage, ctx.mdt_path, mdt_props)
    cols = ctx.columns(data)
    stats = file_stats(ctx, files, cols)
    tl = ctx.mdt_timeline()
    instants = []
    for offset, part in enumerate(parts):
        t = init_instant(offset)
        write_partition(ctx, tl, part, t, ctx.file_group_counts[part],
                        base_writer(ctx, part, functools.partial(records, ctx, part, files, stats, cols, data)))
        instants.append(t)
    return instants


def file_stats(ctx: MdtContext, files: Files, cols) -> dict[str, dict[str, dict[str, ColumnStats]]]:
    """partition -> file name -> column -> stats, from the listing or the Parquet footers."""
    return {p: {name: _file_column_stats(ctx, p, name, entry, cols) for name, entry in fs.items()}
            for p, fs in files.items()}


def _file_column_stats(ctx: MdtContext, partition: str, name: str, entry: tuple,
                       cols) -> dict[str, ColumnStats]:
    """The listing's statistics of a file, else what the file says (a Parquet footer, a log file's records)."""
    return data_files.column_stats(ctx, partition, name, cols, entry[1])


def _bloom_records(ctx: MdtContext, files: Files, instant: str) -> list[MetadataRecord]:
    out = []
    for p, fs in files.items():
        for name, (_, _, b64) in fs.items():
            if not file_names.is_base(name):
                continue
            btype: str | None = ctx.bloom_type
            if b64 is None and name.endswith(".parquet"):
                _, b64, btype = ctx.footer(p, name)
            if b64:
                out.append(bloom_filter_record(p, name, instant, b64, btype or ctx.bloom_type))
    return out


def records(ctx: MdtContext, part: str, files: Files, stats, cols, data: DataTimeline,
            instant: str) -> list[MetadataRecord]:
    """The records of MDT partition `part` for the files of `files` (`stats`: `file_stats`)."""
    if part == FILES:
        return [all_partitions_record(files)] + [partition_files_record(p, {n: e[0] for n, e in fs.items()})
                                                 for p, fs in files.items()]
    if part == COLUMN_STATS:
        return [column_stats_record(p, s) for p, by_file in stats.items()
                for by_col in by_file.values() for s in by_col.values()]
    if part == BLOOM_FILTERS:
        return _bloom_records(ctx, files, instant)
    if part == PARTITION_STATS:
        replaced = data.replaced_file_groups()
        out = []
        for p, fs in files.items():
            live = latest_slice_files(fs, data, replaced.get(p, set()))
            out += partition_stats(p, cols, {n: stats[p].get(n, {}) for n in live})
        return out
    raise MetadataTableError(f"cannot initialise metadata partition {part}")


def base_writer(ctx: MdtContext, part: str, records_at: Callable[[str], list[MetadataRecord]]
                ) -> Callable[[str, str], list[dict]]:
    """What writes the base HFiles of MDT partition `part` at an instant, into the partition folder given:
    one per non-empty file group of `records_at(instant)`; returns their write stats."""
    count = ctx.file_group_counts[part]

    def write_bases(instant: str, pdir: str) -> list[dict]:
        groups = contents.route(records_at(instant), count)
        stats = []
        for index, recs in sorted(groups.items()):
            fid = file_group_id(part, index)
            name = str(file_names.BaseFileName(fid, f"{index}-0-0", instant, "hfile"))
            data = contents.base_hfile(recs, name, ctx.compression)
            ctx.storage.write(f"{pdir}/{name}", data)
            stats.append(contents.write_stat(
                fileId=fid, path=f"{part}/{name}", numWrites=len(recs), numInserts=len(recs),
                totalWriteBytes=len(data), partitionPath=part, fileSizeInBytes=len(data)))
        return stats
    return write_bases


def write_partition(ctx: MdtContext, tl: Timeline, part: str, instant: str, count: int,
                    write_bases: Callable[[str, str], list[dict]]) -> None:
    """The deltacommit `instant` that creates MDT partition `part` with `count` file groups: each gets
    the bootstrap log file; `write_bases(instant, partition dir)` writes the base HFiles and returns their
    stats."""
    start = time.monotonic()
    requested = tl.create_requested("deltacommit", b"", requested_time=instant)
    inflight = tl.transition_to_inflight(requested, b"")
    pdir = f"{ctx.mdt_path}/{part}"
    ctx.storage.write(f"{pdir}/{file_names.PARTITION_METADATA}",
                         file_names.partition_metadata_text(instant, 1).encode())
    for index in range(count):
        bootstrap = file_names.LogFileName(file_group_id(part, index), instant, 1, contents.BOOTSTRAP_WRITE_TOKEN)
        ctx.storage.write(f"{pdir}/{bootstrap}", contents.bootstrap_log(instant))
    stats = write_bases(instant, pdir)
    for s in stats:
        s["runtimeStats"] = contents.runtime(create=contents.millis_since(start))
    meta = im.commit_metadata({part: stats} if stats else {}, "BULK_INSERT", schema_text_without_meta_fields())
    tl.complete(inflight, im.encode(im.COMMIT, meta))


def clear_build(ctx: MdtContext, partition: str) -> bool:
    """Clears what a build of `partition` that died left: the MDT instants that wrote only to it and its folder
    (the writer then drops its inflight mark); whether there was anything to clear."""
    if partition in completed_partitions(ctx.data_props) or not ctx.storage.exists(
            f"{ctx.mdt_path}/{partition}") and partition not in csv(ctx.data_props.get(INFLIGHT_PARTITIONS_KEY)):
        return False
    tl = ctx.mdt_timeline()
    mine = set()
    for inst in tl.instant_files():
        if inst.state == COMPLETED:
            parts = {p for p, _ in im.write_stats(im.decode(tl.read(inst)))}
            if parts and parts <= {partition}:
                mine.add(inst.requested_time)
    for inst in sorted(tl.instant_files(), key=lambda i: i.state != COMPLETED):  # completed first
        if inst.requested_time in mine:
            ctx.storage.delete(f"{tl.dir}/{inst.file_name(tl.layout)}")
    ctx.storage.delete(f"{ctx.mdt_path}/{partition}")
    return True
