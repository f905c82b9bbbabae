"""Avro binary of Arrow rows, a column at a time: the records of an Avro data block encoded without a
Python object per value. A record's encoding is its fields' encodings in order, so each field becomes
an array of per-row byte strings (varints built in numpy, fixed-width values from their little-endian
buffers) and the rows are their element-wise concatenation. Flat records of primitives, their
["null", T] unions, dates and timestamps stored in the schema's unit are encoded here; for anything
else `encode_rows` returns None and the caller encodes record by record (fastavro), whose bytes these
equal."""
from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

BIN = pa.large_binary()
_EMPTY = pa.scalar(b"", BIN)
_INT_TYPES = {"int": (pa.int8(), pa.int16(), pa.int32()), "long": (pa.int8(), pa.int16(), pa.int32(), pa.int64())}
_TIMESTAMP_UNITS = {"timestamp-millis": "ms", "local-timestamp-millis": "ms",
                    "timestamp-micros": "us", "local-timestamp-micros": "us"}


def encode_rows(table: pa.Table, schema: dict) -> pa.LargeBinaryArray | None:
    """Each row's Avro binary under the record `schema` (parsed JSON); None when a field is not one
    this encodes or its column is missing."""
    if not isinstance(schema, dict) or schema.get("type") != "record":
        return None
    pieces: list[pa.Array] = []
    for field in schema["fields"]:
        if field["name"] not in table.column_names:
            return None
        encoded = _field(table.column(field["name"]).combine_chunks(), field["type"])
        if encoded is None:
            return None
        pieces += encoded
    if not pieces:
        return pa.array([b""] * table.num_rows, BIN)
    return pc.binary_join_element_wise(*pieces, _EMPTY) if len(pieces) > 1 else pieces[0]


def framed(rows: pa.LargeBinaryArray) -> bytes:
    """The rows one after another, each after its length as a big-endian int32 (an Avro data block's
    record framing)."""
    lengths = pc.binary_length(rows).to_numpy(zero_copy_only=False).astype(">i4")
    joined = pc.binary_join_element_wise(_fixed(lengths.tobytes(), 4, len(rows)), rows, _EMPTY)
    offsets = np.frombuffer(joined.buffers()[1], np.int64, len(joined) + 1, joined.offset * 8)
    return joined.buffers()[2].slice(offsets[0], offsets[-1] - offsets[0]).to_pybytes() if len(joined) else b""


def _field(col: pa.Array, t) -> list[pa.Array] | None:
    """The encodings of one field's values: a ["null", T] union is its branch index, then T's encoding."""
    if not isinstance(t, list):
        return _value(col, t) if col.null_count == 0 else None
    if len(t) != 2 or "null" not in t:
        return None
    null_branch = t.index("null")
    value = _value(col, t[1 - null_branch])
    if value is None:
        return None
    if col.null_count == 0:
        return [_fixed(bytes([2 * (1 - null_branch)]) * len(col), 1, len(col)), *value]
    valid = pc.is_valid(col)
    branches = np.where(valid.to_numpy(zero_copy_only=False), 1 - null_branch, null_branch).astype(np.uint8) * 2
    return [_fixed(branches.tobytes(), 1, len(col)), *(pc.if_else(valid, v, _EMPTY) for v in value)]


def _value(col: pa.Array, t) -> list[pa.Array] | None:
    kind, logical = (t.get("type"), t.get("logicalType")) if isinstance(t, dict) else (t, None)
    ct = col.type
    if kind in ("string", "bytes") and logical is None:
        text = pa.types.is_string(ct) or pa.types.is_large_string(ct)
        raw = pa.types.is_binary(ct) or pa.types.is_large_binary(ct) or pa.types.is_fixed_size_binary(ct)
        if not (text if kind == "string" else raw):
            return None
        data = pc.fill_null(col.cast(BIN), _EMPTY)
        return [_varints(pc.binary_length(data).to_numpy(zero_copy_only=False)), data]
    if kind in ("int", "long"):
        values = _integers(col, kind, logical)
        return None if values is None else [_varints(values)]
    if logical is not None:
        return None
    if kind == "double" and (pa.types.is_float64(ct) or pa.types.is_float32(ct)):
        return [_fixed(_numbers(col, np.float64).astype("<f8").tobytes(), 8, len(col))]
    if kind == "float" and pa.types.is_float32(ct):
        return [_fixed(_numbers(col, np.float32).astype("<f4").tobytes(), 4, len(col))]
    if kind == "boolean" and pa.types.is_boolean(ct):
        return [_fixed(_numbers(col, np.uint8).tobytes(), 1, len(col))]
    return None


def _integers(col: pa.Array, kind: str, logical: str | None) -> np.ndarray | None:
    """An int or long field's values as int64 (Avro stores dates and timestamps as their raw counts)."""
    ct = col.type
    if logical is None:
        ok = ct in _INT_TYPES[kind]
    elif logical == "date":
        ok = kind == "int" and pa.types.is_date32(ct)
    else:
        ok = kind == "long" and pa.types.is_timestamp(ct) and _TIMESTAMP_UNITS.get(logical) == ct.unit
    if not ok:
        return None
    raw = col.cast(pa.int32()) if pa.types.is_date32(ct) else col.cast(pa.int64()) if pa.types.is_timestamp(ct) \
        else col
    return _numbers(raw, np.int64)


def _numbers(col: pa.Array, dtype) -> np.ndarray:
    filled = pc.fill_null(col, False if pa.types.is_boolean(col.type) else 0)
    return filled.to_numpy(zero_copy_only=False).astype(dtype)


def _varints(values: np.ndarray) -> pa.Array:
    """Zig-zag base-128 varints of int64 values, low groups first (Avro's int and long)."""
    v = values.astype(np.int64)
    u = ((v << 1) ^ (v >> 63)).view(np.uint64)
    if not len(u) or u.max() < 0x80:  # one byte each: lengths of short strings, small numbers
        return _fixed(u.astype(np.uint8).tobytes(), 1, len(u))
    sizes = np.ones(len(u), np.int64)
    rest = u >> np.uint64(7)
    while rest.any():
        sizes += rest > 0
        rest >>= np.uint64(7)
    at = np.arange(int(sizes.max()))  # at most 10: a 64-bit value has 10 groups of 7 bits
    groups = (u[:, None] >> (np.uint64(7) * at.astype(np.uint64))) & np.uint64(0x7F)
    more = at[None, :] < (sizes - 1)[:, None]
    data = (groups | (more.astype(np.uint64) << np.uint64(7))).astype(np.uint8)[at[None, :] < sizes[:, None]]
    offsets = np.concatenate(([0], np.cumsum(sizes))).astype(np.int64)
    return pa.LargeBinaryArray.from_buffers(BIN, len(u), [None, pa.py_buffer(offsets), pa.py_buffer(data)])


def _fixed(data: bytes, width: int, n: int) -> pa.Array:
    """`n` values of `width` bytes each, laid end to end in `data`."""
    offsets = np.arange(n + 1, dtype=np.int64) * width
    return pa.LargeBinaryArray.from_buffers(BIN, n, [None, pa.py_buffer(offsets), pa.py_buffer(data)])
