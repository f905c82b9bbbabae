"""A small sequential HFile v3 reader, used to check the writer against HBase-written files:
it walks every block front to back (the connector's Java reader is the one that seeks)."""
from __future__ import annotations

import struct
from dataclasses import dataclass, field

from pyhudi.hfile.block import RawBlock, read_block
from pyhudi.hfile.cell import parse_cells
from pyhudi.hfile.format import (
    DATA,
    FILE_INFO,
    KEY_VALUE_VERSION,
    MAX_TAGS_LEN,
    ROOT_INDEX,
    TRAILER_SIZE,
    HFileFormatError,
)
from pyhudi.hfile.index import parse_root_index
from pyhudi.hfile.trailer import Trailer, parse_file_info, parse_trailer

__all__ = ["HFileContents", "parse_hfile", "read_hfile"]


@dataclass
class HFileContents:
    trailer: Trailer
    file_info: dict[bytes, bytes]
    blocks: list[RawBlock]
    cells: list[tuple[bytes, bytes]]
    meta_blocks: dict[bytes, bytes] = field(default_factory=dict)
    # root data index entries: (offset, on-disk size, key); mid-key metadata when multi-level
    root_index: list[tuple[int, int, bytes]] = field(default_factory=list)
    mid_key: bytes = b""

    def data_blocks(self) -> list[RawBlock]:
        return [b for b in self.blocks if b.magic == DATA]

    def blocks_of(self, magic: bytes) -> list[RawBlock]:
        return [b for b in self.blocks if b.magic == magic]


def _read_blocks(data: bytes, trailer: Trailer) -> list[RawBlock]:
    """Every block before the trailer, each directly after the previous one."""
    blocks, pos, stop = [], 0, len(data) - TRAILER_SIZE
    while pos < stop:
        block = read_block(data, pos, trailer.codec)
        blocks.append(block)
        pos += block.on_disk_size
    if pos != stop:
        raise HFileFormatError(f"blocks end at {pos}, trailer starts at {stop}")
    return blocks


def _block_of(by_offset: dict[int, RawBlock], offset: int, magic: bytes, missing: str) -> RawBlock:
    block = by_offset.get(offset)
    if block is None or block.magic != magic:
        raise HFileFormatError(missing)
    return block


def _cells(blocks: list[RawBlock], file_info: dict[bytes, bytes]) -> list[tuple[bytes, bytes]]:
    """Cells of all data blocks; the file info says whether cells carry memstore timestamps and tags."""
    kv_version = file_info.get(KEY_VALUE_VERSION)
    with_mvcc = kv_version is not None and struct.unpack(">i", kv_version)[0] == 1
    with_tags = MAX_TAGS_LEN in file_info
    return [cell for b in blocks if b.magic == DATA for cell in parse_cells(b.payload, with_mvcc, with_tags)]


def parse_hfile(data: bytes | bytearray | memoryview) -> HFileContents:
    """Walks every block front to back (verifying CRC32C checksums), then decodes cells, file
    info, meta blocks and the root data index."""
    data = bytes(data)
    trailer = parse_trailer(data)
    blocks = _read_blocks(data, trailer)
    by_offset = {b.offset: b for b in blocks}
    info_block = _block_of(by_offset, trailer.file_info_offset, FILE_INFO,
                           f"no file-info block at {trailer.file_info_offset}")
    file_info = parse_file_info(info_block.payload)
    cells = _cells(blocks, file_info)
    root = _block_of(by_offset, trailer.load_on_open_offset, ROOT_INDEX,
                     f"no root index at {trailer.load_on_open_offset}")
    root_entries, mid_key = parse_root_index(root.payload, trailer.data_index_count)
    # The meta index follows the data root.
    meta_root = _block_of(by_offset, root.offset + root.on_disk_size, ROOT_INDEX,
                          f"no meta index after the root data index at {root.offset}")
    meta_entries, _ = parse_root_index(meta_root.payload, trailer.meta_index_count)
    meta_blocks = {name: by_offset[offset].payload for offset, _, name in meta_entries}
    return HFileContents(trailer, file_info, blocks, cells, meta_blocks, root_entries, mid_key)


def read_hfile(data: bytes | bytearray | memoryview) -> list[tuple[bytes, bytes]]:
    """All cells of an HFile as (row, value) pairs in file order."""
    return parse_hfile(data).cells
