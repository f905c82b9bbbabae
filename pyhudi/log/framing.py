"""Log files as bytes: a concatenation of blocks, integers big-endian (docs/format.md §1):

  "#HUDI#" | int64 blockLength | int32 formatVersion (1) | int32 blockType
  | header map | int64 contentLength | content | footer map | int64 totalLength

blockLength counts the bytes after its own field through the trailing totalLength; totalLength
counts from the magic through the footer, i.e. every byte of the block before itself
(= blockLength + 6). A map is int32 count, then per entry int32 key ordinal, int32 value
length, UTF-8 value.
"""
from __future__ import annotations

import struct
from typing import Iterable, Mapping

from pyhudi.log.block import LOG_FORMAT_VERSION, BlockType, HeaderKey, LogBlock
from pyhudi.log.cursor import Cursor, LogFormatError

MAGIC = b"#HUDI#"
# CORRUPT is the reader-side placeholder of Hudi's reader, never written
_READABLE_TYPES = frozenset(int(t) for t in BlockType) - {int(BlockType.CORRUPT)}
_HEADER_KEYS = frozenset(int(k) for k in HeaderKey)


def encode_map(entries: Mapping[int, str]) -> bytes:
    out = [struct.pack(">i", len(entries))]
    for key, value in entries.items():
        raw = value.encode("utf-8")
        out.append(struct.pack(">ii", int(key), len(raw)))
        out.append(raw)
    return b"".join(out)


def encode_block(block: LogBlock) -> bytes:
    """The block's bytes in a log file."""
    if block.format_version != LOG_FORMAT_VERSION:
        raise LogFormatError(f"only log format version {LOG_FORMAT_VERSION} is written")
    body = b"".join([struct.pack(">ii", block.format_version, int(block.block_type)),
                     encode_map(block.header),
                     struct.pack(">q", len(block.content)), block.content,
                     encode_map(block.footer)])
    # blockLength includes the trailing int64; totalLength covers everything before that int64
    return MAGIC + struct.pack(">q", len(body) + 8) + body + struct.pack(">q", len(MAGIC) + 8 + len(body))


def encode_blocks(blocks: Iterable[LogBlock]) -> bytes:
    return b"".join(encode_block(b) for b in blocks)


def read_blocks(data: bytes, source: str = "input") -> list[LogBlock]:
    """Every block of a log file's bytes. Unlike Hudi's reader, which skips a torn or corrupt
    block and resyncs on the next magic (as the connector does), any damage is a LogFormatError
    naming `source` (the file) and the offset of the bad block: the writer side reads logs to
    rewrite them and must not drop records."""
    blocks, pos = [], 0
    while pos < len(data):
        try:
            block, pos = _read_block(data, pos)
        except LogFormatError as e:
            raise LogFormatError(f"log file {source}: {e}") from None
        block.source = source
        blocks.append(block)
    return blocks


def _read_block(data: bytes, start: int) -> tuple[LogBlock, int]:
    if data[start: start + 6] != MAGIC:
        raise LogFormatError(f"no log block magic at offset {start}")
    head = Cursor(data, start + 6, len(data))
    length = head.int64("block length")
    end = head.pos + length - 8  # end of the footer; the trailing total length follows
    if length < 16 or end + 8 > len(data):
        raise LogFormatError(f"block at offset {start} claims {length} bytes; the file ends first")
    c = Cursor(data, head.pos, end)
    version = c.int32("format version")
    if version != LOG_FORMAT_VERSION:
        raise LogFormatError(f"block at offset {start}: log format version {version} is not supported")
    block_type = c.int32("block type")
    if block_type not in _READABLE_TYPES:
        raise LogFormatError(f"block at offset {start}: unknown block type id {block_type}")
    header = c.map("header")
    unknown = sorted(set(header) - _HEADER_KEYS)
    if unknown:
        raise LogFormatError(f"block at offset {start}: unknown header key id {unknown[0]}")
    content = c.take(c.int64("content length"), "content")
    footer = c.map("footer")
    if c.pos != end:
        raise LogFormatError(f"block at offset {start}: {end - c.pos} unread bytes before its end")
    total = struct.unpack(">q", data[end: end + 8])[0]
    if total != end - start:
        raise LogFormatError(f"block at offset {start}: total length {total} != {end - start} (torn write?)")
    return LogBlock(block_type, header, content, footer, version, start), end + 8


def read_log_file(path: str, filesystem=None) -> list[LogBlock]:
    """Blocks of a log file on local disk or, with a pyarrow filesystem, anywhere."""
    if filesystem is None:
        with open(path, "rb") as f:
            return read_blocks(f.read(), path)
    with filesystem.open_input_stream(path) as f:
        return read_blocks(f.read(), path)
