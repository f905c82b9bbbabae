"""KeyValue cells as Hudi stores them: row = record key, empty family and qualifier, LATEST
timestamp, type Put, memstore timestamp 0; and HBase's shortened index keys between blocks."""
from __future__ import annotations

import struct

from pyhudi.hfile.format import LATEST_TIMESTAMP, TYPE_MAXIMUM, TYPE_PUT, HFileFormatError
from pyhudi.hfile.varint import read_vlong

__all__ = ["key_value_key", "put_cell", "KEY_OVERHEAD", "midpoint_row", "parse_cells"]

_CELL_LENGTHS = struct.Struct(">ii")
_KEY_SUFFIX = struct.Struct(">bqB").pack(0, LATEST_TIMESTAMP, TYPE_PUT)  # family len, ts, type
_FIRST_ON_ROW_SUFFIX = struct.Struct(">bqB").pack(0, LATEST_TIMESTAMP, TYPE_MAXIMUM)


def key_value_key(row: bytes, type_code: int = TYPE_PUT) -> bytes:
    """Serialized KeyValue key of a Hudi cell: int16 row length, row, empty family and
    qualifier, LATEST timestamp, type."""
    suffix = _KEY_SUFFIX if type_code == TYPE_PUT else _FIRST_ON_ROW_SUFFIX
    return struct.pack(">h", len(row)) + row + suffix


_PUT_HEAD = struct.Struct(">iih")  # key length, value length, row length
KEY_OVERHEAD = 2 + len(_KEY_SUFFIX)  # a cell key's bytes besides the row


def put_cell(row: bytes, value: bytes) -> bytes:
    """One cell of a data block: key and value lengths, the key (`key_value_key(row)`), value,
    memstore timestamp 0 - in one join, the writer's per-cell hot path."""
    return b"".join((_PUT_HEAD.pack(len(row) + KEY_OVERHEAD, len(value), len(row)), row, _KEY_SUFFIX, value,
                     b"\x00"))


def midpoint_row(left: bytes, right: bytes) -> bytes:
    """HBase's shortest separator: a row r with left < r <= right, cut right after the first
    differing byte (left's byte + 1 when that still sorts below right's byte)."""
    limit = min(len(left), len(right))
    i = 0
    while i < limit and left[i] == right[i]:
        i += 1
    if i < limit and left[i] + 1 < right[i]:
        return left[:i] + bytes([left[i] + 1])
    return right[:i + 1]


def parse_cells(payload: bytes, with_mvcc: bool, with_tags: bool) -> list[tuple[bytes, bytes]]:
    """(row, value) of every cell of a data block; tags and memstore timestamps are skipped."""
    cells, pos, end = [], 0, len(payload)
    while pos < end:
        if pos + 10 > end:
            raise HFileFormatError(f"cell at payload offset {pos} is cut off by the end of its data block")
        key_len, value_len = _CELL_LENGTHS.unpack_from(payload, pos)
        key_at = pos + 8
        row_len = struct.unpack_from(">H", payload, key_at)[0]
        value_at = key_at + key_len
        if key_len < row_len + 2 or value_len < 0:
            raise HFileFormatError(f"cell at payload offset {pos} has impossible lengths (key {key_len}, row "
                                   f"{row_len}, value {value_len})")
        if value_at + value_len > end:
            raise HFileFormatError(f"cells overrun their data block by {value_at + value_len - end} bytes")
        row = payload[key_at + 2:key_at + 2 + row_len]
        cells.append((row, payload[value_at:value_at + value_len]))
        pos = value_at + value_len
        if with_tags:
            if pos + 2 > end:
                raise HFileFormatError(f"cell tags at payload offset {pos} are cut off")
            pos += 2 + struct.unpack_from(">H", payload, pos)[0]
        if with_mvcc:
            _, pos = read_vlong(payload, pos)
    if pos != end:
        raise HFileFormatError(f"cells overrun their data block by {pos - end} bytes")
    return cells
