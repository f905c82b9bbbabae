"""Key generators: the record key and partition path of each row, as Spark column expressions
(so Spark computes them where the data is), following Apache Hudi's key generators."""
from __future__ import annotations

import re

from pyspark.sql import Column, DataFrame
from pyspark.sql import functions as F

from pyhudi.write.config import WriteConfig, WriteOptionError

NULL_KEY = "__null__"          # Hudi's placeholder for a null part of a complex key
EMPTY_KEY = "__empty__"
DEFAULT_PARTITION = "__HIVE_DEFAULT_PARTITION__"


def _text(col: Column) -> Column:
    return col.cast("string")


def record_key(cfg: WriteConfig) -> Column:
    """Simple key: the field's value. Complex key: `f1:v1,f2:v2` with placeholders for null/empty."""
    fields = cfg.record_key_fields
    if len(fields) == 1 and cfg.keygen != "COMPLEX":
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
    for f in cfg.partition_fields:
        v = _partition_value(cfg, f)
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


def _partition_value(cfg: WriteConfig, field: str) -> Column:
    if cfg.keygen != "TIMESTAMP":
        return _text(F.col(field))
    opts = cfg.timestamp_options
    kind = opts.get("hoodie.keygen.timebased.timestamp.type", "").upper()
    out = opts.get("hoodie.keygen.timebased.output.dateformat", "yyyy-MM-dd")
    if kind == "UNIX_TIMESTAMP":
        ts = F.timestamp_seconds(F.col(field).cast("long"))
    elif kind == "EPOCHMILLISECONDS":
        ts = F.timestamp_millis(F.col(field).cast("long"))
    elif kind == "DATE_STRING":
        ts = F.to_timestamp(F.col(field), opts.get("hoodie.keygen.timebased.input.dateformat", "yyyy-MM-dd HH:mm:ss"))
    elif kind == "SCALAR" or not kind:
        raise WriteOptionError("hoodie.keygen.timebased.timestamp.type is required for the timestamp key generator; "
                               "valid values: UNIX_TIMESTAMP, EPOCHMILLISECONDS, DATE_STRING")
    else:
        raise WriteOptionError(f"hoodie.keygen.timebased.timestamp.type={kind} is not supported; valid values: "
                               "UNIX_TIMESTAMP, EPOCHMILLISECONDS, DATE_STRING")
    tz = opts.get("hoodie.keygen.timebased.timezone", "UTC")
    return F.date_format(F.from_utc_timestamp(ts, tz), out)


def with_keys(df: DataFrame, cfg: WriteConfig) -> DataFrame:
    """`df` plus _hoodie_record_key and _hoodie_partition_path."""
    return (df.withColumn("_hoodie_record_key", record_key(cfg))
              .withColumn("_hoodie_partition_path", partition_path(cfg)))
