"""Ordering values of deleted records: the orderingVal union of HoodieDeleteRecord in Hudi 1.0
is null, then one wrapper record per type (each `{value: T}`); the branch index is what lands
on disk, followed by the wrapped value in Avro binary."""
from __future__ import annotations

import datetime as dt
import decimal
import struct
from typing import Any

from pyhudi.avro.binary import AvroReader, avro_bytes, string, twos_complement, zigzag
from pyhudi.log.cursor import LogFormatError

WRAPPERS = ("boolean", "int", "long", "float", "double", "bytes", "string", "date", "decimal",
            "time-micros", "timestamp-micros")
WRAPPER_INDEX = {name: i + 1 for i, name in enumerate(WRAPPERS)}  # union branch; 0 is null
_DECIMAL_SCALE = 15  # DecimalWrapper: decimal(30, 15)
_EPOCH = dt.datetime(1970, 1, 1, tzinfo=dt.timezone.utc)
_EPOCH_DAY = dt.date(1970, 1, 1)


def infer_ordering_type(value: Any) -> str:
    """The wrapper Java would pick for the value's natural Java type."""
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "int" if -2**31 <= value < 2**31 else "long"
    if isinstance(value, float):
        return "double"
    if isinstance(value, (bytes, bytearray)):
        return "bytes"
    if isinstance(value, str):
        return "string"
    if isinstance(value, dt.datetime):
        return "timestamp-micros"
    if isinstance(value, dt.date):
        return "date"
    if isinstance(value, dt.time):
        return "time-micros"
    if isinstance(value, decimal.Decimal):
        return "decimal"
    raise LogFormatError(f"no Hudi ordering-value wrapper for {type(value).__name__}")


def ordering_type_for_avro(field_type) -> str:
    """Wrapper for an ordering field of this Avro type (what Spark hands Hudi's writer)."""
    if isinstance(field_type, list):
        rest = [t for t in field_type if t != "null"]
        field_type = rest[0] if len(rest) == 1 else field_type
    if isinstance(field_type, dict):
        logical, base = field_type.get("logicalType"), field_type.get("type")
        if logical == "decimal":
            return "decimal"
        field_type = base
    mapping = {"boolean": "boolean", "int": "int", "long": "long", "float": "float", "double": "double",
               "bytes": "bytes", "string": "string"}
    if field_type not in mapping:
        raise LogFormatError(f"no ordering-value wrapper for Avro type {field_type!r}")
    return mapping[field_type]


def encode_wrapped(kind: str, v: Any) -> bytes:
    """Avro binary of the wrapper's value (without the union branch)."""
    if kind == "boolean":
        return b"\x01" if v else b"\x00"
    if kind in ("int", "long"):
        return zigzag(int(v))
    if kind == "float":
        return struct.pack("<f", v)
    if kind == "double":
        return struct.pack("<d", v)
    if kind == "bytes":
        return avro_bytes(bytes(v))
    if kind == "string":
        return string(str(v))
    if kind == "date":
        return zigzag(v.toordinal() - _EPOCH_DAY.toordinal() if isinstance(v, dt.date) else int(v))
    if kind == "decimal":
        with decimal.localcontext(prec=80):  # wide enough for decimal(30, 15) without rounding
            unscaled = int(decimal.Decimal(v).scaleb(_DECIMAL_SCALE).to_integral_value())
        return avro_bytes(twos_complement(unscaled))
    if kind == "time-micros":
        return zigzag(_time_micros(v))
    if kind == "timestamp-micros":
        return zigzag(_epoch_micros(v))
    raise LogFormatError(f"unknown ordering type {kind!r}")


def _time_micros(v) -> int:
    if isinstance(v, dt.time):
        return ((v.hour * 60 + v.minute) * 60 + v.second) * 10**6 + v.microsecond
    return int(v)


def _epoch_micros(v) -> int:
    """Microseconds since the epoch; a naive datetime counts as UTC."""
    if isinstance(v, dt.datetime):
        v = v if v.tzinfo else v.replace(tzinfo=dt.timezone.utc)
        delta = v - _EPOCH
        return (delta.days * 86400 + delta.seconds) * 10**6 + delta.microseconds
    return int(v)


def decode_wrapped(r: AvroReader, kind: str) -> Any:
    """The wrapper's value; time and timestamp values stay epoch micros (an exact round trip)."""
    if kind == "boolean":
        return r.raw(1) != b"\x00"
    if kind in ("int", "long", "time-micros", "timestamp-micros"):
        return r.long()
    if kind == "float":
        return struct.unpack("<f", r.raw(4))[0]
    if kind == "double":
        return struct.unpack("<d", r.raw(8))[0]
    if kind == "bytes":
        return r.bytes_()
    if kind == "string":
        return r.string()
    if kind == "date":
        days = r.long()
        try:
            return _EPOCH_DAY + dt.timedelta(days=days)
        except OverflowError:
            raise LogFormatError(f"date ordering value {days} days after 1970-01-01 is out of range") from None
    if kind == "decimal":
        unscaled = int.from_bytes(r.bytes_(), "big", signed=True)
        return decimal.Decimal(unscaled).scaleb(-_DECIMAL_SCALE)
    raise LogFormatError(f"unknown ordering type {kind!r}")
