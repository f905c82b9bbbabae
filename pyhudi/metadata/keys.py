"""Names in the metadata table (docs/format.md §6.2, §7.5): its partitions, the record keys of
each partition, how a key is routed to a file group, and the file groups' ids.

Hash ids are what Hudi 1.0 writes for table version 8: XXHash64 (seed 0xdabadaba sign-extended)
or MD5, each Base64 with padding. Keys go to file groups by Java `String.hashCode`,
`abs(abs(h) % n)` (`HoodieTableMetadataUtil.mapRecordKeyToFileGroupIndex`).
"""
from __future__ import annotations

import base64
import functools
import hashlib
import struct

from pyhudi.metadata.errors import MetadataRecordError
from pyhudi.metadata.hashing import M64, xxhash64
from pyhudi.metadata.java_hash import java_abs, java_rem, java_string_hash

FILES = "files"
COLUMN_STATS = "column_stats"
BLOOM_FILTERS = "bloom_filters"
RECORD_INDEX = "record_index"
PARTITION_STATS = "partition_stats"
SECONDARY_INDEX_PREFIX = "secondary_index_"  # + the index name: one MDT partition per secondary index

# Initialisation order (MetadataPartitionType enum order) of the partitions this writer builds.
PARTITION_ORDER = (FILES, COLUMN_STATS, BLOOM_FILTERS, RECORD_INDEX, PARTITION_STATS)

FILE_ID_PREFIX = {FILES: "files-", COLUMN_STATS: "col-stats-", BLOOM_FILTERS: "bloom-filters-",
                  RECORD_INDEX: "record-index-", PARTITION_STATS: "partition-stats-"}

# Hudi 1.0 defaults: hoodie.metadata.index.{column.stats,bloom.filter,partition.stats}.file.group.count
DEFAULT_FILE_GROUP_COUNT = {FILES: 1, COLUMN_STATS: 2, BLOOM_FILTERS: 4, PARTITION_STATS: 1, RECORD_INDEX: 10}

ALL_PARTITIONS_KEY = "__all_partitions__"
NON_PARTITIONED_ID = "."

# The seed of Hudi's 64-bit hash ids: the Java int 0xdabadaba widened to long (sign-extended).
HASH_SEED = (0xDABADABA - (1 << 32)) & M64


@functools.lru_cache(maxsize=65536)
def hash_id64(s: str) -> str:
    """Base64 of the 8 big-endian bytes of XXH64(UTF-8 of s, Hudi's seed) - 12 characters."""
    return base64.b64encode(struct.pack(">Q", xxhash64(s.encode("utf-8"), HASH_SEED))).decode("ascii")


def hash_id128(s: str) -> str:
    """Base64 of the MD5 digest of the UTF-8 of s - 24 characters."""
    return base64.b64encode(hashlib.md5(s.encode("utf-8")).digest()).decode("ascii")


def partition_id(partition_path: str | None) -> str:
    """How a data partition is named inside the metadata table ("." when non-partitioned)."""
    return NON_PARTITIONED_ID if not partition_path else partition_path


def partition_path(partition_id_: str) -> str:
    """Inverse of `partition_id`."""
    return "" if partition_id_ == NON_PARTITIONED_ID else partition_id_


def files_key(partition: str) -> str:
    return partition_id(partition)


def column_stats_prefix(column: str, partition: str) -> str:
    return hash_id64(column) + hash_id64(partition_id(partition))


def column_stats_key(column: str, partition: str, file_name: str) -> str:
    """Key of one column of one (base or log) file: 12 + 12 + 24 characters."""
    return column_stats_prefix(column, partition) + hash_id128(file_name)


def partition_stats_key(column: str, partition: str) -> str:
    return hash_id64(column) + hash_id64(partition_id(partition))


def bloom_filter_key(partition: str, base_file_name: str) -> str:
    return hash_id64(partition_id(partition)) + hash_id128(base_file_name)


@functools.lru_cache(maxsize=1 << 16)  # a partition's column-stats keys are routed again at each commit
def file_group_index(key: str, file_group_count: int) -> int:
    """HoodieTableMetadataUtil.mapRecordKeyToFileGroupIndex: abs(abs(hash) % n), Java semantics."""
    if file_group_count <= 0:
        raise MetadataRecordError(f"file group count must be positive, got {file_group_count}")
    return abs(java_rem(java_abs(java_string_hash(key)), file_group_count))


def is_secondary_index(mdt_partition: str) -> bool:
    return mdt_partition.startswith(SECONDARY_INDEX_PREFIX) and len(mdt_partition) > len(SECONDARY_INDEX_PREFIX)


def file_group_id(mdt_partition: str, index: int) -> str:
    """`files-0000-0`, `col-stats-0001-0`, `secondary-index-rider-idx-0003-0`, ...: prefix + 4-digit index +
    "-0" (a secondary index's prefix is its partition name with `_` -> `-`)."""
    if is_secondary_index(mdt_partition):
        return f"{mdt_partition.replace('_', '-')}-{index:04d}-0"
    if mdt_partition not in FILE_ID_PREFIX:
        raise MetadataRecordError(f"unknown metadata partition {mdt_partition!r}; "
                                  f"known: {', '.join(FILE_ID_PREFIX)}, secondary_index_<name>")
    return f"{FILE_ID_PREFIX[mdt_partition]}{index:04d}-0"
