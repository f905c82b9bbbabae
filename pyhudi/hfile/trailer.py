"""The two protobuf messages of an HFile, both ways: the fixed 4096-byte trailer
(FileTrailerProto: where the load-on-open section starts, counts, index levels, comparator,
codec) and the file-info block (FileInfoProto: name/value pairs)."""
from __future__ import annotations

import struct
from dataclasses import dataclass
from typing import Any

from pyhudi.hfile import protobuf as pb
from pyhudi.hfile.format import (
    CODEC_NAMES,
    CODECS,
    MAJOR_VERSION,
    PB_MAGIC,
    TRAILER_MAGIC,
    TRAILER_SIZE,
    HFileFormatError,
)

__all__ = ["Trailer", "trailer_bytes", "parse_trailer", "file_info_bytes", "parse_file_info"]


@dataclass(frozen=True)
class Trailer:
    file_info_offset: int
    load_on_open_offset: int
    uncompressed_data_index_size: int
    total_uncompressed_bytes: int | None
    data_index_count: int
    meta_index_count: int
    entry_count: int
    data_index_levels: int
    first_data_block_offset: int
    last_data_block_offset: int
    comparator: str
    codec: str
    major_version: int
    minor_version: int


def trailer_bytes(t: Trailer) -> bytes:
    """Magic, the length-delimited proto, zero padding, then int32 minor << 24 | major."""
    assert t.total_uncompressed_bytes is not None  # the writer sets it; only a parsed trailer may lack it
    proto = b"".join((
        pb.field_varint(1, t.file_info_offset),
        pb.field_varint(2, t.load_on_open_offset),
        pb.field_varint(3, t.uncompressed_data_index_size),
        pb.field_varint(4, t.total_uncompressed_bytes),
        pb.field_varint(5, t.data_index_count),
        pb.field_varint(6, t.meta_index_count),
        pb.field_varint(7, t.entry_count),
        pb.field_varint(8, t.data_index_levels),
        pb.field_varint(9, t.first_data_block_offset),
        pb.field_varint(10, t.last_data_block_offset),
        pb.field_bytes(11, t.comparator.encode("utf-8")),
        pb.field_varint(12, CODECS[t.codec]),
    ))
    body = TRAILER_MAGIC + pb.delimited(proto)
    padding = TRAILER_SIZE - 4 - len(body)
    if padding < 0:
        raise ValueError(f"trailer protobuf of {len(body)} bytes does not fit the {TRAILER_SIZE}-byte trailer "
                         "(comparator name too long?)")
    return body + bytes(padding) + struct.pack(">i", (t.minor_version << 24) | t.major_version)


def _signed(v: int) -> int:
    """Offsets are int64 in the proto: -1 (no data block) arrives as 2**64 - 1."""
    return v - (1 << 64) if v >= 1 << 63 else v


_BYTES_FIELDS = (11, 13)  # comparator class name, encryption key; fields 1-10 and 12 are varints


def _trailer_fields(tail: bytes) -> dict[int, Any]:
    """Field number -> value: bytes for _BYTES_FIELDS, int for the others up to 13 (checked here)."""
    f = dict(pb.fields(pb.read_delimited(tail[:-4], 8)))
    for number, value in f.items():
        if number <= 13 and isinstance(value, bytes) != (number in _BYTES_FIELDS):
            raise HFileFormatError(f"trailer field {number} has the wrong protobuf wire type")
    return f


def parse_trailer(data: bytes) -> Trailer:
    """The trailer at the end of a whole file's bytes."""
    if len(data) < TRAILER_SIZE:
        raise HFileFormatError(f"not an HFile: {len(data)} bytes, fewer than the {TRAILER_SIZE}-byte trailer")
    tail = data[-TRAILER_SIZE:]
    if tail[:8] != TRAILER_MAGIC:
        raise HFileFormatError(f"no trailer magic at {len(data) - TRAILER_SIZE}: {tail[:8]!r}")
    version = struct.unpack(">i", tail[-4:])[0]
    major, minor = version & 0xFFFFFF, (version >> 24) & 0xFF
    if major != MAJOR_VERSION:
        raise HFileFormatError(f"HFile major version {major} unsupported (only {MAJOR_VERSION})")
    f = _trailer_fields(tail)
    try:
        comparator = f.get(11, b"").decode("utf-8")
    except UnicodeDecodeError:
        raise HFileFormatError("trailer comparator class name is not UTF-8") from None
    levels = f.get(8, 1)
    if not 1 <= levels <= 16:
        raise HFileFormatError(f"trailer gives {levels} data index levels (1 to 16 exist)")
    return Trailer(
        file_info_offset=f.get(1, 0), load_on_open_offset=f.get(2, 0),
        uncompressed_data_index_size=f.get(3, 0), total_uncompressed_bytes=f.get(4),
        data_index_count=f.get(5, 0), meta_index_count=f.get(6, 0), entry_count=f.get(7, 0),
        data_index_levels=levels, first_data_block_offset=_signed(f.get(9, 0)),
        last_data_block_offset=_signed(f.get(10, 0)),
        comparator=comparator,
        codec=CODEC_NAMES.get(f.get(12, 2), str(f.get(12))), major_version=major, minor_version=minor)


def file_info_bytes(info: dict[bytes, bytes]) -> bytes:
    """PBUF, then the length-delimited entries (field 1: key 1, value 2) in key order."""
    entries = b"".join(pb.field_bytes(1, pb.field_bytes(1, k) + pb.field_bytes(2, info[k]))
                       for k in sorted(info))
    return PB_MAGIC + pb.delimited(entries)


def parse_file_info(payload: bytes) -> dict[bytes, bytes]:
    if payload[:4] != PB_MAGIC:
        raise HFileFormatError("file info does not start with PBUF")
    info: dict[bytes, bytes] = {}
    for number, entry in pb.fields(pb.read_delimited(payload, 4)):
        if number == 1:
            pair: dict[int, Any] | None = dict(pb.fields(entry)) if isinstance(entry, bytes) else None
            if pair is None or not all(isinstance(v, bytes) for v in pair.values()):
                raise HFileFormatError("file info entry has the wrong protobuf wire type")
            info[pair.get(1, b"")] = pair.get(2, b"")
    return info
