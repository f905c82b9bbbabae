"""Adding the partitions built from the table's files - column_stats, bloom_filters, partition_stats - to a
metadata table that has `files` (Hudi builds a partition a writer enables at that write, or by the indexing
action; both run this).

The partition is listed inflight first (writers and readers leave it alone, and a writer completing while
the build's heartbeat is fresh commits under the hand-off lock). Its base files are built from a snapshot:
the files the MDT's `files` partition lists then, their column stats and bloom filters read from the
Parquet footers, at the next initialisation instant. Then, under the hand-off lock, the files listed now
are compared with the snapshot: the files added or grown since get their records, the files gone their
tombstones, and every data partition whose files or replaced file groups changed its partition stats again
- one MDT deltacommit - before the partition is listed as built. The comparison of listings, not a replay of
instants, is what makes cleans, rollbacks and replaces made during the build come out right.
"""
from __future__ import annotations

import functools
import logging
from dataclasses import dataclass
from typing import TYPE_CHECKING, Iterable

from pyhudi.metadata import commit as mdt_commit
from pyhudi.metadata import initialize as init_mod
from pyhudi.metadata.keys import BLOOM_FILTERS, COLUMN_STATS, PARTITION_STATS
from pyhudi.metadata.layout import completed_partitions, next_init_instant
from pyhudi.metadata.locks import HEARTBEAT_FILE, Heartbeat
from pyhudi.metadata.partition_stats import latest_slice_files, replacing
from pyhudi.metadata.records import (
    MetadataRecord,
    bloom_filter_record,
    column_stats_tombstone,
    partition_stats_tombstone,
)
from pyhudi.metadata.state import DataTimeline
from pyhudi.metadata.stats import META_COLUMNS_TO_INDEX
from pyhudi.metadata.writer import KEY_CHANGING_ACTIONS
from pyhudi.table import file_names

if TYPE_CHECKING:
    from pyhudi.metadata.writer import MetadataWriter

log = logging.getLogger(__name__)

PARTITIONS = (COLUMN_STATS, BLOOM_FILTERS, PARTITION_STATS)  # in the order they are built


@dataclass
class Snapshot:
    """What the base files were built from."""
    files: dict[str, dict[str, int]]  # data partition -> file name -> size
    stats: dict  # data partition -> file name -> column -> ColumnStats
    cols: list[str] | None
    replaced: dict[str, set[str]]  # data partition -> replaced file groups


def missing(writer: "MetadataWriter") -> list[str]:
    """The partitions of PARTITIONS `writer` maintains that the MDT has not built (nor is building now)."""
    built = completed_partitions(writer.data_props)
    wanted = [p for p in PARTITIONS if p in writer.maintained and p not in built
              and (p != PARTITION_STATS or writer.ctx.is_partitioned())]
    if wanted and writer.build_in_progress():
        return []
    if PARTITION_STATS in wanted and COLUMN_STATS not in built + wanted:
        wanted.remove(PARTITION_STATS)  # aggregated from column stats
    return wanted


def build_for_write(writer: "MetadataWriter", parts: list[str], own: str) -> bool:
    """Builds `parts` for the write `own` before it commits (so its commit writes them too). When other
    writes are pending it leaves them for a later write, as Hudi does, and returns False."""
    with Heartbeat(writer.storage, f"{writer.mdt_path}/{HEARTBEAT_FILE}"):
        for part in parts:
            writer.clear_build(part)
            writer.mark_inflight(part)
        # writes requested from now on see the build and commit under the hand-off lock; older ones may not
        others = [i.requested_time for i in writer.data_timeline().pending()
                  if i.action in KEY_CHANGING_ACTIONS and i.requested_time != own]
        if others:
            writer.unmark_inflight(parts)
            log.info("not building %s of %s now: write %s is pending; a later write builds it",
                     ", ".join(parts), writer.base_path, others[0])
            return False
        snap = build(writer, parts)
        with writer.handoff():
            tl = writer.mdt_timeline()
            catch_up(writer, snap, parts, next_init_instant(i.requested_time for i in tl.instant_files()))
            for part in parts:
                writer.list_partition(part)
    log.info("built %s of the metadata table of %s", ", ".join(parts), writer.base_path)
    return True


def build(writer: "MetadataWriter", parts: Iterable[str]) -> Snapshot:
    """Writes the base files of `parts` (listed inflight, not built) from the files the MDT lists now, each
    partition at the next initialisation instant; returns the snapshot they were built from."""
    writer.catch_up()
    files = writer.files_listing()
    data = DataTimeline(writer.data_timeline())
    cols = writer.ctx.columns(data)
    entries = _entries(files)
    stats = init_mod.file_stats(writer.ctx, entries, cols)
    for part in parts:
        records_at = functools.partial(init_mod.records, writer.ctx, part, entries, stats, cols, data)
        writer.add_partition(part, writer.file_group_counts[part], init_mod.base_writer(writer.ctx, part, records_at),
                             listed=False)
    return Snapshot(files, stats, cols, data.replaced_file_groups())


def catch_up(writer: "MetadataWriter", snap: Snapshot, parts: Iterable[str], instant: str) -> int:
    """Writes what changed in the files since `snap` to `parts` as the MDT deltacommit `instant` (under
    the hand-off lock, so no write completes meanwhile); returns how many files changed."""
    writer.catch_up()
    now = writer.files_listing()
    data = DataTimeline(writer.data_timeline())
    replaced = data.replaced_file_groups()
    added = {p: {n: s for n, s in fs.items() if snap.files.get(p, {}).get(n) != s} for p, fs in now.items()}
    added = {p: fs for p, fs in added.items() if fs}
    gone = {p: [n for n in fs if n not in now.get(p, {})] for p, fs in snap.files.items()}
    gone = {p: names for p, names in gone.items() if names}
    if not added and not gone and replaced == snap.replaced:
        return 0
    new_entries = _entries(added)
    new_stats = init_mod.file_stats(writer.ctx, new_entries, snap.cols)
    records: dict[str, list[MetadataRecord]] = {}
    if COLUMN_STATS in parts:
        cols = snap.cols or list(META_COLUMNS_TO_INDEX)
        records[COLUMN_STATS] = init_mod.records(writer.ctx, COLUMN_STATS, new_entries, new_stats, snap.cols, data,
                                                 instant) + [
            column_stats_tombstone(p, n, c) for p, names in gone.items() for n in names for c in cols]
    if BLOOM_FILTERS in parts:
        records[BLOOM_FILTERS] = init_mod.records(writer.ctx, BLOOM_FILTERS, new_entries, new_stats, snap.cols, data,
                                                  instant) + [
            bloom_filter_record(p, n, instant, None, deleted=True)
            for p, names in gone.items() for n in names if file_names.is_base(n)]
    if PARTITION_STATS in parts:
        records[PARTITION_STATS] = _partition_stats(snap, now, new_stats, data, replaced, set(added) | set(gone))
    mdt_commit.write_deltacommit(writer.state(), writer.storage, instant, records, {}, writer.file_group_counts,
                                 writer.compression)
    return sum(map(len, added.values())) + sum(map(len, gone.values()))


def _partition_stats(snap: Snapshot, now: dict[str, dict[str, int]], new_stats: dict, data: DataTimeline,
                     replaced: dict[str, set[str]], changed: set[str]) -> list[MetadataRecord]:
    """Each data partition whose files or replaced groups changed, aggregated again over its latest
    slices; the partitions gone lose theirs."""
    changed |= {p for p in set(replaced) | set(snap.replaced) if replaced.get(p) != snap.replaced.get(p)}
    cols = snap.cols or []
    out = []
    for p in sorted(changed):
        if p not in now:
            out += [partition_stats_tombstone(p, c) for c in cols]
            continue
        entries = _entries({p: now[p]})[p]
        known = {**snap.stats.get(p, {}), **new_stats.get(p, {})}
        live = latest_slice_files(entries, data, replaced.get(p, set()))
        out += replacing(p, cols, {n: known.get(n, {}) for n in live})
    return out


def _entries(files: dict[str, dict[str, int]]) -> init_mod.Files:
    """A listing as `initialize` takes it: no stats or bloom filter given (read from the footers)."""
    return {p: {n: (size, None, None) for n, size in fs.items()} for p, fs in files.items()}

