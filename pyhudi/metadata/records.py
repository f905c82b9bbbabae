"""Records of the metadata table (MDT) as Hudi 1.0 writes them for table version 8: a decoded
`HoodieMetadataRecord` and the constructors of each kind of record. Map and record contents
follow `HoodieMetadataPayload` / `HoodieTableMetadataUtil` of Apache Hudi 1.x; each uncertain
choice is marked where it is made."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Mapping

from pyhudi.metadata.errors import MetadataRecordError
from pyhudi.metadata.java_hash import java_hashmap_order
from pyhudi.metadata.keys import (
    ALL_PARTITIONS_KEY,
    bloom_filter_key,
    column_stats_key,
    files_key,
    partition_id,
    partition_stats_key,
)
from pyhudi.metadata.wrappers import Wrapped

# the `type` field of a record
TYPE_ALL_PARTITIONS = 1
TYPE_FILES = 2
TYPE_COLUMN_STATS = 3
TYPE_BLOOM_FILTER = 4
TYPE_RECORD_INDEX = 5
TYPE_PARTITION_STATS = 6
TYPE_SECONDARY_INDEX = 7


@dataclass
class ColumnStats:
    """HoodieMetadataColumnStats (table version 8 fields)."""
    file_name: str | None
    column_name: str | None
    min_value: Wrapped | None = None
    max_value: Wrapped | None = None
    value_count: int | None = 0
    null_count: int | None = 0
    total_size: int | None = 0
    total_uncompressed_size: int | None = 0
    is_deleted: bool = False
    is_tight_bound: bool = False


@dataclass
class BloomFilterInfo:
    """HoodieMetadataBloomFilter: `bloom_filter` holds the UTF-8 bytes of the Base64 filter text."""
    type: str
    timestamp: str
    bloom_filter: bytes
    is_deleted: bool = False


@dataclass
class MetadataRecord:
    """One metadata-table record. `deleted` marks a delete-block entry (the key is removed);
    `files` maps file (or partition) names to (size, isDeleted) in on-disk map order."""
    key: str
    type: int
    files: dict[str, tuple[int, bool]] | None = None
    bloom: BloomFilterInfo | None = None
    stats: ColumnStats | None = None
    record_index: dict | None = None
    secondary_index: dict | None = None
    deleted: bool = False

    @property
    def is_present(self) -> bool:
        """False for delete-block entries and for deleted stats/bloom payloads (readers skip them)."""
        if self.deleted:
            return False
        if self.stats is not None and self.stats.is_deleted:
            return False
        if self.bloom is not None and self.bloom.is_deleted:
            return False
        if self.secondary_index is not None and self.secondary_index.get("isDeleted"):
            return False
        return True

    def live_files(self) -> dict[str, int]:
        """Files (or partitions) listed and not deleted, by name."""
        return {n: s for n, (s, d) in (self.files or {}).items() if not d}


def deletion(key: str) -> MetadataRecord:
    """A delete-block entry for `key`."""
    return MetadataRecord(key, 0, deleted=True)


def all_partitions_record(partitions: Iterable[str], deleted: bool = False) -> MetadataRecord:
    """`__all_partitions__`: partition ids -> {0, deleted}, in a default HashMap."""
    ids = java_hashmap_order(partition_id(p) for p in partitions)
    return MetadataRecord(ALL_PARTITIONS_KEY, TYPE_ALL_PARTITIONS, {i: (0, deleted) for i in ids})


def partition_files_record(partition: str, added: Mapping[str, int],
                           deleted: Iterable[str] = ()) -> MetadataRecord:
    """A partition's file list change: added files with their sizes, deleted ones as {0, true}
    (`createPartitionFilesRecord`: a HashMap sized for the entries with load factor 1, filled with
    the added files - themselves collected in a HashMap sized for them - then the deleted ones)."""
    deleted = [d for d in deleted if d not in added]
    for name, size in added.items():
        if size <= 0:
            raise MetadataRecordError(f"file {name} of partition {partition!r} has size {size}; "
                                      "Hudi never records empty files")
    added_order = java_hashmap_order(added, initial_capacity=len(added))
    order = java_hashmap_order(added_order + list(deleted), initial_capacity=len(added) + len(deleted),
                               load_factor=1.0)
    files = {n: ((added[n], False) if n in added else (0, True)) for n in order}
    return MetadataRecord(files_key(partition), TYPE_FILES, files)


def column_stats_record(partition: str, stats: ColumnStats) -> MetadataRecord:
    assert stats.column_name is not None and stats.file_name is not None  # only decoded stats lack them
    return MetadataRecord(column_stats_key(stats.column_name, partition, stats.file_name), TYPE_COLUMN_STATS,
                          stats=stats)


def column_stats_tombstone(partition: str, file_name: str, column: str) -> MetadataRecord:
    """What Hudi writes for a column of a deleted file: a stub with isDeleted = true."""
    return column_stats_record(partition, ColumnStats(file_name, column, value_count=0, null_count=0,
                                                      total_size=0, total_uncompressed_size=0,
                                                      is_deleted=True))


def partition_stats_record(partition: str, stats: ColumnStats) -> MetadataRecord:
    """`stats.file_name` holds the partition path, as Hudi stores it."""
    assert stats.column_name is not None  # only decoded stats lack it
    return MetadataRecord(partition_stats_key(stats.column_name, partition), TYPE_PARTITION_STATS, stats=stats)


def partition_stats_tombstone(partition: str, column: str) -> MetadataRecord:
    """The statistics of a column of a partition that is gone: a deleted, tight stub."""
    return partition_stats_record(partition, ColumnStats("", column, value_count=0, null_count=0, total_size=0,
                                                         total_uncompressed_size=0, is_deleted=True,
                                                         is_tight_bound=True))


def bloom_filter_record(partition: str, base_file_name: str, instant: str, bloom_base64: str | bytes | None,
                        bloom_type: str = "DYNAMIC_V0", deleted: bool = False) -> MetadataRecord:
    """A base file's bloom filter (the UTF-8 bytes of its Base64 text); a deletion carries an
    empty type and filter."""
    if deleted:
        info = BloomFilterInfo("", instant, b"", True)
    else:
        assert bloom_base64 is not None  # None only for a deletion
        raw = bloom_base64.encode("ascii") if isinstance(bloom_base64, str) else bytes(bloom_base64)
        info = BloomFilterInfo(bloom_type, instant, raw, False)
    return MetadataRecord(bloom_filter_key(partition, base_file_name), TYPE_BLOOM_FILTER, bloom=info)
