"""The few protobuf wire-format pieces HFile needs: the trailer and the file-info block are
protobuf messages of varint and length-delimited fields only."""
from __future__ import annotations

from typing import Iterable

from pyhudi.avro.binary import read_varint as _read_varint
from pyhudi.avro.binary import varint
from pyhudi.hfile.format import HFileFormatError


def read_varint(buf: bytes, pos: int) -> tuple[int, int]:
    """Decodes a varint at pos; returns (unsigned value, next position)."""
    try:
        return _read_varint(buf, pos)
    except EOFError:
        raise HFileFormatError("truncated protobuf varint") from None
    except OverflowError as e:
        raise HFileFormatError(f"bad protobuf varint: {e}") from None


def _take(buf: bytes, pos: int, size: int, what: str) -> tuple[bytes, int]:
    if size > len(buf) - pos:
        raise HFileFormatError(f"protobuf {what} of {size} bytes at offset {pos} overruns its {len(buf)}-byte message")
    return bytes(buf[pos:pos + size]), pos + size


def field_varint(number: int, value: int) -> bytes:
    return varint(number << 3) + varint(value)


def field_bytes(number: int, value: bytes) -> bytes:
    return varint((number << 3) | 2) + varint(len(value)) + value


def fields(buf: bytes) -> Iterable[tuple[int, int | bytes]]:
    """Yields (field number, varint value or bytes) of a message; other wire types fail."""
    pos = 0
    while pos < len(buf):
        tag, pos = read_varint(buf, pos)
        number, wire = tag >> 3, tag & 7
        value: int | bytes
        if wire == 0:
            value, pos = read_varint(buf, pos)
        elif wire == 2:
            size, pos = read_varint(buf, pos)
            value, pos = _take(buf, pos, size, f"field {number}")
        else:
            raise HFileFormatError(f"unsupported protobuf wire type {wire} (field {number})")
        yield number, value


def delimited(message: bytes) -> bytes:
    """A message prefixed by its varint length (protobuf writeDelimitedTo)."""
    return varint(len(message)) + message


def read_delimited(buf: bytes, pos: int) -> bytes:
    """The length-prefixed message starting at pos."""
    size, pos = read_varint(buf, pos)
    return _take(buf, pos, size, "message")[0]
