"""Key generators: the record key and partition path of each row, as Spark column expressions
(so Spark computes them where the data is), following Apache Hudi's key generators (simple,
complex, non-partitioned, timestamp-based and custom, whose partition fields are each simple or
timestamp-based). A small batch collected to the driver gets the same keys computed in Arrow
(`arrow_keys`) when its key and partition columns are strings or integers, whose text Spark and Arrow
write alike."""
from __future__ import annotations

import re

import pyarrow as pa
import pyarrow.compute as pc
from pyspark.sql import Column, DataFrame
from pyspark.sql import functions as F
from pyspark.sql.window import Window

from pyhudi.avro.schema import META_FIELDS
from pyhudi.config import options as o
from pyhudi.write.config import WriteConfig

NULL_KEY = "__null__"          # Hudi's placeholder for a null part of a complex key
EMPTY_KEY = "__empty__"
DEFAULT_PARTITION = "__HIVE_DEFAULT_PARTITION__"


def _text(col: Column) -> Column:
    return col.cast("string")


def record_key(cfg: WriteConfig) -> Column:
    """Simple key: the field's value. Complex key: `f1:v1,f2:v2` with placeholders for null/empty."""
    fields = cfg.record_key_fields
    if not cfg.complex_key:
        return _text(F.col(fields[0]))
    parts = []
    for f in fields:
        v = _text(F.col(f))
        v = F.when(v.isNull(), F.lit(NULL_KEY)).when(v == "", F.lit(EMPTY_KEY)).otherwise(v)
        parts.append(F.concat(F.lit(f + ":"), v))
    return F.concat_ws(",", *parts)


def partition_path(cfg: WriteConfig) -> Column:
    if not cfg.partition_fields:
        return F.lit("")
    segments = []
    for f, kind in zip(cfg.partition_fields, cfg.partition_types):
        v = _timestamp_value(cfg, f) if kind == "TIMESTAMP" else _text(F.col(f))
        v = F.when(v.isNull() | (v == ""), F.lit(DEFAULT_PARTITION)).otherwise(v)
        if cfg.url_encode:
            v = escape_path_name(v)
        segments.append(F.concat(F.lit(f + "="), v) if cfg.hive_style else v)
    return F.concat_ws("/", *segments)


# Characters Hudi (like Hive) escapes as %XX in partition path values; '%' goes first so that
# the escapes themselves are not escaped again.
_ESCAPED = "%" + "\"#'*/:=?\\\x7f{[]^" + "".join(chr(c) for c in range(1, 0x20))


def escape_path_name(v: Column) -> Column:
    for ch in _ESCAPED:
        v = F.regexp_replace(v, re.escape(ch), f"%{ord(ch):02X}")
    return v


def _timestamp_value(cfg: WriteConfig, field: str) -> Column:
    """The timestamp key generator's partition value: the column read as a time (WriteConfig
    checked the type), written in the output pattern and time zone."""
    opts = cfg.timestamp_options
    kind = o.TS_TYPE.get(opts)
    if kind == "UNIX_TIMESTAMP":
        ts = F.timestamp_seconds(F.col(field).cast("long"))
    elif kind == "EPOCHMILLISECONDS":
        ts = F.timestamp_millis(F.col(field).cast("long"))
    else:  # DATE_STRING
        ts = F.to_timestamp(F.col(field), o.TS_INPUT_FORMAT.get(opts))
    return F.date_format(F.from_utc_timestamp(ts, o.TS_TIMEZONE.get(opts)), o.TS_OUTPUT_FORMAT.get(opts))


_ARROW_TEXT = ("StringType", "ByteType", "ShortType", "IntegerType", "LongType")


def arrow_computable(df: DataFrame, cfg: WriteConfig) -> bool:
    """Whether `arrow_keys` gives what `with_keys` gives for this input: every key and partition field a string
    or an integer (other types' text differs between Spark's cast and Arrow's), no timestamp partition."""
    if "TIMESTAMP" in cfg.partition_types:
        return False
    types = {f.name: type(f.dataType).__name__ for f in df.schema.fields}
    return all(types.get(f) in _ARROW_TEXT for f in cfg.record_key_fields + cfg.partition_fields)


def _arrow_text(batch: pa.Table, field: str) -> pa.ChunkedArray:
    return pc.cast(batch.column(field), pa.string())


def arrow_keys(batch: pa.Table, cfg: WriteConfig) -> pa.Table:
    """`batch` plus _hoodie_record_key and _hoodie_partition_path, as `with_keys` computes them (for inputs
    `arrow_computable` accepts)."""
    if not cfg.complex_key:
        key = _arrow_text(batch, cfg.record_key_fields[0])
    else:
        parts = []
        for f in cfg.record_key_fields:
            v = _arrow_text(batch, f)
            v = pc.if_else(pc.is_null(v), NULL_KEY, pc.if_else(pc.equal(v, ""), EMPTY_KEY, v))
            parts.append(pc.binary_join_element_wise(f + ":", v, ""))
        key = pc.binary_join_element_wise(*parts, ",")
    segments = []
    for f in cfg.partition_fields:
        v = _arrow_text(batch, f)
        v = pc.if_else(pc.or_kleene(pc.is_null(v), pc.equal(v, "")), DEFAULT_PARTITION, v)
        if cfg.url_encode:
            for ch in _ESCAPED:
                v = pc.replace_substring(v, ch, f"%{ord(ch):02X}")
        segments.append(pc.binary_join_element_wise(f + "=", v, "") if cfg.hive_style else v)
    partition = pc.binary_join_element_wise(*segments, "/") if segments else pa.repeat("", batch.num_rows)
    for name, values in (("_hoodie_record_key", key), ("_hoodie_partition_path", partition)):
        at = batch.schema.get_field_index(name)
        batch = batch.set_column(at, name, values) if at >= 0 else batch.append_column(name, values)
    return batch


def without_stale_meta(df: DataFrame) -> DataFrame:
    """`df` without the meta columns the write sets again (those of a table read back, say)."""
    stale = [c for c in df.columns if c in META_FIELDS and c not in ("_hoodie_record_key", "_hoodie_partition_path")]
    return df.drop(*stale) if stale else df


def with_keys(df: DataFrame, cfg: WriteConfig) -> DataFrame:
    """`df` plus _hoodie_record_key and _hoodie_partition_path."""
    # one withColumns: each withColumn analyses the whole plan again, a fixed cost small commits feel
    return df.withColumns({"_hoodie_record_key": record_key(cfg), "_hoodie_partition_path": partition_path(cfg)})


def precombined(df: DataFrame, ordering_field: str | None, tasks: int) -> DataFrame:
    """One record per key, the one with the greatest ordering value (Hudi's precombine); the last one given
    without an ordering field."""
    order = F.col(ordering_field).desc_nulls_last() if ordering_field and ordering_field in df.columns \
        else F.monotonically_increasing_id().desc()
    w = Window.partitionBy("_hoodie_record_key").orderBy(order)
    # the window's shuffle sized like the write: with Spark's 200 default partitions (which
    # adaptive execution does not coalesce once cached) every later pass runs 200 tasks
    df = df.repartition(tasks, "_hoodie_record_key")
    return df.withColumn("_hudi_rn", F.row_number().over(w)).filter("_hudi_rn = 1").drop("_hudi_rn")
