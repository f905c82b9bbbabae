"""Avro binary of metadata records under the on-disk writer schema (`schema.schema_text()`), and
back. The `key` field is written as "": the HFile row holds the key."""
from __future__ import annotations

import datetime as dt
import decimal
import io
import struct
from typing import Callable

import fastavro

from pyhudi.avro.binary import avro_bytes as _bytes
from pyhudi.avro.binary import optional_string as _opt_string
from pyhudi.avro.binary import read_varint
from pyhudi.avro.binary import string as _string
from pyhudi.avro.binary import twos_complement as _twos_complement
from pyhudi.avro.binary import zigzag as _zigzag
from pyhudi.avro.schema import compiled
from pyhudi.metadata.errors import MetadataRecordError
from pyhudi.metadata.records import BloomFilterInfo, ColumnStats, MetadataRecord
from pyhudi.metadata.schema import schema_text
from pyhudi.metadata.wrappers import (
    BOOLEAN,
    BYTES,
    DATE,
    DECIMAL,
    DECIMAL_MAX_PRECISION,
    DECIMAL_MAX_SCALE,
    DOUBLE,
    FLOAT,
    INT,
    LOCAL_DATE,
    LONG,
    STRING,
    TIME_MICROS,
    TIMESTAMP_MICROS,
    Wrapped,
    wrapper_names,
)

# ---------------------------------------------------------------- encoding

META_NULLS = b"\x00" * 4  # _hoodie_commit_time .. _hoodie_partition_path: null in every record we write


def _opt_long(v: int | None) -> bytes:
    return b"\x00" if v is None else b"\x02" + _zigzag(int(v))


_opt_int = _opt_long  # Avro ints and longs share the zig-zag varint encoding


def _bool(v: bool) -> bytes:
    return b"\x01" if v else b"\x00"



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


_VALUE_ENCODERS = {
    BOOLEAN: _bool,
    FLOAT: lambda v: struct.pack("<f", v), DOUBLE: lambda v: struct.pack("<d", v),
    BYTES: lambda v: _bytes(bytes(v)), STRING: _string,
    DECIMAL: lambda v: _bytes(_twos_complement(_unscaled(v))),
    **{w: lambda v: _zigzag(int(v)) for w in (INT, LONG, DATE, LOCAL_DATE, TIME_MICROS, TIMESTAMP_MICROS)},
}


def _encode_wrapped(w: Wrapped | None) -> bytes:
    if w is None:
        return b"\x00"
    if w.wrapper not in _VALUE_ENCODERS:  # pragma: no cover - Wrapped validates names
        raise MetadataRecordError(f"unknown wrapper {w.wrapper}")
    return _zigzag(wrapper_names().index(w.wrapper) + 1) + _VALUE_ENCODERS[w.wrapper](w.value)


def _encode_stats(s: ColumnStats) -> bytes:
    return b"".join([_opt_string(s.file_name), _opt_string(s.column_name), _encode_wrapped(s.min_value),
                     _encode_wrapped(s.max_value), _opt_long(s.value_count), _opt_long(s.null_count),
                     _opt_long(s.total_size), _opt_long(s.total_uncompressed_size), _bool(s.is_deleted),
                     _bool(s.is_tight_bound)])


def _encode_files(files: dict[str, tuple[int, bool]] | None) -> list[bytes]:
    if files is None:
        return [b"\x00"]
    out = [b"\x02"]
    if files:
        out.append(_zigzag(len(files)))
        for name, (size, deleted) in files.items():
            out += [_string(name), _zigzag(int(size)), _bool(deleted)]
    return out + [b"\x00"]


def _encode_bloom(b: BloomFilterInfo | None) -> list[bytes]:
    if b is None:
        return [b"\x00"]
    return [b"\x02", _string(b.type), _string(b.timestamp), _bytes(b.bloom_filter), _bool(b.is_deleted)]


def _encode_record_index(r: dict | None) -> list[bytes]:
    if r is None:
        return [b"\x00"]
    return [b"\x02", _opt_string(r.get("partitionName")), _opt_long(r.get("fileIdHighBits")),
            _opt_long(r.get("fileIdLowBits")), _opt_int(r.get("fileIndex")), _opt_string(r.get("fileId")),
            _opt_long(r.get("instantTime")), _zigzag(int(r.get("fileIdEncoding") or 0)),
            _opt_long(r.get("position"))]


def encode_record(record: MetadataRecord, file_name: str | None = None) -> bytes:
    """Avro binary of the record under `schema_text()`: meta fields null except
    `_hoodie_file_name` (the base HFile's own name in base files, None in log blocks) and `key`
    written as "" - readers take the key from the HFile row."""
    if record.deleted:
        raise MetadataRecordError(f"{record.key!r} is a deletion: it goes to a delete block, not an HFile")
    out = [META_NULLS, _opt_string(file_name), _string(""), _zigzag(record.type)]
    out += _encode_files(record.files)
    out += _encode_bloom(record.bloom)
    out.append(b"\x00" if record.stats is None else b"\x02" + _encode_stats(record.stats))
    out += _encode_record_index(record.record_index)
    if record.secondary_index is None:
        out.append(b"\x00")
    else:
        out += [b"\x02", _bool(bool(record.secondary_index.get("isDeleted")))]
    return b"".join(out)


def renamer(file_name: str) -> Callable[[bytes], bytes | None]:
    """For records encoded under `schema_text()`: the value with `_hoodie_file_name` set to
    `file_name`, the bytes after it kept - how a compaction copies a record no log block touched
    without decoding it. None for a value that does not start as ours do (decode that one)."""
    head = META_NULLS + _opt_string(file_name)

    def renamed(value: bytes) -> bytes | None:
        if value[:4] != META_NULLS:
            return None
        if value[4] == 0:
            rest = 5
        elif value[4] == 2:
            length, pos = read_varint(value, 5)
            rest = pos + (length >> 1)
        else:
            return None
        return head + value[rest:]
    return renamed


# ---------------------------------------------------------------- decoding


def decode_record(key: str, value: bytes, writer_schema: str | None = None) -> MetadataRecord:
    """A record from an HFile cell: `key` is the row, `value` the Avro binary under
    `writer_schema` (the block's SCHEMA header or the HFile's `schema` file info; ours when None)."""
    try:
        rec = fastavro.schemaless_reader(io.BytesIO(value), compiled(writer_schema or schema_text()),
                                         return_record_name=True, return_record_name_override=True)
    except Exception as e:  # noqa: BLE001 - fastavro raises many kinds
        raise MetadataRecordError(f"cannot decode metadata record {key!r}: {e}") from e
    assert isinstance(rec, dict)  # the writer schema is a record schema, which decodes to a dict
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
    if name == DECIMAL:
        value = _decoded_decimal(value)
    if name == TIME_MICROS and isinstance(value, dt.time):
        value = ((value.hour * 60 + value.minute) * 60 + value.second) * 10**6 + value.microsecond
    if isinstance(value, (bytearray, memoryview)):
        value = bytes(value)
    return Wrapped(name, value)


def _decoded_decimal(value) -> decimal.Decimal:
    """A DecimalWrapper value normalised (fastavro gives a Decimal, or raw bytes at scale 15)."""
    if not isinstance(value, decimal.Decimal):
        value = decimal.Decimal(int.from_bytes(value, "big", signed=True)).scaleb(-DECIMAL_MAX_SCALE)
    with decimal.localcontext(prec=80):
        return value.normalize() if value != 0 else decimal.Decimal(0)
