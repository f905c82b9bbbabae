"""Block framing, both ways: a 33-byte header, the payload compressed with GZ (one gzip member
per block) or NONE, then CRC32C checksums per 16 KiB of header + on-disk payload."""
from __future__ import annotations

import struct
import zlib
from dataclasses import dataclass

from pyhudi.hfile.crc32c import crc32c
from pyhudi.hfile.format import (
    BLOCK_HEADER,
    BYTES_PER_CHECKSUM,
    CHECKSUM_CRC32C,
    CHECKSUM_NULL,
    HEADER_SIZE,
    KNOWN_MAGICS,
    HFileFormatError,
)

__all__ = ["RawBlock", "frame_block", "read_block", "gzip", "checksums"]

# gzip member header as Java's GZIPOutputStream writes it: no flags, MTIME 0, XFL 0, OS 0.
_GZIP_HEADER = b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x00"
# java.util.zip.Deflater default level (Z_DEFAULT_COMPRESSION resolves to 6).
GZIP_LEVEL = 6


@dataclass
class RawBlock:
    offset: int
    magic: bytes
    on_disk_size: int  # header and checksums included
    uncompressed_size: int
    prev_offset: int
    checksum_type: int
    bytes_per_checksum: int
    payload: bytes  # uncompressed, without header and checksums
    on_disk_payload: bytes  # as stored (compressed), without header and checksums


def checksums(block: bytes, bytes_per_checksum: int = BYTES_PER_CHECKSUM) -> bytes:
    return b"".join(crc32c(block[i:i + bytes_per_checksum]).to_bytes(4, "big")
                    for i in range(0, len(block), bytes_per_checksum))


def gzip(payload: bytes) -> bytes:
    """A gzip member with the header, deflate level and trailer the JVM writes."""
    deflater = zlib.compressobj(GZIP_LEVEL, zlib.DEFLATED, -15, 8, zlib.Z_DEFAULT_STRATEGY)
    body = deflater.compress(payload) + deflater.flush()
    return _GZIP_HEADER + body + struct.pack("<II", zlib.crc32(payload), len(payload) & 0xFFFFFFFF)


def frame_block(magic: bytes, payload: bytes, prev_offset: int, codec: str) -> bytes:
    """Header + (compressed) payload + CRC32C per 16 KiB chunk of header and on-disk payload."""
    on_disk = gzip(payload) if codec == "GZ" else payload
    data_with_header = HEADER_SIZE + len(on_disk)
    checksum_bytes = 4 * -(-data_with_header // BYTES_PER_CHECKSUM)
    header = BLOCK_HEADER.pack(magic, len(on_disk) + checksum_bytes, len(payload), prev_offset,
                          CHECKSUM_CRC32C, BYTES_PER_CHECKSUM, data_with_header)
    framed = header + on_disk
    return framed + checksums(framed)


def _decompress(on_disk: bytes, codec: str, size: int, where: str) -> bytes:
    if codec == "NONE":
        payload = on_disk
    elif codec == "GZ":
        # at most one byte more than the header promises: a corrupt stream cannot inflate without bound
        inflater = zlib.decompressobj(16 + zlib.MAX_WBITS)
        try:
            payload = inflater.decompress(on_disk, max(size, 0) + 1)
        except zlib.error as e:
            raise HFileFormatError(f"bad gzip data in {where}: {e}") from None
        if len(payload) == size and not (inflater.eof and not inflater.unused_data):
            raise HFileFormatError(f"gzip member of {where} is cut short or followed by other bytes")
    else:
        raise HFileFormatError(f"codec {codec} not supported by this reader")
    if len(payload) != size:
        raise HFileFormatError(f"{where} holds {len(payload)} bytes, header says {size}")
    return payload


def read_block(data: bytes, offset: int, codec: str) -> RawBlock:
    """The block at offset, its checksums verified and its payload decompressed."""
    if offset + HEADER_SIZE > len(data):
        raise HFileFormatError(f"truncated block header at {offset}")
    magic, on_disk_wo_header, uncompressed, prev, ck_type, per_ck, data_with_header = \
        BLOCK_HEADER.unpack_from(data, offset)
    where = f"{magic!r} block at {offset}"
    if magic not in KNOWN_MAGICS:
        raise HFileFormatError(f"unknown block magic {magic!r} at {offset}")
    end = offset + HEADER_SIZE + on_disk_wo_header
    if data_with_header < HEADER_SIZE or data_with_header > HEADER_SIZE + on_disk_wo_header or end > len(data):
        raise HFileFormatError(f"inconsistent sizes in {where}")
    framed = data[offset:offset + data_with_header]
    stored = data[offset + data_with_header:end]
    if per_ck <= 0:
        raise HFileFormatError(f"{per_ck} bytes per checksum in {where}")
    if ck_type == CHECKSUM_CRC32C:
        if stored != checksums(framed, per_ck):
            raise HFileFormatError(f"CRC32C mismatch in {where}")
    elif ck_type == CHECKSUM_NULL:
        # Hudi's native writer leaves zero placeholders (one per chunk, give or take one), HBase none
        chunks = -(-data_with_header // per_ck)
        if len(stored) % 4 or len(stored) > 4 * (chunks + 1) or stored.count(0) != len(stored):
            raise HFileFormatError(f"{where} has no checksums but {len(stored)} bytes that are not zero placeholders")
    else:
        raise HFileFormatError(f"checksum type {ck_type} not supported by this reader ({where})")
    on_disk = data[offset + HEADER_SIZE:offset + data_with_header]
    return RawBlock(offset, magic, end - offset, uncompressed, prev, ck_type, per_ck,
                    _decompress(on_disk, codec, uncompressed, where), on_disk)
