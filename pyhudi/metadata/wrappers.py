"""The min/max value wrappers of column statistics (`BooleanWrapper` ... `LocalDateWrapper`),
chosen per column type the way Hudi 1.0's Parquet footer reader converts statistics
(`ParquetUtils.convertToNativeJavaType` followed by `HoodieAvroUtils.wrapValueIntoAvro`), and
their comparison in Java's natural order."""
from __future__ import annotations

import base64
import datetime as dt
import decimal
import functools
import math
from dataclasses import dataclass
from operator import attrgetter
from typing import Any, Callable, Iterable

from pyhudi.metadata.errors import MetadataRecordError
from pyhudi.metadata.schema import union_record_names

BOOLEAN, INT, LONG, FLOAT, DOUBLE, BYTES, STRING, DATE, DECIMAL, TIME_MICROS, TIMESTAMP_MICROS, LOCAL_DATE = (
    "BooleanWrapper", "IntWrapper", "LongWrapper", "FloatWrapper", "DoubleWrapper", "BytesWrapper",
    "StringWrapper", "DateWrapper", "DecimalWrapper", "TimeMicrosWrapper", "TimestampMicrosWrapper",
    "LocalDateWrapper")
DECIMAL_MAX_PRECISION, DECIMAL_MAX_SCALE = 30, 15


@functools.cache
def wrapper_names() -> tuple[str, ...]:
    """Branches of the minValue/maxValue union after null, in schema order (index + 1 on disk)."""
    names = union_record_names("HoodieMetadataColumnStats", "minValue")
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


_WRAPPER_OF_TYPE = (  # (exact names, name prefixes, wrapper), first match wins
    (("string", "large_string", "string_view", "utf8", "large_utf8"), (), STRING),
    (("int8", "int16", "int32", "uint8", "uint16"), ("time32",), INT),
    (("int64", "uint32", "uint64"), ("timestamp", "time64", "duration"), LONG),
    (("float", "float32", "halffloat", "float16"), (), FLOAT),
    (("double", "float64"), (), DOUBLE),
    (("bool", "boolean"), (), BOOLEAN),
    (("binary", "large_binary", "binary_view"), ("fixed_size_binary",), BYTES),
    ((), ("decimal",), DECIMAL),
    ((), ("date",), DATE),
)


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
    for names, prefixes, wrapper in _WRAPPER_OF_TYPE:
        if t in names or t.startswith(prefixes):
            return wrapper
    return None  # lists, structs, maps, dictionaries, nulls: Hudi does not index them


def decimal_fits(precision: int, scale: int) -> bool:
    """Decimal columns Hudi indexes: those DecimalWrapper's decimal(30, 15) holds exactly."""
    return scale <= DECIMAL_MAX_SCALE and precision + (DECIMAL_MAX_SCALE - scale) <= DECIMAL_MAX_PRECISION


def _epoch_days(value) -> int:
    return (value - dt.date(1970, 1, 1)).days if isinstance(value, dt.date) else int(value)


_CONVERT: dict[str, Callable[[Any], Any]] = {
    BOOLEAN: bool, INT: int, LONG: int, TIME_MICROS: int, TIMESTAMP_MICROS: int,
    DATE: _epoch_days, LOCAL_DATE: _epoch_days, FLOAT: float, DOUBLE: float, STRING: str,
    BYTES: lambda v: base64.b64decode(v) if isinstance(v, str) else bytes(v),
    DECIMAL: decimal.Decimal,
}


def wrap(value: Any, wrapper: str) -> Wrapped | None:
    """A JSON/Python stat value (as `column_stats_json` emits it) in the given wrapper."""
    if value is None:
        return None
    if wrapper not in _CONVERT:
        raise MetadataRecordError(f"unknown value wrapper {wrapper!r}")
    return Wrapped(wrapper, _CONVERT[wrapper](value))


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


def pick(a: Wrapped | None, b: Wrapped | None, smaller: bool) -> Wrapped | None:
    """The smaller (or larger) of two bounds; a missing one loses, and of two values of different
    kinds the second wins."""
    if a is None:
        return b
    if b is None:
        return a
    c = compare(a, b)
    if c is None:
        return b
    return a if (c <= 0) == smaller else b


def extreme(values: Iterable[Wrapped | None], smaller: bool) -> Wrapped | None:
    """`pick` folded over `values` in order, in one pass of native min/max when they are all of
    one kind (a partition's files): of equal bounds the first smallest, the last largest."""
    present = [v for v in values if v is not None]
    if not present:
        return None
    kind = present[0].wrapper
    if any(v.wrapper != kind for v in present):
        out = None
        for v in present:
            out = pick(out, v, smaller)
        return out
    key = _natural_key(kind, present) or _sort_key
    return min(present, key=key) if smaller else max(reversed(present), key=key)


def _natural_key(kind: str, values: list[Wrapped]):
    """A key cheaper than `_sort_key` when Python's own order of the values is Java's: numbers, dates and
    times, and strings without surrogate pairs (code point order is then UTF-16 order); None otherwise."""
    if kind in (BYTES, FLOAT, DOUBLE):
        return None
    if kind == STRING and not all(map(str.isascii, map(_VALUE, values))):
        return None
    return _VALUE


_VALUE = attrgetter("value")
