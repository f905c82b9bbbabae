"""One MDT deltacommit at a data instant's time: the records a data instant yields for each
maintained MDT partition, and the log files (an HFile data block, a delete block for dropped
keys) written for them, one per touched file group.

`write_stats` are `pyhudi.table.write_stat.WriteStat`s; of each, this module reads the partition,
path, file size, whether it is a log file, its column statistics and its bloom filter (of the
instant's `bloom_type` unless the stat names one).
"""
from __future__ import annotations

import posixpath
import time
from dataclasses import dataclass, field
from typing import Callable, Iterable, Mapping

from pyhudi.metadata import contents, partition_stats
from pyhudi.metadata.keys import (
    BLOOM_FILTERS,
    COLUMN_STATS,
    FILES,
    PARTITION_ORDER,
    PARTITION_STATS,
    file_group_id,
    files_key,
)
from pyhudi.metadata.reader import read_files
from pyhudi.metadata.records import (
    ColumnStats,
    MetadataRecord,
    all_partitions_record,
    bloom_filter_record,
    column_stats_record,
    column_stats_tombstone,
    partition_files_record,
    partition_stats_tombstone,
)
from pyhudi.metadata.schema import schema_text_without_meta_fields
from pyhudi.metadata.state import MdtState
from pyhudi.metadata.stats import META_COLUMNS_TO_INDEX, parse_column_stats
from pyhudi.storage import Storage
from pyhudi.table import file_names
from pyhudi.table import instant_metadata as im
from pyhudi.table.timeline import Instant
from pyhudi.table.write_stat import WriteStat

WRITE_ACTIONS = ("commit", "deltacommit", "replacecommit", "compaction", "clustering", "logcompaction")


@dataclass
class DataInstant:
    """What a data instant changed, as `MetadataWriter.commit` is told it."""
    instant: str
    action: str
    write_stats: list[WriteStat]
    replaced: dict[str, set[str]] = field(default_factory=dict)  # partition -> replaced file ids
    deleted: dict[str, list[str]] = field(default_factory=dict)  # partition -> removed file names
    dropped: list[str] = field(default_factory=list)  # partitions gone entirely
    operation: str | None = None
    bloom_type: str = "DYNAMIC_V0"

    def written(self) -> list[WriteStat]:
        return [s for s in self.write_stats if s.path]

    def added(self) -> dict[str, dict[str, int]]:
        """partition -> file name -> size, for every partition the instant has a write stat in."""
        out: dict[str, dict[str, int]] = {}
        for s in self.write_stats:
            files = out.setdefault(s.partition, {})
            if s.path:
                name = posixpath.basename(s.path)
                files[name] = max(int(s.file_size), files.get(name, 0))
            if s.cdc_path:  # listed like any file of the partition, as Hudi does
                files[posixpath.basename(s.cdc_path)] = int(s.cdc_size or 0)
        return out


def records_of(state: MdtState, change: DataInstant, enabled: Iterable[str], cols: list[str] | None
               ) -> tuple[dict[str, list[MetadataRecord]], dict[str, list[str]]]:
    """The records (and delete-block keys) of one data instant, per MDT partition in `enabled`;
    `cols` are the columns to index."""
    enabled = set(enabled)
    if change.dropped:  # a dropped partition takes the statistics and bloom filters of all its files along
        for p, files in read_files(state, change.dropped).items():
            change.deleted[p] = list(dict.fromkeys(change.deleted.get(p, []) + sorted(files)))
    records: dict[str, list[MetadataRecord]] = {p: [] for p in enabled}
    deletes: dict[str, list[str]] = {p: [] for p in enabled}
    added = change.added()
    records[FILES], deletes[FILES] = _files(change, added)
    new_stats: dict[str, dict[str, dict[str, ColumnStats]]] = {}
    if COLUMN_STATS in enabled:
        records[COLUMN_STATS] = _column_stats(change, cols, new_stats)
    if BLOOM_FILTERS in enabled:
        records[BLOOM_FILTERS] = _bloom_filters(change)
    if PARTITION_STATS in enabled and cols:
        records[PARTITION_STATS] = _partition_stats(state, change, cols, added, new_stats)
    return records, deletes


def _files(change: DataInstant, added: dict[str, dict[str, int]]) -> tuple[list[MetadataRecord], list[str]]:
    records = []
    if change.action in WRITE_ACTIONS:
        records.append(all_partitions_record(added))
    for p in dict.fromkeys(list(added) + list(change.deleted)):
        if p not in change.dropped:
            records.append(partition_files_record(p, added.get(p, {}), change.deleted.get(p, ())))
    if not change.dropped:
        return records, []
    records.append(all_partitions_record(change.dropped, deleted=True))
    return records, [files_key(p) for p in change.dropped]


def _column_stats(change: DataInstant, cols: list[str] | None, new_stats: dict) -> list[MetadataRecord]:
    """The written files' column stats (collected into `new_stats` too) and the deleted files' tombstones."""
    out = []
    for s in change.written():
        name = posixpath.basename(s.path)
        parsed = parse_column_stats(name, s.column_stats, cols)
        new_stats.setdefault(s.partition, {})[name] = {c.column_name: c for c in parsed}
        out += [column_stats_record(s.partition, c) for c in parsed]
    tomb_cols = cols or list(META_COLUMNS_TO_INDEX)
    for p, names in change.deleted.items():
        out += [column_stats_tombstone(p, n, c) for n in names for c in tomb_cols]
    return out


def _bloom_filters(change: DataInstant) -> list[MetadataRecord]:
    """The written files' bloom filters (base files; log files under log-file indexing, RFC-06: Apache Hudi
    looks up base file names only), and tombstones for the deleted ones."""
    out = [bloom_filter_record(s.partition, posixpath.basename(s.path), change.instant, s.bloom,
                               s.bloom_type or change.bloom_type)
           for s in change.written() if s.bloom]
    for p, names in change.deleted.items():
        out += [bloom_filter_record(p, n, change.instant, None, deleted=True) for n in names
                if file_names.is_base(n) or file_names.is_log(n)]
    return out


def _partition_stats(state: MdtState, change: DataInstant, cols: list[str], added, new_stats) -> list[MetadataRecord]:
    """Tombstones for partitions gone; recomputed stats over the latest file slices of each
    partition the instant wrote files to."""
    gone = set(change.dropped)
    if (change.operation or "").lower() == "delete_partition":
        gone |= set(change.replaced)
    out = [partition_stats_tombstone(p, c) for p in sorted(gone) for c in cols]
    if change.action not in WRITE_ACTIONS:
        return out
    written = {s.partition for s in change.written()}
    touched = [p for p in added if p not in gone and p in written]
    if touched:
        out += partition_stats.for_commit(state, touched, cols, change.instant, added, change.deleted,
                                          change.replaced, new_stats)
    return out


# ---------------------------------------------------------------- the deltacommit


def _plan(records: Mapping[str, list[MetadataRecord]], deletes: Mapping[str, list[str]],
          counts: Mapping[str, int]) -> dict[str, dict[int, tuple[list[MetadataRecord], list[str]]]]:
    """MDT partition -> file-group index -> (records, delete keys), for the touched file groups."""
    plan: dict[str, dict[int, tuple[list[MetadataRecord], list[str]]]] = {}
    for part in PARTITION_ORDER:
        if part not in records:
            continue
        groups = contents.route(records[part], counts[part])
        dels: dict[int, list[str]] = {}
        for key in dict.fromkeys(deletes.get(part, ())):
            dels.setdefault(contents.group_of(key, counts[part]), []).append(key)
        for index in sorted(set(groups) | set(dels)):
            plan.setdefault(part, {})[index] = (groups.get(index, []), dels.get(index, []))
    return plan


def _inflight_stats(state: MdtState, plan) -> dict[str, list[dict]]:
    """The inflight file's stats: each touched file group with the base instant it updates."""
    out = {}
    for part, groups in plan.items():
        latest = state.latest(part)
        stats = [contents.write_stat(fileId="", prevCommit="null")]
        for index, (recs, _) in groups.items():
            fid = file_group_id(part, index)
            base = latest[fid].base_instant if fid in latest else "null"
            stats.append(contents.write_stat(fileId=fid, prevCommit=base, numUpdateWrites=len(recs)))
        out[part] = stats
    return out


def write_deltacommit(state: MdtState, storage: Storage, instant: str, records: Mapping[str, list[MetadataRecord]],
                      deletes: Mapping[str, list[str]], counts: Mapping[str, int], compression: str,
                      external: Mapping[str, Callable[[str], list[dict]]] | None = None) -> Instant:
    """Writes the MDT deltacommit `instant`: requested, inflight, one log file per touched file
    group, completed. `counts`: file groups per MDT partition. `external`: MDT partition -> what
    writes that partition's log files elsewhere (record_index: on executors) once the instant is
    inflight, returning their write stats."""
    start = time.monotonic()
    tl = state.timeline
    plan = _plan(records, deletes, counts)
    requested = tl.create_requested("deltacommit", b"", requested_time=instant)
    inflight = tl.transition_to_inflight(
        requested, im.encode(im.COMMIT, im.commit_metadata(_inflight_stats(state, plan), "UPSERT_PREPPED", None)))
    done_stats: dict[str, list[dict]] = {}
    task = 0
    for part, groups in plan.items():
        for index, (recs, dels) in groups.items():
            fid = file_group_id(part, index)
            name = str(file_names.LogFileName(fid, instant, 1, f"{task}-1-{task}"))
            task += 1
            data = contents.log_blocks(part, recs, dels, instant, compression)
            storage.write(f"{state.mdt_path}/{part}/{name}", data)
            done_stats.setdefault(part, []).append(contents.write_stat(
                fileId=fid, path=f"{part}/{name}", prevCommit=instant, numWrites=len(recs),
                numDeletes=len(dels), numUpdateWrites=len(recs), totalWriteBytes=len(data), partitionPath=part,
                fileSizeInBytes=len(data), logVersion=1, logOffset=0, baseFile="", logFiles=[name],
                runtimeStats=contents.runtime(upsert=contents.millis_since(start))))
    for part, write in (external or {}).items():
        written = write(instant)
        if written:
            done_stats.setdefault(part, []).extend(written)
    meta = im.commit_metadata(done_stats, "UPSERT_PREPPED", schema_text_without_meta_fields())
    return tl.complete(inflight, im.encode(im.COMMIT, meta))
