"""Hadoop WritableUtils variable-length longs, as HFile uses them for root-index key lengths and
the memstore timestamp after each cell."""
from __future__ import annotations

import struct

from pyhudi.hfile.format import HFileFormatError


def vint_size(value: int) -> int:
    """Bytes of write_vlong(value)."""
    if -112 <= value <= 127:
        return 1
    if value < 0:
        value = ~value
    return 1 + (value.bit_length() + 7) // 8


def write_vlong(value: int) -> bytes:
    """WritableUtils.writeVLong: one byte for -112..127, else a length marker byte followed by
    the big-endian magnitude (one's complement for negatives)."""
    if -112 <= value <= 127:
        return struct.pack(">b", value)
    marker = -112
    if value < 0:
        value = ~value
        marker = -120
    size = (value.bit_length() + 7) // 8
    return struct.pack(">b", marker - size) + value.to_bytes(size, "big")


def read_vlong(buf: bytes, pos: int) -> tuple[int, int]:
    """Inverse of write_vlong; returns (value, next position). HFileFormatError when buf ends inside it."""
    if pos >= len(buf):
        raise HFileFormatError(f"truncated vlong at offset {pos}")
    first = struct.unpack_from(">b", buf, pos)[0]
    if first >= -112:
        return first, pos + 1
    negative = first < -120
    size = (-120 - first) if negative else (-112 - first)
    if pos + 1 + size > len(buf):
        raise HFileFormatError(f"truncated vlong at offset {pos}")
    value = int.from_bytes(buf[pos + 1:pos + 1 + size], "big")
    return (~value if negative else value), pos + 1 + size
