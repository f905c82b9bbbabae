"""Records of the metadata table (MDT) as Hudi 1.0 writes them for table version 8.

What lives here (FORMAT-NOTES §6.2, §7):

* hash ids and record keys of the `files`, `column_stats`, `partition_stats` and `bloom_filters`
  partitions: XXHash64 (seed 0xdabadaba sign-extended) and MD5, Base64 with padding;
* the key -> file-group mapping (Java `String.hashCode`, `abs(abs(h) % n)`) and file-group ids;
* `MetadataRecord`, a decoded `HoodieMetadataRecord`, its Avro binary encoding under the on-disk
  writer schema (`schemas/HoodieMetadata.avsc`: the record schema with the five `_hoodie_*` meta
  fields first) with the `key` field blanked to "" (the HFile row holds the key), and decoding;
* Hudi's merge of two records of one key (`HoodieMetadataPayload.preCombine`): file maps merge per
  file name, a deleted file drops an older entry, stats merge unless the newer one is a tight bound
  or either is deleted, bloom filters and everything else: newer wins;
* min/max value wrappers (`BooleanWrapper` ... `LocalDateWrapper`) chosen per column type the way
  Hudi 1.0's Parquet footer reader converts statistics (`ParquetUtils.convertToNativeJavaType`
  followed by `HoodieAvroUtils.wrapValueIntoAvro`), see `wrapper_for_type`;
* `column_stats_json`, the per-file column statistics executors attach to write stats;
* a simulation of `java.util.HashMap` iteration order, so that Avro maps are written in the order
  the Java writer would have produced.

Map and record contents follow `HoodieMetadataPayload` / `HoodieTableMetadataUtil` of Apache Hudi
1.x; each uncertain choice is marked where it is made.
"""
from __future__ import annotations

import base64
import datetime as dt
import decimal
import functools
import hashlib
import io
import json
import math
import struct
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Iterable, Mapping

import fastavro
from pyhudi.avro.binary import avro_bytes as _bytes, zigzag as _zigzag

# ---------------------------------------------------------------- partitions and types

FILES = "files"
COLUMN_STATS = "column_stats"
BLOOM_FILTERS = "bloom_filters"
RECORD_INDEX = "record_index"
PARTITION_STATS = "partition_stats"

# Initialisation order (MetadataPartitionType enum order) of the partitions this writer builds.
PARTITION_ORDER = (FILES, COLUMN_STATS, BLOOM_FILTERS, RECORD_INDEX, PARTITION_STATS)

FILE_ID_PREFIX = {FILES: "files-", COLUMN_STATS: "col-stats-", BLOOM_FILTERS: "bloom-filters-",
                  RECORD_INDEX: "record-index-", PARTITION_STATS: "partition-stats-"}

# Hudi 1.0 defaults: hoodie.metadata.index.{column.stats,bloom.filter,partition.stats}.file.group.count
DEFAULT_FILE_GROUP_COUNT = {FILES: 1, COLUMN_STATS: 2, BLOOM_FILTERS: 4, PARTITION_STATS: 1, RECORD_INDEX: 10}

TYPE_ALL_PARTITIONS = 1
TYPE_FILES = 2
TYPE_COLUMN_STATS = 3
TYPE_BLOOM_FILTER = 4
TYPE_RECORD_INDEX = 5
TYPE_PARTITION_STATS = 6
TYPE_SECONDARY_INDEX = 7

ALL_PARTITIONS_KEY = "__all_partitions__"
NON_PARTITIONED_ID = "."

# Meta columns Hudi always indexes (a TreeMap, hence this order), then the first
# hoodie.metadata.index.column.stats.max.columns.to.index (32) supported data columns.
META_COLUMNS_TO_INDEX = ("_hoodie_commit_time", "_hoodie_partition_path", "_hoodie_record_key")
META_COLUMNS = ("_hoodie_commit_time", "_hoodie_commit_seqno", "_hoodie_record_key",
                "_hoodie_partition_path", "_hoodie_file_name", "_hoodie_operation")
DEFAULT_MAX_COLUMNS_TO_INDEX = 32
DECIMAL_MAX_PRECISION, DECIMAL_MAX_SCALE = 30, 15


class MetadataRecordError(ValueError):
    pass


# ---------------------------------------------------------------- XXHash64, hash ids, keys

_P1 = 0x9E3779B185EBCA87
_P2 = 0xC2B2AE3D27D4EB4F
_P3 = 0x165667B19E3779F9
_P4 = 0x85EBCA77C2B2AE63
_P5 = 0x27D4EB2F165667C5
_M64 = (1 << 64) - 1

# The seed of Hudi's 64-bit hash ids: the Java int 0xdabadaba widened to long (sign-extended).
HASH_SEED = (0xDABADABA - (1 << 32)) & _M64


def _rotl(x: int, r: int) -> int:
    return ((x << r) | (x >> (64 - r))) & _M64


def _round(acc: int, lane: int) -> int:
    acc = (acc + lane * _P2) & _M64
    return (_rotl(acc, 31) * _P1) & _M64


def _merge_round(acc: int, val: int) -> int:
    acc ^= _round(0, val)
    return (acc * _P1 + _P4) & _M64


def xxhash64(data: bytes, seed: int = 0) -> int:
    """XXH64 of `data` (unsigned 64-bit result); `seed` is taken modulo 2**64."""
    seed &= _M64
    n, i = len(data), 0
    if n >= 32:
        v1, v2, v3, v4 = (seed + _P1 + _P2) & _M64, (seed + _P2) & _M64, seed, (seed - _P1) & _M64
        while i + 32 <= n:
            a, b, c, d = struct.unpack_from("<4Q", data, i)
            v1, v2, v3, v4 = _round(v1, a), _round(v2, b), _round(v3, c), _round(v4, d)
            i += 32
        h = (_rotl(v1, 1) + _rotl(v2, 7) + _rotl(v3, 12) + _rotl(v4, 18)) & _M64
        for v in (v1, v2, v3, v4):
            h = _merge_round(h, v)
    else:
        h = (seed + _P5) & _M64
    h = (h + n) & _M64
    while i + 8 <= n:
        h ^= _round(0, struct.unpack_from("<Q", data, i)[0])
        h = (_rotl(h, 27) * _P1 + _P4) & _M64
        i += 8
    if i + 4 <= n:
        h ^= (struct.unpack_from("<I", data, i)[0] * _P1) & _M64
        h = (_rotl(h, 23) * _P2 + _P3) & _M64
        i += 4
    while i < n:
        h ^= (data[i] * _P5) & _M64
        h = (_rotl(h, 11) * _P1) & _M64
        i += 1
    h ^= h >> 33
    h = (h * _P2) & _M64
    h ^= h >> 29
    h = (h * _P3) & _M64
    return h ^ (h >> 32)


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


def java_string_hash(s: str) -> int:
    """Java's String.hashCode: h = 31*h + UTF-16 code unit, as a signed 32-bit int."""
    h = 0
    raw = s.encode("utf-16-be")
    for i in range(0, len(raw), 2):
        h = (31 * h + ((raw[i] << 8) | raw[i + 1])) & 0xFFFFFFFF
    return h - (1 << 32) if h & 0x80000000 else h


def _java_abs(i: int) -> int:
    return i if i == -(1 << 31) else abs(i)  # Math.abs(Integer.MIN_VALUE) stays negative


def file_group_index(key: str, file_group_count: int) -> int:
    """HoodieTableMetadataUtil.mapRecordKeyToFileGroupIndex: abs(abs(hash) % n), Java semantics."""
    if file_group_count <= 0:
        raise MetadataRecordError(f"file group count must be positive, got {file_group_count}")
    h = _java_abs(java_string_hash(key))
    rem = h % file_group_count if h >= 0 else -((-h) % file_group_count)  # Java's truncating %
    return abs(rem)


def file_group_id(mdt_partition: str, index: int) -> str:
    """`files-0000-0`, `col-stats-0001-0`, ...: prefix + 4-digit index + "-0"."""
    if mdt_partition not in FILE_ID_PREFIX:
        raise MetadataRecordError(f"unknown metadata partition {mdt_partition!r}; "
                                  f"known: {', '.join(FILE_ID_PREFIX)}")
    return f"{FILE_ID_PREFIX[mdt_partition]}{index:04d}-0"


# ---------------------------------------------------------------- java.util.HashMap order

_TREEIFY_THRESHOLD = 8
_MIN_TREEIFY_CAPACITY = 64


def _spread(key: str) -> int:
    h = java_string_hash(key) & 0xFFFFFFFF
    return h ^ (h >> 16)


def _table_size_for(cap: int) -> int:
    n = 1
    while n < cap:
        n <<= 1
    return n


class JavaHashMap:
    """The key order of a java.util.HashMap<String, ?>: buckets in index order, each holding its
    keys in insertion order (resizes keep that relative order). Covers the constructors
    `HashMap()` / `HashMap(cap[, loadFactor])`, put, putAll (which sizes an empty table for the
    incoming entries) and remove. Bins Java turns into trees (9+ colliding keys in a table of 64+
    buckets) are kept in insertion order here."""

    def __init__(self, initial_capacity: int | None = None, load_factor: float = 0.75):
        self.load_factor = load_factor
        self.capacity = 0
        self.threshold = 0 if initial_capacity is None else _table_size_for(max(initial_capacity, 1))
        self.table: list[list[str]] = []
        self.size = 0

    def _resize(self) -> None:
        old = self.capacity
        if old > 0:
            self.capacity = old << 1
            self.threshold = self.threshold << 1 if old >= 16 else int(self.capacity * self.load_factor)
        elif self.threshold > 0:
            self.capacity = self.threshold
            self.threshold = int(self.capacity * self.load_factor)
        else:
            self.capacity, self.threshold = 16, int(16 * self.load_factor)
        table: list[list[str]] = [[] for _ in range(self.capacity)]
        for bucket in self.table:
            for k in bucket:
                table[_spread(k) & (self.capacity - 1)].append(k)
        self.table = table

    def put(self, key: str) -> None:
        if self.capacity == 0:
            self._resize()
        bucket = self.table[_spread(key) & (self.capacity - 1)]
        if key in bucket:
            return
        bucket.append(key)
        if len(bucket) > _TREEIFY_THRESHOLD and self.capacity < _MIN_TREEIFY_CAPACITY:
            self._resize()
        self.size += 1
        if self.size > self.threshold:
            self._resize()

    def put_all(self, keys: Iterable[str]) -> None:
        keys = list(keys)
        if not keys:
            return
        if self.capacity == 0:
            wanted = int(len(keys) / self.load_factor + 1.0)
            if wanted > self.threshold:
                self.threshold = _table_size_for(wanted)
        elif len(keys) > self.threshold:
            self._resize()
        for k in keys:
            self.put(k)

    def remove(self, key: str) -> None:
        if self.capacity:
            bucket = self.table[_spread(key) & (self.capacity - 1)]
            if key in bucket:
                bucket.remove(key)
                self.size -= 1

    def keys(self) -> list[str]:
        return [k for bucket in self.table for k in bucket]


def java_hashmap_order(keys: Iterable[str], initial_capacity: int | None = None,
                       load_factor: float = 0.75) -> list[str]:
    """Iteration order of `new HashMap<>([initial_capacity[, load_factor]])` after putting
    `keys` one by one."""
    m = JavaHashMap(initial_capacity, load_factor)
    for k in keys:
        m.put(k)
    return m.keys()


# ---------------------------------------------------------------- schema

SCHEMA_PATH = Path(__file__).resolve().parents[1] / "schemas" / "HoodieMetadata.avsc"


@functools.cache
def schema() -> dict:
    """The on-disk writer schema (meta fields first), as a JSON object."""
    with open(SCHEMA_PATH, encoding="utf-8") as f:
        return json.load(f)


@functools.cache
def schema_text() -> str:
    """The writer schema exactly as Hudi stores it (HFile file info `schema`, block SCHEMA header)."""
    return json.dumps(schema(), separators=(",", ":"), ensure_ascii=False)


@functools.cache
def schema_text_without_meta_fields() -> str:
    """The `HoodieMetadataRecord` schema alone: what MDT commit metadata keeps under `schema`."""
    s = dict(schema())
    s["fields"] = [f for f in s["fields"] if not f["name"].startswith("_hoodie_")]
    return json.dumps(s, separators=(",", ":"), ensure_ascii=False)


@functools.lru_cache(maxsize=8)
def _parsed(text: str):
    return fastavro.parse_schema(json.loads(text))


def _union_record_names(field_name: str) -> list[str]:
    stats = _record_schema("HoodieMetadataColumnStats")
    for f in stats["fields"]:
        if f["name"] == field_name:
            return [(t if isinstance(t, str) else t["name"]).rsplit(".", 1)[-1] for t in f["type"]]
    raise MetadataRecordError(f"HoodieMetadataColumnStats has no field {field_name}")


def _record_schema(name: str) -> dict:
    def walk(node):
        if isinstance(node, list):
            for n in node:
                found = walk(n)
                if found:
                    return found
        elif isinstance(node, dict):
            if node.get("type") == "record":
                if node["name"] == name:
                    return node
                for f in node["fields"]:
                    found = walk(f["type"])
                    if found:
                        return found
            for key in ("items", "values"):
                if key in node:
                    found = walk(node[key])
                    if found:
                        return found
        return None

    found = walk(schema())
    if found is None:
        raise MetadataRecordError(f"no record {name} in HoodieMetadata.avsc")
    return found


# ---------------------------------------------------------------- value wrappers

BOOLEAN, INT, LONG, FLOAT, DOUBLE, BYTES, STRING, DATE, DECIMAL, TIME_MICROS, TIMESTAMP_MICROS, LOCAL_DATE = (
    "BooleanWrapper", "IntWrapper", "LongWrapper", "FloatWrapper", "DoubleWrapper", "BytesWrapper",
    "StringWrapper", "DateWrapper", "DecimalWrapper", "TimeMicrosWrapper", "TimestampMicrosWrapper",
    "LocalDateWrapper")


@functools.cache
def wrapper_names() -> tuple[str, ...]:
    """Branches of the minValue/maxValue union after null, in schema order (index + 1 on disk)."""
    names = _union_record_names("minValue")
    if names[0] != "null":
        raise MetadataRecordError("minValue union does not start with null")
    return tuple(names[1:])


@dataclass(frozen=True)
class Wrapped:
    """One min/max value: the wrapper record name and its Python value.

    Values: bool; int (Int/Long/Date/LocalDate epoch days/TimeMicros/TimestampMicros epoch
    micros); float; bytes; str; decimal.Decimal (DecimalWrapper, written at scale 15)."""
    wrapper: str
    value: Any

    def __post_init__(self):
        if self.wrapper not in wrapper_names():
            raise MetadataRecordError(f"unknown value wrapper {self.wrapper!r}; valid: {', '.join(wrapper_names())}")


def wrapper_for_type(arrow_type: str) -> str | None:
    """The wrapper Hudi 1.0 uses for Parquet column statistics of a column of this Arrow type
    (the type string as `str(pyarrow.DataType)` renders it), or None when the type is not indexed.

    Parquet statistics reach Hudi as: INT32 -> Integer (int8/16/32, time-millis), INT64 -> Long
    (int64, timestamps in the file's unit, time-micros), FLOAT/DOUBLE/BOOLEAN as such, UTF8 binary
    -> String, other binary -> ByteBuffer, DECIMAL (any physical type) -> BigDecimal, DATE ->
    java.sql.Date; `wrapValueIntoAvro` then picks Int/Long/Float/Double/Boolean/String/Bytes/
    Decimal/DateWrapper. Timestamps therefore land in LongWrapper (raw epoch value), not in
    TimestampMicrosWrapper (which only java.sql.Timestamp values get). Decimal, date and binary
    columns were not seen in any table-version-8 fixture: their wrappers follow the sources
    (uncertain); v9 writes decimals as BytesWrapper plus a valueType, which v8 has no field for.
    """
    t = arrow_type.strip()
    if t in ("string", "large_string", "string_view", "utf8", "large_utf8"):
        return STRING
    if t in ("int8", "int16", "int32", "uint8", "uint16") or t.startswith("time32"):
        return INT
    if t in ("int64", "uint32", "uint64") or t.startswith("timestamp") or t.startswith("time64") \
            or t.startswith("duration"):
        return LONG
    if t in ("float", "float32", "halffloat", "float16"):
        return FLOAT
    if t in ("double", "float64"):
        return DOUBLE
    if t in ("bool", "boolean"):
        return BOOLEAN
    if t in ("binary", "large_binary", "binary_view") or t.startswith("fixed_size_binary"):
        return BYTES
    if t.startswith("decimal"):
        return DECIMAL
    if t.startswith("date"):
        return DATE
    return None  # lists, structs, maps, dictionaries, nulls: Hudi does not index them


def decimal_fits(precision: int, scale: int) -> bool:
    """Decimal columns Hudi indexes: those DecimalWrapper's decimal(30, 15) holds exactly."""
    return scale <= DECIMAL_MAX_SCALE and precision + (DECIMAL_MAX_SCALE - scale) <= DECIMAL_MAX_PRECISION


def wrap(value: Any, wrapper: str) -> Wrapped | None:
    """A JSON/Python stat value (as `column_stats_json` emits it) in the given wrapper."""
    if value is None:
        return None
    if wrapper == BOOLEAN:
        return Wrapped(wrapper, bool(value))
    if wrapper in (INT, LONG, TIME_MICROS, TIMESTAMP_MICROS):
        return Wrapped(wrapper, int(value))
    if wrapper in (DATE, LOCAL_DATE):
        if isinstance(value, dt.date):
            value = (value - dt.date(1970, 1, 1)).days
        return Wrapped(wrapper, int(value))
    if wrapper in (FLOAT, DOUBLE):
        return Wrapped(wrapper, float(value))
    if wrapper == BYTES:
        return Wrapped(wrapper, base64.b64decode(value) if isinstance(value, str) else bytes(value))
    if wrapper == STRING:
        return Wrapped(wrapper, str(value))
    if wrapper == DECIMAL:
        return Wrapped(wrapper, decimal.Decimal(value))
    raise MetadataRecordError(f"unknown value wrapper {wrapper!r}")


def _float_key(x: float):
    # Java Float/Double.compare: -0.0 < 0.0, NaN above everything
    return (1, 0.0) if math.isnan(x) else (0, x, math.copysign(1.0, x))


def _sort_key(w: Wrapped):
    v = w.value
    if w.wrapper == STRING:
        return v.encode("utf-16-be")  # String.compareTo: UTF-16 code units
    if w.wrapper == BYTES:
        return tuple(b - 256 if b > 127 else b for b in v)  # ByteBuffer.compareTo: signed bytes
    if w.wrapper in (FLOAT, DOUBLE):
        return _float_key(v)
    return v


def compare(a: Wrapped, b: Wrapped) -> int | None:
    """Java natural order of two unwrapped values; None when they are of different kinds."""
    if a.wrapper != b.wrapper:
        return None
    ka, kb = _sort_key(a), _sort_key(b)
    return (ka > kb) - (ka < kb)


# ---------------------------------------------------------------- records

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
    return MetadataRecord(column_stats_key(stats.column_name, partition, stats.file_name), TYPE_COLUMN_STATS,
                          stats=stats)


def column_stats_tombstone(partition: str, file_name: str, column: str) -> MetadataRecord:
    """What Hudi writes for a column of a deleted file: a stub with isDeleted = true."""
    return column_stats_record(partition, ColumnStats(file_name, column, value_count=0, null_count=0,
                                                      total_size=0, total_uncompressed_size=0,
                                                      is_deleted=True))


def partition_stats_record(partition: str, stats: ColumnStats) -> MetadataRecord:
    """`stats.file_name` holds the partition path, as Hudi stores it."""
    return MetadataRecord(partition_stats_key(stats.column_name, partition), TYPE_PARTITION_STATS, stats=stats)


def bloom_filter_record(partition: str, base_file_name: str, instant: str, bloom_base64: str | bytes | None,
                        bloom_type: str = "DYNAMIC_V0", deleted: bool = False) -> MetadataRecord:
    """A base file's bloom filter (the UTF-8 bytes of its Base64 text); a deletion carries an
    empty type and filter."""
    if deleted:
        info = BloomFilterInfo("", instant, b"", True)
    else:
        raw = bloom_base64.encode("ascii") if isinstance(bloom_base64, str) else bytes(bloom_base64)
        info = BloomFilterInfo(bloom_type, instant, raw, False)
    return MetadataRecord(bloom_filter_key(partition, base_file_name), TYPE_BLOOM_FILTER, bloom=info)


# ---------------------------------------------------------------- merging (HoodieMetadataPayload)

def combine(older: MetadataRecord | None, newer: MetadataRecord) -> MetadataRecord:
    """The record after applying `newer` on top of `older` (same key)."""
    if older is None or newer.deleted or older.deleted:
        return newer
    if older.type != newer.type:
        raise MetadataRecordError(f"cannot combine a type {older.type} record with a type {newer.type} "
                                  f"record (key {newer.key!r})")
    if newer.type in (TYPE_ALL_PARTITIONS, TYPE_FILES):
        return replace(newer, files=combine_files(older.files or {}, newer.files or {}))
    if newer.type in (TYPE_COLUMN_STATS, TYPE_PARTITION_STATS) and older.stats and newer.stats:
        return replace(newer, stats=merge_stats(older.stats, newer.stats))
    return newer


def combine_files(older: Mapping[str, tuple[int, bool]],
                  newer: Mapping[str, tuple[int, bool]]) -> dict[str, tuple[int, bool]]:
    """`combineFileSystemMetadata`: a deletion removes an older entry (and is kept as a tombstone
    when there is none), otherwise the larger size wins.

    Entry order: Hudi 1.0's MDT compactions (the only place merged maps are written) produce the
    order of a `new HashMap<>()` filled by `putAll(newer)` and then the older entries - verified
    byte for byte on the compacted `files` base HFile of the table-version-8 fixture, where the
    alternatives (older first, or re-sized copies) give a different order."""
    merged: dict[str, tuple[int, bool]] = dict(older)
    for name, (size, deleted) in newer.items():
        old = merged.get(name)
        if old is None:
            merged[name] = (size, deleted)
        elif deleted:
            if old[1]:
                merged[name] = (size, deleted)
            else:
                del merged[name]
        else:
            merged[name] = (max(size, old[0]), False)
    order = JavaHashMap()
    order.put_all(newer)
    for name in older:
        order.put(name)
    return {n: merged[n] for n in order.keys() if n in merged}


def merge_stats(older: ColumnStats, newer: ColumnStats) -> ColumnStats:
    """`mergeColumnStatsRecords`: tombstones and tight bounds replace; otherwise widen the range
    and add up the counts."""
    if newer.is_deleted or older.is_deleted or newer.is_tight_bound:
        return newer
    return replace(newer,
                   min_value=_pick(older.min_value, newer.min_value, smaller=True),
                   max_value=_pick(older.max_value, newer.max_value, smaller=False),
                   value_count=_add(older.value_count, newer.value_count),
                   null_count=_add(older.null_count, newer.null_count),
                   total_size=_add(older.total_size, newer.total_size),
                   total_uncompressed_size=_add(older.total_uncompressed_size, newer.total_uncompressed_size))


def _add(a, b):
    if a is None:
        return b
    return a if b is None else a + b


def _pick(a: Wrapped | None, b: Wrapped | None, smaller: bool) -> Wrapped | None:
    if a is None:
        return b
    if b is None:
        return a
    c = compare(a, b)
    if c is None:
        return b
    return a if (c <= 0) == smaller else b


def aggregate_stats(ranges: Iterable[ColumnStats], file_name: str | None, column: str,
                    tight: bool) -> ColumnStats:
    """Partition-level stats of one column over files (`getColumnRangeInPartition`)."""
    out = ColumnStats(file_name, column, None, None, 0, 0, 0, 0, False, tight)
    for r in ranges:
        out.min_value = _pick(out.min_value, r.min_value, smaller=True)
        out.max_value = _pick(out.max_value, r.max_value, smaller=False)
        out.value_count = _add(out.value_count, r.value_count)
        out.null_count = _add(out.null_count, r.null_count)
        out.total_size = _add(out.total_size, r.total_size)
        out.total_uncompressed_size = _add(out.total_uncompressed_size, r.total_uncompressed_size)
    return out


# ---------------------------------------------------------------- Avro binary encoding

def _string(s: str) -> bytes:
    return _bytes(s.encode("utf-8"))


def _opt_string(s: str | None) -> bytes:
    return b"\x00" if s is None else b"\x02" + _string(s)


def _opt_long(v: int | None) -> bytes:
    return b"\x00" if v is None else b"\x02" + _zigzag(int(v))


def _opt_int(v: int | None) -> bytes:
    return _opt_long(v)


def _bool(v: bool) -> bytes:
    return b"\x01" if v else b"\x00"


def _twos_complement(n: int) -> bytes:
    """Minimal big-endian two's complement, as Java's BigInteger.toByteArray()."""
    return n.to_bytes(((n if n >= 0 else ~n).bit_length() // 8) + 1, "big", signed=True)


def _encode_wrapped(w: Wrapped | None) -> bytes:
    if w is None:
        return b"\x00"
    index = wrapper_names().index(w.wrapper) + 1
    v = w.value
    if w.wrapper == BOOLEAN:
        body = _bool(v)
    elif w.wrapper in (INT, LONG, DATE, LOCAL_DATE, TIME_MICROS, TIMESTAMP_MICROS):
        body = _zigzag(int(v))
    elif w.wrapper == FLOAT:
        body = struct.pack("<f", v)
    elif w.wrapper == DOUBLE:
        body = struct.pack("<d", v)
    elif w.wrapper == BYTES:
        body = _bytes(bytes(v))
    elif w.wrapper == STRING:
        body = _string(v)
    elif w.wrapper == DECIMAL:
        body = _bytes(_twos_complement(_unscaled(v)))
    else:  # pragma: no cover - Wrapped validates names
        raise MetadataRecordError(f"unknown wrapper {w.wrapper}")
    return _zigzag(index) + body


def _unscaled(v: decimal.Decimal) -> int:
    """The unscaled value at scale 15; Hudi refuses values that would need rounding."""
    with decimal.localcontext(prec=80):
        scaled = decimal.Decimal(v).scaleb(DECIMAL_MAX_SCALE)
        if scaled != scaled.to_integral_value():
            raise MetadataRecordError(f"decimal {v} has more than {DECIMAL_MAX_SCALE} fractional digits")
        unscaled = int(scaled)
    if len(str(abs(unscaled))) > DECIMAL_MAX_PRECISION:
        raise MetadataRecordError(f"decimal {v} does not fit decimal({DECIMAL_MAX_PRECISION}, {DECIMAL_MAX_SCALE})")
    return unscaled


def _encode_stats(s: ColumnStats) -> bytes:
    return b"".join([_opt_string(s.file_name), _opt_string(s.column_name), _encode_wrapped(s.min_value),
                     _encode_wrapped(s.max_value), _opt_long(s.value_count), _opt_long(s.null_count),
                     _opt_long(s.total_size), _opt_long(s.total_uncompressed_size), _bool(s.is_deleted),
                     _bool(s.is_tight_bound)])


def encode_record(record: MetadataRecord, file_name: str | None = None) -> bytes:
    """Avro binary of the record under `schema_text()`: meta fields null except
    `_hoodie_file_name` (the base HFile's own name in base files, None in log blocks) and `key`
    written as "" - readers take the key from the HFile row."""
    if record.deleted:
        raise MetadataRecordError(f"{record.key!r} is a deletion: it goes to a delete block, not an HFile")
    out = [b"\x00" * 4, _opt_string(file_name), _string(""), _zigzag(record.type)]
    if record.files is None:
        out.append(b"\x00")
    else:
        out.append(b"\x02")
        if record.files:
            out.append(_zigzag(len(record.files)))
            for name, (size, deleted) in record.files.items():
                out += [_string(name), _zigzag(int(size)), _bool(deleted)]
        out.append(b"\x00")
    if record.bloom is None:
        out.append(b"\x00")
    else:
        b = record.bloom
        out += [b"\x02", _string(b.type), _string(b.timestamp), _bytes(b.bloom_filter), _bool(b.is_deleted)]
    out.append(b"\x00" if record.stats is None else b"\x02" + _encode_stats(record.stats))
    if record.record_index is None:
        out.append(b"\x00")
    else:
        r = record.record_index
        out += [b"\x02", _opt_string(r.get("partitionName")), _opt_long(r.get("fileIdHighBits")),
                _opt_long(r.get("fileIdLowBits")), _opt_int(r.get("fileIndex")), _opt_string(r.get("fileId")),
                _opt_long(r.get("instantTime")), _zigzag(int(r.get("fileIdEncoding") or 0)),
                _opt_long(r.get("position"))]
    if record.secondary_index is None:
        out.append(b"\x00")
    else:
        out += [b"\x02", _bool(bool(record.secondary_index.get("isDeleted")))]
    return b"".join(out)


# ---------------------------------------------------------------- decoding

def decode_record(key: str, value: bytes, writer_schema: str | None = None) -> MetadataRecord:
    """A record from an HFile cell: `key` is the row, `value` the Avro binary under
    `writer_schema` (the block's SCHEMA header or the HFile's `schema` file info; ours when None)."""
    parsed = _parsed(writer_schema or schema_text())
    try:
        rec = fastavro.schemaless_reader(io.BytesIO(value), parsed, return_record_name=True,
                                         return_record_name_override=True)
    except Exception as e:  # noqa: BLE001 - fastavro raises many kinds
        raise MetadataRecordError(f"cannot decode metadata record {key!r}: {e}") from e
    files = rec.get("filesystemMetadata")
    bloom = rec.get("BloomFilterMetadata")
    stats = rec.get("ColumnStatsMetadata")
    return MetadataRecord(
        key=key, type=rec["type"],
        files=None if files is None else {n: (i["size"], i["isDeleted"]) for n, i in files.items()},
        bloom=None if bloom is None else BloomFilterInfo(bloom["type"], bloom["timestamp"], bytes(bloom["bloomFilter"]),
                                                         bloom["isDeleted"]),
        stats=None if stats is None else _decode_stats(stats),
        record_index=rec.get("recordIndexMetadata"),
        secondary_index=rec.get("SecondaryIndexMetadata"))


def _decode_stats(s: dict) -> ColumnStats:
    return ColumnStats(s.get("fileName"), s.get("columnName"), _decode_wrapped(s.get("minValue")),
                       _decode_wrapped(s.get("maxValue")), s.get("valueCount"), s.get("nullCount"),
                       s.get("totalSize"), s.get("totalUncompressedSize"), bool(s.get("isDeleted")),
                       bool(s.get("isTightBound", False)))


def _decode_wrapped(v) -> Wrapped | None:
    if v is None:
        return None
    if not isinstance(v, tuple):
        raise MetadataRecordError(f"min/max value without a wrapper name: {v!r}")
    name, rec = v
    name = name.rsplit(".", 1)[-1]
    if name not in wrapper_names():  # v9 ArrayWrapper and later additions
        raise MetadataRecordError(f"value wrapper {name} is not one table version 8 writes")
    value = rec["value"]
    if name == DECIMAL and not isinstance(value, decimal.Decimal):
        value = decimal.Decimal(int.from_bytes(value, "big", signed=True)).scaleb(-DECIMAL_MAX_SCALE)
    if name == DECIMAL:
        with decimal.localcontext(prec=80):
            value = value.normalize() if value != 0 else decimal.Decimal(0)
    if name == TIME_MICROS and isinstance(value, dt.time):
        value = ((value.hour * 60 + value.minute) * 60 + value.second) * 10**6 + value.microsecond
    if isinstance(value, (bytearray, memoryview)):
        value = bytes(value)
    return Wrapped(name, value)


# ---------------------------------------------------------------- column statistics of a file

def column_stats_json(table, parquet_metadata=None) -> str:
    """Per-column statistics of one written file, as JSON for a write stat's `column_stats`:
    `{column: {"min", "max", "null_count", "value_count", "total_size",
    "total_uncompressed_size", "type"}}`.

    With `parquet_metadata` (the `pyarrow.parquet.FileMetaData` of a written base file) the
    values come from the footer statistics of the top-level columns, combined over row groups,
    as Hudi reads them: value_count counts nulls too, sizes are the column chunks' compressed and
    uncompressed sizes. Without it (log files) they are computed from the Arrow data, with sizes
    0 as Hudi records for log files. `type` is the Arrow type string of the column (of the file's
    schema when `parquet_metadata` is given; `table` may then be just a `pyarrow.Schema`).

    Value encoding: strings as is, integers/timestamps/times as the stored integer (in the
    column's own unit), dates as epoch days, floats as numbers, booleans, binary as Base64,
    decimals as decimal strings. min/max are null when unknown or when every value is null.
    Columns of nested types are left out.
    """
    import pyarrow as pa

    if isinstance(table, pa.RecordBatch):
        table = pa.Table.from_batches([table])
    schema = table if isinstance(table, pa.Schema) else table.schema
    if isinstance(table, pa.Schema) and parquet_metadata is None:
        raise MetadataRecordError("column statistics from a schema alone need the file's Parquet metadata")
    types = {f.name: f.type for f in schema}
    out: dict[str, dict] = {}
    if parquet_metadata is not None:
        # the file's own column types (what Hudi reads back), the given ones where that fails
        try:
            types = {**types, **{f.name: f.type for f in parquet_metadata.schema.to_arrow_schema()}}
        except Exception:  # noqa: BLE001 - pyarrow cannot map every Parquet schema to Arrow
            pass
        out = _stats_from_parquet(parquet_metadata, types)
    else:
        for name, typ in types.items():
            if wrapper_for_type(str(typ)) is None:
                continue
            out[name] = _stats_from_arrow(table.column(name), typ)
    return json.dumps(out, separators=(",", ":"), allow_nan=True)


def _json_value(v, typ) -> Any:
    import pyarrow as pa

    if v is None:
        return None
    if isinstance(v, (bytes, bytearray, memoryview)):
        if pa.types.is_string(typ) or pa.types.is_large_string(typ):
            return bytes(v).decode("utf-8")
        return base64.b64encode(bytes(v)).decode("ascii")
    if isinstance(v, decimal.Decimal):
        return str(v)
    if isinstance(v, dt.datetime):
        raise MetadataRecordError("timestamps are passed as integers")  # pragma: no cover
    if isinstance(v, dt.date):
        return (v - dt.date(1970, 1, 1)).days
    return v


def _stats_from_arrow(col, typ) -> dict:
    import pyarrow as pa
    import pyarrow.compute as pc

    col = col.combine_chunks() if hasattr(col, "combine_chunks") else col
    if pa.types.is_dictionary(typ):
        col = col.cast(typ.value_type)
    raw = col
    if pa.types.is_timestamp(typ) or pa.types.is_time(typ) or pa.types.is_duration(typ):
        raw = col.view(pa.int64()) if pa.types.is_timestamp(typ) or pa.types.is_duration(typ) \
            or typ.bit_width == 64 else col.view(pa.int32())
    elif pa.types.is_date32(typ):
        raw = col.view(pa.int32())
    elif pa.types.is_date64(typ):
        raw = pc.divide(col.view(pa.int64()), 86_400_000)
    nulls = col.null_count
    lo = hi = None
    if len(col) > nulls:
        if pa.types.is_floating(typ):
            finite = pc.filter(raw, pc.invert(pc.is_nan(raw)))
            mm = pc.min_max(finite if len(finite) > finite.null_count else raw)
        else:
            mm = pc.min_max(raw)
        lo, hi = mm["min"].as_py(), mm["max"].as_py()
    return {"min": _json_value(lo, typ), "max": _json_value(hi, typ), "null_count": nulls,
            "value_count": len(col), "total_size": 0, "total_uncompressed_size": 0, "type": str(typ)}


def _parquet_value(raw, column_md):
    """A footer min/max as Hudi's convertToNativeJavaType sees it, JSON-encoded."""
    if raw is None:
        return None
    stats = column_md.statistics
    logical = str(stats.logical_type) if stats.logical_type is not None else ""
    if logical.startswith("Decimal"):
        scale = int(logical.split("scale=")[1].rstrip(")"))
        unscaled = raw if isinstance(raw, int) else int.from_bytes(raw, "big", signed=True)
        return str(decimal.Decimal(unscaled).scaleb(-scale))
    if isinstance(raw, (bytes, bytearray)):
        if logical in ("String", "Enum", "Json") or stats.converted_type in ("UTF8", "ENUM", "JSON"):
            return bytes(raw).decode("utf-8", errors="replace")
        return base64.b64encode(bytes(raw)).decode("ascii")
    return raw  # INT32 (dates: epoch days), INT64 (timestamps in the file's unit), FLOAT, DOUBLE, BOOLEAN


def _stats_from_parquet(md, types) -> dict:
    out: dict[str, dict] = {}
    for rg_index in range(md.num_row_groups):
        rg = md.row_group(rg_index)
        for j in range(rg.num_columns):
            c = rg.column(j)
            name = c.path_in_schema
            if "." in name or name not in types or wrapper_for_type(str(types[name])) is None:
                continue
            s = c.statistics
            has = s is not None and s.has_min_max
            cur = {"min": _parquet_value(s.min_raw, c) if has else None,
                   "max": _parquet_value(s.max_raw, c) if has else None,
                   "null_count": (s.null_count if s is not None and s.has_null_count else 0),
                   "value_count": c.num_values, "total_size": c.total_compressed_size,
                   "total_uncompressed_size": c.total_uncompressed_size, "type": str(types[name])}
            prev = out.get(name)
            out[name] = cur if prev is None else _combine_json(prev, cur)
    return out


def _combine_json(a: dict, b: dict) -> dict:
    """Two row groups' stats of one column: the smaller min, the larger max, summed counts."""
    wrapper = wrapper_for_type(a["type"])

    def pick(x, y, smaller):
        wx, wy = wrap(x, wrapper), wrap(y, wrapper)
        return x if _pick(wx, wy, smaller) is wx and wx is not None else y

    return {"min": pick(a["min"], b["min"], True), "max": pick(a["max"], b["max"], False),
            "null_count": a["null_count"] + b["null_count"], "value_count": a["value_count"] + b["value_count"],
            "total_size": a["total_size"] + b["total_size"],
            "total_uncompressed_size": a["total_uncompressed_size"] + b["total_uncompressed_size"],
            "type": a["type"]}


def parse_column_stats(file_name: str, stats: str | Mapping | None,
                       columns: Iterable[str] | None = None) -> list[ColumnStats]:
    """`ColumnStats` of a file from `column_stats_json` output (a JSON string or its parsed dict),
    restricted to `columns` (in that order) when given."""
    if stats is None:
        return []
    doc = json.loads(stats) if isinstance(stats, (str, bytes)) else stats
    names = list(doc) if columns is None else [c for c in columns if c in doc]
    out = []
    for name in names:
        s = doc[name]
        wrapper = wrapper_for_type(s.get("type", ""))
        if wrapper is None:
            continue
        out.append(ColumnStats(file_name, name, wrap(s.get("min"), wrapper), wrap(s.get("max"), wrapper),
                               int(s.get("value_count") or 0), int(s.get("null_count") or 0),
                               int(s.get("total_size") or 0), int(s.get("total_uncompressed_size") or 0)))
    return out


# ---------------------------------------------------------------- columns to index

def _avro_branch(t):
    if isinstance(t, list):
        rest = [b for b in t if b != "null"]
        return rest[0] if len(rest) == 1 else None
    return t


def is_indexable_avro_type(t) -> bool:
    """`isColumnTypeSupported` for Avro records: no records, arrays, maps, enums or unions of
    several types; decimals only when decimal(30, 15) holds them. (Bytes/fixed columns are indexed,
    as for Hudi's Avro record type; Spark-record writers of later releases skip them.)"""
    t = _avro_branch(t)
    if t is None:
        return False
    if isinstance(t, dict):
        if t.get("logicalType") == "decimal":
            return decimal_fits(int(t.get("precision", 0)), int(t.get("scale", 0)))
        t = t.get("type")
        if isinstance(t, (dict, list)):
            return is_indexable_avro_type(t)
    return t in ("boolean", "int", "long", "float", "double", "string", "bytes", "fixed")


def columns_to_index(avro_schema: dict | str | None, populate_meta_fields: bool = True,
                     max_columns: int = DEFAULT_MAX_COLUMNS_TO_INDEX) -> list[str]:
    """Hudi 1.0's default column-stats column list: the three indexed meta columns, then the
    first `max_columns` supported data columns of the table schema (meta columns skipped)."""
    if isinstance(avro_schema, str):
        avro_schema = json.loads(avro_schema)
    data = []
    if avro_schema is not None:
        data = [f["name"] for f in avro_schema.get("fields", [])
                if f["name"] not in META_COLUMNS and is_indexable_avro_type(f["type"])][:max_columns]
    return (list(META_COLUMNS_TO_INDEX) if populate_meta_fields else []) + data
