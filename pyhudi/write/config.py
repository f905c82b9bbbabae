"""Write options under Apache Hudi's own keys: parsed once, validated, with near-miss hints."""
from __future__ import annotations

import difflib
from dataclasses import dataclass, field


def _same(*values: str) -> dict[str, str]:
    return {v.lower(): v for v in values}


OPERATIONS = _same("upsert", "insert", "bulk_insert", "delete", "insert_overwrite", "insert_overwrite_table",
                   "delete_partition")
TABLE_TYPES = {"copy_on_write": "COPY_ON_WRITE", "cow": "COPY_ON_WRITE",
               "merge_on_read": "MERGE_ON_READ", "mor": "MERGE_ON_READ"}
KEYGENS = _same("SIMPLE", "COMPLEX", "NON_PARTITION", "TIMESTAMP")
KEYGEN_CLASSES = {"org.apache.hudi.keygen.SimpleKeyGenerator": "SIMPLE",
                  "org.apache.hudi.keygen.ComplexKeyGenerator": "COMPLEX",
                  "org.apache.hudi.keygen.NonpartitionedKeyGenerator": "NON_PARTITION",
                  "org.apache.hudi.keygen.TimestampBasedKeyGenerator": "TIMESTAMP"}
LOG_BLOCK_FORMATS = _same("avro", "parquet")
# Parquet codec names as Hudi takes them -> as pyarrow writes them
CODECS = {"zstd": "zstd", "gzip": "gzip", "snappy": "snappy", "lz4": "lz4", "brotli": "brotli",
          "uncompressed": "none", "none": "none"}

K = "hoodie.datasource.write."
KNOWN = {
    "hoodie.table.name", "hoodie.database.name", K + "recordkey.field", K + "precombine.field",
    K + "partitionpath.field", K + "operation", K + "table.type", K + "hive_style_partitioning",
    K + "partitionpath.urlencode", K + "keygenerator.class", K + "keygenerator.type", K + "table.name",
    "hoodie.table.ordering.fields", "hoodie.parquet.small.file.limit", "hoodie.parquet.max.file.size",
    "hoodie.copyonwrite.record.size.estimate", "hoodie.logfile.data.block.format", "hoodie.parquet.compression.codec",
    "hoodie.index.type", "hoodie.metadata.enable", "hoodie.metadata.record.index.enable",
    "hoodie.keygen.timebased.timestamp.type", "hoodie.keygen.timebased.output.dateformat",
    "hoodie.keygen.timebased.input.dateformat", "hoodie.keygen.timebased.timezone",
    "hoodie.datasource.write.partitions.to.delete", "hoodie.combine.before.insert",
    "hoodie.bulkinsert.shuffle.parallelism", "hoodie.upsert.shuffle.parallelism",
    "hoodie.insert.shuffle.parallelism", "hoodie.datasource.write.reconcile.schema", "path",
    "hoodie.metadata.compact.max.delta.commits", "hoodie.bucket.index.num.buckets", "hoodie.bucket.index.hash.field",
    "hoodie.index.bucket.engine",
}
INDEX_TYPES = _same("SIMPLE", "GLOBAL_SIMPLE", "BUCKET")
BUCKET_ENGINES = _same("SIMPLE")
DEFAULT_BUCKETS = 256  # Apache Hudi's hoodie.bucket.index.num.buckets default
# kept in hoodie.properties by a table created with the bucket index, under the options' own keys
BUCKET_PROPERTIES = ("hoodie.index.type", "hoodie.bucket.index.num.buckets", "hoodie.bucket.index.hash.field")


PARALLELISM_KEYS = {"bulk_insert": "hoodie.bulkinsert.shuffle.parallelism", "insert": "hoodie.insert.shuffle.parallelism",
                    "insert_overwrite": "hoodie.insert.shuffle.parallelism",
                    "insert_overwrite_table": "hoodie.insert.shuffle.parallelism"}


class WriteOptionError(ValueError):
    pass


def _positive_int(options, key) -> int:
    raw = options.get(key, "0")
    try:
        value = int(raw)
    except ValueError:
        value = -1
    if value < 0:
        raise WriteOptionError(f"{key}={raw} is not valid; give a number of tasks (0 = automatic)")
    return value


def _check_known(options: dict[str, str]) -> None:
    for key in options:
        if key in KNOWN or not key.startswith("hoodie."):
            continue
        close = difflib.get_close_matches(key, sorted(KNOWN), n=1, cutoff=0.8)
        hint = f"; did you mean {close[0]}?" if close else ""
        raise WriteOptionError(f"unknown option {key}{hint}")


def _choice(options, key, default, valid: dict[str, str]) -> str:
    """The canonical spelling of a case-insensitive choice; an error listing the valid ones."""
    raw = options.get(key, default)
    value = valid.get(raw.strip().lower())
    if value is None:
        raise WriteOptionError(f"{key}={raw} is not valid; valid values: {', '.join(dict.fromkeys(valid.values()))}")
    return value


def _bool(options, key, default):
    raw = options.get(key, str(default)).lower()
    if raw not in ("true", "false"):
        raise WriteOptionError(f"{key}={options[key]} is not valid; valid values: true, false")
    return raw == "true"


def _fields(options, key) -> list[str]:
    return [f.strip().split(":")[0] for f in options.get(key, "").split(",") if f.strip()]


@dataclass
class WriteConfig:
    table_name: str
    operation: str
    table_type: str
    record_key_fields: list[str]
    partition_fields: list[str]
    ordering_field: str | None
    keygen: str
    hive_style: bool
    url_encode: bool
    small_file_limit: int = 104857600
    max_file_size: int = 125829120
    record_size_estimate: int = 1024
    log_block_format: str = "avro"
    compression: str = "zstd"
    index_type: str = "SIMPLE"
    partitions_to_delete: list[str] = field(default_factory=list)
    timestamp_options: dict[str, str] = field(default_factory=dict)
    metadata_enabled: bool = True
    metadata_compact_after: int = 10
    shuffle_parallelism: int = 0  # tasks writing files; 0: twice Spark's default parallelism
    bucket_count: int = DEFAULT_BUCKETS  # file groups per partition under the bucket index
    bucket_hash_fields: list[str] = field(default_factory=list)  # record key fields hashed to a bucket

    @classmethod
    def from_options(cls, options: dict[str, str], table_props: dict[str, str] | None = None) -> "WriteConfig":
        """Options of this write; an existing table's properties fill what the options leave out
        and must not be contradicted."""
        _check_known(options)
        merged = dict(_from_table(table_props or {}))
        merged.update({k: v for k, v in options.items() if v is not None})
        _check_consistent(options, table_props or {})
        name = merged.get("hoodie.table.name") or merged.get(K + "table.name")
        if not name:
            raise WriteOptionError("hoodie.table.name is required to create a table")
        keys = _fields(merged, K + "recordkey.field")
        if not keys:
            raise WriteOptionError(f"{K}recordkey.field is required (the record key column(s))")
        parts = _fields(merged, K + "partitionpath.field")
        keygen = _keygen(merged, keys, parts)
        index_type = _choice(merged, "hoodie.index.type", "SIMPLE", INDEX_TYPES)
        if index_type == "BUCKET":
            _choice(merged, "hoodie.index.bucket.engine", "SIMPLE", BUCKET_ENGINES)
        return cls(
            table_name=name,
            operation=_choice(merged, K + "operation", "upsert", OPERATIONS),
            table_type=_choice(merged, K + "table.type", "COPY_ON_WRITE", TABLE_TYPES),
            record_key_fields=keys,
            partition_fields=[] if keygen == "NON_PARTITION" else parts,
            ordering_field=merged.get(K + "precombine.field") or merged.get("hoodie.table.ordering.fields") or None,
            keygen=keygen,
            hive_style=_bool(merged, K + "hive_style_partitioning", False),
            url_encode=_bool(merged, K + "partitionpath.urlencode", False),
            small_file_limit=int(merged.get("hoodie.parquet.small.file.limit", 104857600)),
            max_file_size=int(merged.get("hoodie.parquet.max.file.size", 125829120)),
            record_size_estimate=int(merged.get("hoodie.copyonwrite.record.size.estimate", 1024)),
            log_block_format=_choice(merged, "hoodie.logfile.data.block.format", "avro", LOG_BLOCK_FORMATS),
            compression=_choice(merged, "hoodie.parquet.compression.codec", "zstd", CODECS),
            index_type=index_type,
            partitions_to_delete=_fields(merged, "hoodie.datasource.write.partitions.to.delete"),
            timestamp_options={k: v for k, v in merged.items() if k.startswith("hoodie.keygen.timebased.")},
            metadata_enabled=_bool(merged, "hoodie.metadata.enable", True),
            metadata_compact_after=int(merged.get("hoodie.metadata.compact.max.delta.commits", 10)),
            shuffle_parallelism=_positive_int(merged, PARALLELISM_KEYS.get(merged.get(K + "operation", "upsert").lower(),
                                                                          "hoodie.upsert.shuffle.parallelism")),
            bucket_count=_bucket_count(merged),
            bucket_hash_fields=_hash_fields(merged, keys),
        )


def _bucket_count(options) -> int:
    raw = options.get("hoodie.bucket.index.num.buckets", str(DEFAULT_BUCKETS))
    if not raw.strip().isdigit() or int(raw) < 1:
        raise WriteOptionError(f"hoodie.bucket.index.num.buckets={raw} is not valid; give the number of buckets "
                               "(file groups) per partition, at least 1")
    return int(raw)


def _hash_fields(options, keys: list[str]) -> list[str]:
    """The bucket index hashes these record key fields (all of them unless told otherwise)."""
    fields = _fields(options, "hoodie.bucket.index.hash.field") or keys
    stray = [f for f in fields if f not in keys]
    if stray:
        raise WriteOptionError(f"hoodie.bucket.index.hash.field names {', '.join(stray)}, not a record key field "
                               f"({', '.join(keys)}); a record's bucket must follow from its key")
    return fields


def _keygen(options, keys, parts) -> str:
    cls = options.get(K + "keygenerator.class")
    if cls:
        if cls not in KEYGEN_CLASSES:
            raise WriteOptionError(f"{K}keygenerator.class={cls} is not supported; valid values: "
                                   + ", ".join(KEYGEN_CLASSES))
        return KEYGEN_CLASSES[cls]
    if K + "keygenerator.type" in options:
        return _choice(options, K + "keygenerator.type", "SIMPLE", KEYGENS)
    if not parts:
        return "NON_PARTITION"
    return "COMPLEX" if len(keys) > 1 or len(parts) > 1 else "SIMPLE"


def _from_table(props: dict[str, str]) -> dict[str, str]:
    """An existing table's properties as write options."""
    mapping = {"hoodie.table.name": "hoodie.table.name",
               "hoodie.table.recordkey.fields": K + "recordkey.field",
               "hoodie.table.partition.fields": K + "partitionpath.field",
               "hoodie.table.precombine.field": K + "precombine.field",
               "hoodie.table.type": K + "table.type",
               "hoodie.datasource.write.hive_style_partitioning": K + "hive_style_partitioning",
               "hoodie.datasource.write.partitionpath.urlencode": K + "partitionpath.urlencode",
               "hoodie.table.keygenerator.type": K + "keygenerator.type",
               **{k: k for k in BUCKET_PROPERTIES}}
    return {opt: props[p] for p, opt in mapping.items() if p in props}


def _check_consistent(options: dict[str, str], props: dict[str, str]) -> None:
    if not props:
        return
    for p, opt in (("hoodie.table.recordkey.fields", K + "recordkey.field"),
                   ("hoodie.table.partition.fields", K + "partitionpath.field"),
                   ("hoodie.table.type", K + "table.type"),
                   *((k, k) for k in BUCKET_PROPERTIES)):
        if opt in options and p in props:
            want = options[opt] if opt != K + "table.type" else TABLE_TYPES.get(options[opt].lower(), options[opt])
            want = want.upper() if opt == "hoodie.index.type" else want
            if [f.split(":")[0].strip() for f in want.split(",")] != [f.split(":")[0] for f in props[p].split(",")]:
                raise WriteOptionError(f"{opt}={options[opt]} contradicts the existing table ({p}={props[p]}); "
                                       "a table's keys, partitioning, type and bucket layout are fixed when it is created")
