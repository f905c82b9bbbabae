"""The settings of one write: its options (Apache Hudi's keys, defined in pyhudi.config) parsed and
checked once, with an existing table's properties filling what the options leave out."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Mapping

from pyhudi.config import OptionError, check, values
from pyhudi.config import options as o
from pyhudi.config.parsers import fields as parse_fields
from pyhudi.metadata.keys import BLOOM_FILTERS, COLUMN_STATS, FILES, PARTITION_STATS, RECORD_INDEX
from pyhudi.metadata.record_index import Sizing
from pyhudi.table import properties as tp

WriteOptionError = OptionError  # the name write-path callers know

# kept in hoodie.properties by a table created with the bucket index, under the options' own keys
BUCKET_PROPERTIES = tuple(opt.key for opt in o.BUCKET_PROPERTIES)
PARTITION_KINDS = ("SIMPLE", "TIMESTAMP")  # the custom key generator's field:TYPE


def keygen_kind(keygen_type: str) -> str:
    """The key generator a KeyGeneratorType name computes keys like (SIMPLE_AVRO -> SIMPLE)."""
    return keygen_type.removesuffix("_AVRO")


@dataclass
class WriteConfig:
    table_name: str
    operation: str
    table_type: str
    record_key_fields: list[str]
    partition_fields: list[str]
    ordering_field: str | None
    keygen: str  # KeyGeneratorType name, as hoodie.table.keygenerator.type records it
    hive_style: bool
    url_encode: bool
    database: str = o.DATABASE_NAME.default
    partition_types: list[str] = field(default_factory=list)  # SIMPLE or TIMESTAMP, per partition field
    small_file_limit: int = o.SMALL_FILE_LIMIT.default
    max_file_size: int = o.MAX_FILE_SIZE.default
    record_size_estimate: int = o.RECORD_SIZE_ESTIMATE.default
    log_block_format: str = o.LOG_BLOCK_FORMAT.default
    record_positions: bool = o.WRITE_RECORD_POSITIONS.default
    bloom_prune_by_ranges: bool = o.BLOOM_PRUNE_BY_RANGES.default
    bloom_log_files: bool = o.BLOOM_INDEX_LOG_FILES.default
    bloom_use_metadata: bool = o.BLOOM_USE_METADATA.default
    small_batch_max_records: int = o.SMALL_BATCH_MAX_RECORDS.default
    small_batch_max_file_bytes: int = o.SMALL_BATCH_MAX_FILE_BYTES.default
    compression: str = o.COMPRESSION.default
    index_type: str = o.INDEX_TYPE.default
    partitions_to_delete: list[str] = field(default_factory=list)
    timestamp_options: dict[str, str] = field(default_factory=dict)  # as given, under their current keys
    metadata_enabled: bool = o.METADATA_ENABLE.default
    metadata_partitions: tuple[str, ...] = (FILES, COLUMN_STATS, PARTITION_STATS)
    metadata_compact_after: int = o.METADATA_COMPACT_AFTER.default
    shuffle_parallelism: int = 0  # tasks writing files; 0: twice Spark's default parallelism
    bulk_insert_sort_mode: str = o.BULK_INSERT_SORT_MODE.default
    row_writer: bool = o.ROW_WRITER.default
    bucket_count: int = o.BUCKET_COUNT.default  # file groups per partition under the bucket index
    bucket_hash_fields: list[str] = field(default_factory=list)  # record key fields hashed to a bucket
    record_index_sizing: Sizing = Sizing()
    # under GLOBAL_SIMPLE, GLOBAL_BLOOM, RECORD_INDEX: a record whose partition changed moves there
    simple_update_partition_path: bool = o.SIMPLE_INDEX_UPDATE_PARTITION_PATH.default
    bloom_update_partition_path: bool = o.BLOOM_INDEX_UPDATE_PARTITION_PATH.default
    record_update_partition_path: bool = o.RECORD_INDEX_UPDATE_PARTITION_PATH.default
    index_async: bool = False  # index partitions are built by the indexing action, not by a write
    secondary_indexes: bool = True  # keep the table's secondary indexes (with the record index)
    cdc_mode: str | None = None  # the CDC supplemental logging mode of a table with CDC enabled

    @property
    def complex_key(self) -> bool:
        """Keys written as `f1:v1,f2:v2` (the complex key generator, or several key fields)."""
        return keygen_kind(self.keygen) == "COMPLEX" or len(self.record_key_fields) > 1

    @property
    def partition_specs(self) -> list[str]:
        """Partition fields as hoodie.table.partition.fields records them."""
        if keygen_kind(self.keygen) != "CUSTOM":
            return list(self.partition_fields)
        return [f"{f}:{t}" for f, t in zip(self.partition_fields, self.partition_types)]

    @classmethod
    def from_options(cls, options: Mapping[str, str], table_props: Mapping[str, str] | None = None) -> "WriteConfig":
        """Options of this write; an existing table's properties fill what the options leave out
        and must not be contradicted. Every error comes before anything is written."""
        check(options)
        given = {k: v for k, v in options.items() if v is not None}
        merged = {**_from_table(table_props or {}), **given}
        for opt in o.honoured():  # every value parses, whether or not this write reads it
            opt.get(merged)
        _check_consistent(given, table_props or {})
        return cls._build(merged)

    @classmethod
    def _build(cls, merged: dict[str, str]) -> "WriteConfig":
        name = o.TABLE_NAME.get(merged)
        if not name:
            raise OptionError(f"{o.TABLE_NAME.key} is required to create a table")
        keys = o.RECORD_KEY_FIELDS.get(merged)
        if not keys:
            raise OptionError(f"{o.RECORD_KEY_FIELDS.key} is required (the record key column(s))")
        specs = o.PARTITION_FIELDS.get(merged)
        keygen = _keygen(merged, keys, specs)
        parts, types = _partitioning(keygen, specs)
        operation = o.OPERATION.get(merged)
        tasks = o.PARALLELISM.get(operation)
        return cls(
            table_name=name, database=o.DATABASE_NAME.get(merged) or o.DATABASE_NAME.default, operation=operation,
            table_type=o.TABLE_TYPE.get(merged), record_key_fields=keys, partition_fields=parts,
            partition_types=types, ordering_field=_ordering_field(merged), keygen=keygen,
            hive_style=o.HIVE_STYLE.get(merged), url_encode=o.URL_ENCODE.get(merged),
            small_file_limit=o.SMALL_FILE_LIMIT.get(merged), max_file_size=o.MAX_FILE_SIZE.get(merged),
            record_size_estimate=o.RECORD_SIZE_ESTIMATE.get(merged),
            log_block_format=_log_block_format(merged), record_positions=o.WRITE_RECORD_POSITIONS.get(merged),
            bloom_prune_by_ranges=o.BLOOM_PRUNE_BY_RANGES.get(merged),
            bloom_log_files=o.BLOOM_INDEX_LOG_FILES.get(merged),
            bloom_use_metadata=o.BLOOM_USE_METADATA.get(merged),
            small_batch_max_records=o.SMALL_BATCH_MAX_RECORDS.get(merged),
            small_batch_max_file_bytes=o.SMALL_BATCH_MAX_FILE_BYTES.get(merged),
            compression=o.COMPRESSION.get(merged),
            index_type=o.INDEX_TYPE.get(merged), partitions_to_delete=list(o.PARTITIONS_TO_DELETE.get(merged)),
            timestamp_options=_timestamp_options(merged, types),
            metadata_enabled=o.METADATA_ENABLE.get(merged), metadata_partitions=_metadata_partitions(merged),
            metadata_compact_after=o.METADATA_COMPACT_AFTER.get(merged),
            shuffle_parallelism=tasks.get(merged) if tasks else 0,
            bulk_insert_sort_mode=o.BULK_INSERT_SORT_MODE.get(merged), row_writer=o.ROW_WRITER.get(merged),
            bucket_count=o.BUCKET_COUNT.get(merged), bucket_hash_fields=_hash_fields(merged, keys),
            record_index_sizing=Sizing(o.RECORD_INDEX_MIN_FILE_GROUPS.get(merged),
                                       o.RECORD_INDEX_MAX_FILE_GROUPS.get(merged),
                                       o.RECORD_INDEX_MAX_FILE_GROUP_SIZE.get(merged),
                                       o.RECORD_INDEX_GROWTH_FACTOR.get(merged)),
            simple_update_partition_path=o.SIMPLE_INDEX_UPDATE_PARTITION_PATH.get(merged),
            bloom_update_partition_path=o.BLOOM_INDEX_UPDATE_PARTITION_PATH.get(merged),
            record_update_partition_path=o.RECORD_INDEX_UPDATE_PARTITION_PATH.get(merged),
            index_async=o.METADATA_INDEX_ASYNC.get(merged),
            secondary_indexes=o.SECONDARY_INDEX_ENABLE.get(merged),
            cdc_mode=o.CDC_LOGGING_MODE.get(merged) if o.CDC_ENABLED.get(merged) else None,
        )


def _log_block_format(options: Mapping[str, str]) -> str:
    """Parquet data blocks under log-file indexing unless asked otherwise: only they hold key summaries."""
    if o.LOG_BLOCK_FORMAT.given(options) is None and o.BLOOM_INDEX_LOG_FILES.get(options):
        return "parquet"
    return o.LOG_BLOCK_FORMAT.get(options)


def _ordering_field(merged) -> str | None:
    ordering = o.PRECOMBINE_FIELD.get(merged) or o.ORDERING_FIELDS.get(merged)
    if ordering and "," in ordering:
        raise OptionError(f"ordering field(s) {ordering}: ordering records by several fields is not supported "
                          "yet; give one field")
    _check_merge_mode(merged, ordering)
    return ordering


def _check_merge_mode(merged, ordering: str | None) -> None:
    """A merge mode or payload class given must be the one pyhudi merges by: EVENT_TIME_ORDERING with an
    ordering field, COMMIT_TIME_ORDERING without (as the table records it in hoodie.record.merge.mode)."""
    mode = "EVENT_TIME_ORDERING" if ordering else "COMMIT_TIME_ORDERING"
    payload = o.PAYLOAD_CLASS.get(merged)
    for given, asked in ((o.MERGE_MODE.given(merged), o.MERGE_MODE.get(merged)),
                         (o.PAYLOAD_CLASS.given(merged), payload and values.PAYLOAD_MODES[payload])):
        if given and asked != mode:
            how = f"the ordering field {ordering} gives" if ordering else "a write without an ordering field gets"
            raise OptionError(f"{given[0]}={given[1]} asks for {asked}, but {how} {mode}: pyhudi merges by the "
                              f"ordering field ({o.PRECOMBINE_FIELD.key}) when there is one, else by commit time")


def _hash_fields(options, keys: list[str]) -> list[str]:
    """The bucket index hashes these record key fields (all of them unless told otherwise)."""
    hashed = list(o.BUCKET_HASH_FIELDS.get(options)) or keys
    stray = [f for f in hashed if f not in keys]
    if stray:
        raise OptionError(f"{o.BUCKET_HASH_FIELDS.key} names {', '.join(stray)}, not a record key field "
                          f"({', '.join(keys)}); a record's bucket must follow from its key")
    return hashed


# ---- key generator ---------------------------------------------------------------------------

def _keygen(options, keys: list[str], specs: list[str]) -> str:
    """The key generator: the class, else the type, else inferred as Hudi's datasource does."""
    chosen = o.KEYGEN_CLASS.get(options) or o.KEYGEN_TYPE.get(options)
    if chosen:
        return chosen
    if not specs:
        return "NON_PARTITION"
    return "COMPLEX" if len(keys) > 1 or len(specs) > 1 else "SIMPLE"


def _partitioning(keygen: str, specs: list[str]) -> tuple[list[str], list[str]]:
    """Partition fields and their kinds. The custom key generator takes `field:SIMPLE` or
    `field:TIMESTAMP` each; the others take field names (a `:TYPE` suffix is dropped)."""
    kind = keygen_kind(keygen)
    if kind == "NON_PARTITION":
        return [], []
    if kind != "CUSTOM":
        names = [s.split(":")[0].strip() for s in specs]
        return names, ["TIMESTAMP" if kind == "TIMESTAMP" else "SIMPLE"] * len(names)
    pairs = [[p.strip() for p in s.split(":")] for s in specs]
    if any(len(p) != 2 or not p[0] or p[1].upper() not in PARTITION_KINDS for p in pairs):
        raise OptionError(f"{o.PARTITION_FIELDS.key}={','.join(specs)} is not valid for the custom key generator; "
                          "give each field as field:SIMPLE or field:TIMESTAMP")
    return [p[0] for p in pairs], [p[1].upper() for p in pairs]


def _timestamp_options(merged, types: list[str]) -> dict[str, str]:
    """The timestamp key generator's options as given (a table records them, as Hudi does)."""
    if "TIMESTAMP" not in types:
        return {}
    if o.TS_TYPE.get(merged) is None:
        raise OptionError(f"{o.TS_TYPE.key} is required for timestamp partitions; valid values: "
                          + ", ".join(values.TIMESTAMP_TYPES.values()))
    return {opt.key: given[1] for opt in o.TIMESTAMP_OPTIONS if (given := opt.given(merged))}


# ---- metadata table --------------------------------------------------------------------------

def _metadata_partitions(options) -> tuple[str, ...]:
    """files always; column_stats and bloom_filters as enabled; partition_stats (aggregated from
    column stats) with column stats unless turned off; record_index when enabled (the write's index adds
    the partitions it reads: Index.metadata_partitions)."""
    column_stats = o.COLUMN_STATS_ENABLE.get(options)
    partition_stats = o.PARTITION_STATS_ENABLE.get(options)
    if partition_stats and not column_stats:
        raise OptionError(f"{o.PARTITION_STATS_ENABLE.key}=true needs {o.COLUMN_STATS_ENABLE.key}=true: "
                          "partition stats are aggregated from column stats")
    wanted = {FILES: True, COLUMN_STATS: column_stats, BLOOM_FILTERS: o.BLOOM_FILTER_ENABLE.get(options),
              PARTITION_STATS: column_stats if partition_stats is None else partition_stats,
              RECORD_INDEX: o.RECORD_INDEX_ENABLE.get(options)}
    return tuple(p for p, on in wanted.items() if on)


# ---- the existing table ----------------------------------------------------------------------

# option <- the hoodie.properties key a table keeps it under
_TABLE_KEYS = [(o.TABLE_NAME, tp.NAME), (o.DATABASE_NAME, tp.DATABASE), (o.RECORD_KEY_FIELDS, tp.RECORD_KEY_FIELDS),
               (o.PARTITION_FIELDS, tp.PARTITION_FIELDS), (o.PRECOMBINE_FIELD, tp.PRECOMBINE_FIELD),
               (o.TABLE_TYPE, tp.TYPE), (o.HIVE_STYLE, tp.HIVE_STYLE), (o.URL_ENCODE, tp.URL_ENCODE),
               (o.KEYGEN_TYPE, tp.KEYGEN_TYPE),
               *((opt, opt.key) for opt in (*o.BUCKET_PROPERTIES, *o.TIMESTAMP_OPTIONS, *o.CDC_PROPERTIES))]


def _from_table(props: Mapping[str, str]) -> dict[str, str]:
    """An existing table's properties as write options."""
    return {opt.key: props[p] for opt, p in _TABLE_KEYS if p in props}


def _names(value: list[str]) -> list[str]:
    return [f.split(":")[0].strip() for f in value]


# what a table fixes when it is created: option, property key, how the property parses, comparison form
_FIXED: list[tuple[o.Option, str, Callable, Callable]] = [
    (o.TABLE_NAME, tp.NAME, o.TABLE_NAME.parse, str.lower),  # Hudi compares it with Spark's resolver
    (o.DATABASE_NAME, tp.DATABASE, o.DATABASE_NAME.parse, str),
    (o.RECORD_KEY_FIELDS, tp.RECORD_KEY_FIELDS, parse_fields, _names),
    (o.PARTITION_FIELDS, tp.PARTITION_FIELDS, parse_fields, _names),
    (o.TABLE_TYPE, tp.TYPE, o.TABLE_TYPE.parse, str),
    (o.KEYGEN_CLASS, tp.KEYGEN_TYPE, o.KEYGEN_TYPE.parse, keygen_kind),
    (o.KEYGEN_TYPE, tp.KEYGEN_TYPE, o.KEYGEN_TYPE.parse, keygen_kind),
    *((opt, opt.key, opt.parse, lambda v: v) for opt in o.BUCKET_PROPERTIES),
]


def _check_consistent(options: Mapping[str, str], props: Mapping[str, str]) -> None:
    for opt, prop, parse_prop, form in _FIXED:
        given = opt.given(options)
        if given is None or prop not in props:
            continue
        if form(opt.parse(*given)) != form(parse_prop(prop, props[prop])):
            raise OptionError(f"{given[0]}={given[1]} contradicts the existing table ({prop}={props[prop]}); "
                              "a table's name, database, keys, key generator, partitioning, type and bucket layout are "
                              "fixed when it is created")
    for opt in o.CDC_PROPERTIES:  # a table without the properties was created without CDC
        given = opt.given(options)
        if not given or not props or (opt is o.CDC_LOGGING_MODE and not o.CDC_ENABLED.get(props)):
            continue
        if opt.parse(*given) != opt.get(props):
            raise OptionError(f"{given[0]}={given[1]} contradicts the existing table ({opt.key}="
                              f"{props.get(opt.key, opt.default)}); change data capture is set when a table is "
                              "created")
