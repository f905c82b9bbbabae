"""A small HFile v3 reader. `parse_hfile` walks every block front to back (the writer's tests check
HBase-written files with it; compaction reads whole files). `lookup` seeks like the connector's
Java reader: the trailer, the load-on-open section, then only the index and data blocks that can
hold the wanted rows, so a point lookup costs the same however large the file is."""
from __future__ import annotations

import struct
from bisect import bisect_right
from dataclasses import dataclass, field
from typing import Callable, Iterable

from pyhudi.hfile.block import RawBlock, read_block
from pyhudi.hfile.cell import key_value_key, parse_cells
from pyhudi.hfile.format import (
    DATA,
    FILE_INFO,
    HEADER_SIZE,
    INTERMEDIATE_INDEX,
    KEY_VALUE_VERSION,
    LEAF_INDEX,
    MAX_TAGS_LEN,
    META,
    ROOT_INDEX,
    TRAILER_SIZE,
    TYPE_MAXIMUM,
    HFileFormatError,
)
from pyhudi.hfile.index import parse_non_root_index, parse_root_index
from pyhudi.hfile.trailer import Trailer, parse_file_info, parse_trailer

__all__ = ["HFileContents", "HFileLookup", "lookup", "parse_hfile", "read_hfile"]


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


def _cell_layout(file_info: dict[bytes, bytes]) -> tuple[bool, bool]:
    """Whether cells carry memstore timestamps and tags, as the file info says."""
    kv_version = file_info.get(KEY_VALUE_VERSION)
    return kv_version is not None and struct.unpack(">i", kv_version)[0] == 1, MAX_TAGS_LEN in file_info


def _cells(blocks: list[RawBlock], file_info: dict[bytes, bytes]) -> list[tuple[bytes, bytes]]:
    """Cells of all data blocks."""
    with_mvcc, with_tags = _cell_layout(file_info)
    return [cell for b in blocks if b.magic == DATA for cell in parse_cells(b.payload, with_mvcc, with_tags)]


def _root_entries(root: RawBlock, trailer: Trailer) -> tuple[list[tuple[int, int, bytes]], bytes]:
    """Entries of the root data index; its payload must hold exactly the trailer's count of them
    plus, with more than one level, the 16 bytes of mid-key metadata."""
    entries, mid_key = parse_root_index(root.payload, trailer.data_index_count)
    if len(mid_key) != (16 if trailer.data_index_levels > 1 else 0):
        raise HFileFormatError(f"root data index at {root.offset} holds {len(mid_key)} bytes after the "
                               f"{trailer.data_index_count} entries the trailer counts")
    return entries, mid_key


def _meta_entries(meta_root: RawBlock, trailer: Trailer) -> list[tuple[int, int, bytes]]:
    entries, rest = parse_root_index(meta_root.payload, trailer.meta_index_count)
    if rest:
        raise HFileFormatError(f"meta index at {meta_root.offset} holds {len(rest)} bytes after the "
                               f"{trailer.meta_index_count} entries the trailer counts")
    return entries


def parse_hfile(data: bytes | bytearray | memoryview, source: str = "input") -> HFileContents:
    """Walks every block front to back (verifying CRC32C checksums), then decodes cells, file
    info, meta blocks and the root data index. HFileFormatError names `source` and the offset."""
    try:
        return _parse_hfile(bytes(data))
    except HFileFormatError as e:
        raise HFileFormatError(f"HFile {source}: {e}") from None


def _parse_hfile(data: bytes) -> HFileContents:
    trailer = parse_trailer(data)
    blocks = _read_blocks(data, trailer)
    by_offset = {b.offset: b for b in blocks}
    info_block = _block_of(by_offset, trailer.file_info_offset, FILE_INFO,
                           f"no file-info block at {trailer.file_info_offset}")
    file_info = parse_file_info(info_block.payload)
    cells = _cells(blocks, file_info)
    if len(cells) != trailer.entry_count:
        raise HFileFormatError(f"{len(cells)} cells in the data blocks, the trailer counts {trailer.entry_count}")
    root = _block_of(by_offset, trailer.load_on_open_offset, ROOT_INDEX,
                     f"no root index at {trailer.load_on_open_offset}")
    root_entries, mid_key = _root_entries(root, trailer)
    # The meta index follows the data root.
    meta_root = _block_of(by_offset, root.offset + root.on_disk_size, ROOT_INDEX,
                          f"no meta index after the root data index at {root.offset}")
    meta_blocks = {name: _block_of(by_offset, offset, META, f"no meta block at {offset}").payload
                   for offset, _, name in _meta_entries(meta_root, trailer)}
    return HFileContents(trailer, file_info, blocks, cells, meta_blocks, root_entries, mid_key)


def read_hfile(data: bytes | bytearray | memoryview, source: str = "input") -> list[tuple[bytes, bytes]]:
    """All cells of an HFile as (row, value) pairs in file order."""
    return parse_hfile(data, source).cells


# -- seeking lookups

ReadAt = Callable[[int, int], bytes]  # (offset, length) -> bytes


@dataclass
class HFileLookup:
    file_info: dict[bytes, bytes]
    cells: list[tuple[bytes, bytes]]  # the cells of the wanted rows (`whole_blocks`: of every block read),
    #                                   duplicates included, in file order
    data_blocks_read: int = 0
    # (lower, upper) row ranges of the blocks read, bounds excluded (upper None: to the end): a row strictly
    # inside one is in the file only if it is in that block (a row equal to a bound may end the block before)
    ranges: list[tuple[bytes, bytes | None]] = field(default_factory=list)


def _block_at(buf: bytes, pos: int, file_offset: int, codec: str, magics: tuple[bytes, ...]) -> RawBlock:
    """The block at buf[pos:] (file offset file_offset), checksums verified, of one of magics."""
    try:
        block = read_block(buf, pos, codec)
    except HFileFormatError as e:
        raise HFileFormatError(f"block at file offset {file_offset}: {e}") from None
    if block.magic not in magics:
        raise HFileFormatError(f"expected {' or '.join(map(repr, magics))} at file offset {file_offset}, "
                               f"found {block.magic!r}")
    return block


def _fetch(read_at: ReadAt, offset: int, size: int, codec: str, magics: tuple[bytes, ...], end: int) -> RawBlock:
    """A block the index points at, before file offset `end`; the index's on-disk size must be the
    block's own."""
    if offset < 0 or size < HEADER_SIZE or offset + size > end:
        raise HFileFormatError(f"index entry points at bytes {offset}..{offset + size}, outside the blocks "
                               f"(0..{end})")
    block = _block_at(read_at(offset, size), 0, offset, codec, magics)
    if block.on_disk_size != size:
        raise HFileFormatError(f"index says the block at {offset} has {size} bytes, its header {block.on_disk_size}")
    return block


def _key_row(key: bytes) -> bytes:
    """The row of a data index key: HBase's KeyValue keys and Hudi's native row-only keys both
    start with int16 row length + row."""
    if len(key) < 2 or (n := struct.unpack_from(">H", key)[0]) > len(key) - 2:
        raise HFileFormatError(f"data index key of {len(key)} bytes has a bad row length")
    return key[2:2 + n]


def _slots(entries: list[tuple[int, int, bytes]], key_rows: list[bytes], row: bytes) -> range:
    """The entries whose blocks can hold row. An index key is a lower bound of its block, so the
    last entry with key row <= row; also earlier ones while the key has that very row, as
    duplicates may end the previous block - unless it is HBase's shortened "first on row" key,
    which sorts after every cell of the previous block and before all of row's."""
    hi = bisect_right(key_rows, row) - 1
    lo = hi
    while lo > 0 and key_rows[lo] == row and entries[lo][2] != key_value_key(row, TYPE_MAXIMUM):
        lo -= 1
    return range(max(lo, 0), hi + 1)


Child = tuple[int, int, bytes, "bytes | None"]  # offset, on-disk size, row range from the index keys


def _children(nodes: list[tuple[list[tuple[int, int, bytes]], list[bytes], bytes | None]]
              ) -> dict[Child, list[bytes]]:
    """Each child block that can hold some of the rows wanted in nodes ((index entries, rows, the
    node's upper bound) triples): its offset, on-disk size and the rows of its index key and the
    next one (the node's bound after its last entry), with the wanted rows, in file order."""
    below: dict[Child, set[bytes]] = {}
    for entries, rows, node_upper in nodes:
        key_rows = [_key_row(k) for _, _, k in entries]
        for row in rows:
            for i in _slots(entries, key_rows, row):
                upper = key_rows[i + 1] if i + 1 < len(entries) else node_upper
                below.setdefault((*entries[i][:2], key_rows[i], upper), set()).add(row)
    return {child: sorted(below[child]) for child in sorted(below, key=lambda c: c[:2])}


def _data_entries(read_at: ReadAt, codec: str, levels: int, root: list[tuple[int, int, bytes]],
                  rows: list[bytes], end: int) -> list[Child]:
    """The data blocks that can hold rows, walking down a multi-level index one level at a time,
    each index block read once."""
    below = _children([(root, rows, None)])
    for level in range(levels - 1, 0, -1):  # the index levels under the root, leaves last
        magics = (LEAF_INDEX,) if level == 1 else (INTERMEDIATE_INDEX,)
        below = _children([(parse_non_root_index(_fetch(read_at, offset, size, codec, magics, end).payload), wanted,
                             upper) for (offset, size, _, upper), wanted in below.items()])
    return list(below)


def _data_cells(read_at: ReadAt, child: Child, codec: str, end: int, with_mvcc: bool,
                with_tags: bool) -> list[tuple[bytes, bytes]]:
    """Cells of a data block, which must lie between its index key and the next one: an index
    entry pointing at another block (of the same size) is caught here."""
    offset, size, lower, upper = child
    cells = parse_cells(_fetch(read_at, offset, size, codec, (DATA,), end).payload, with_mvcc, with_tags)
    if cells and (cells[0][0] < lower or (upper is not None and cells[-1][0] > upper)):
        raise HFileFormatError(f"data block at {offset} holds rows outside the range its index entry gives")
    return cells


def lookup(read_at: ReadAt, size: int, rows: Iterable[bytes], source: str = "input",
           whole_blocks: bool = False) -> HFileLookup:
    """The cells of `rows` in the HFile of `size` bytes that read_at(offset, length) reads: the
    trailer, the load-on-open section (root data index, meta index, file info), then only the
    index and data blocks that can hold them, each once and checksums verified. The cells are
    those a filter over parse_hfile's cells would give (`whole_blocks`: every cell of the blocks
    read). HFileFormatError names `source`."""
    try:
        return _lookup(read_at, size, rows, whole_blocks)
    except HFileFormatError as e:
        raise HFileFormatError(f"HFile {source}: {e}") from None


def _lookup(read_at: ReadAt, size: int, rows: Iterable[bytes], whole_blocks: bool = False) -> HFileLookup:
    if size < TRAILER_SIZE:
        raise HFileFormatError(f"not an HFile: {size} bytes, fewer than the {TRAILER_SIZE}-byte trailer")
    trailer = parse_trailer(read_at(size - TRAILER_SIZE, TRAILER_SIZE))
    start, end = trailer.load_on_open_offset, size - TRAILER_SIZE
    if not 0 <= start <= trailer.file_info_offset < end:
        raise HFileFormatError(f"trailer points outside the file (load-on-open at {start}, file info at "
                               f"{trailer.file_info_offset}, trailer at {end})")
    if not 1 <= trailer.data_index_levels <= 16:
        raise HFileFormatError(f"{trailer.data_index_levels} data index levels")
    section = read_at(start, end - start)
    root = _block_at(section, 0, start, trailer.codec, (ROOT_INDEX,))
    # The meta index follows the data root; checked for a well-formed file, not used.
    _meta_entries(_block_at(section, root.on_disk_size, start + root.on_disk_size, trailer.codec, (ROOT_INDEX,)),
                  trailer)
    info_at = trailer.file_info_offset
    file_info = parse_file_info(_block_at(section, info_at - start, info_at, trailer.codec, (FILE_INFO,)).payload)
    wanted = set(rows)
    root_entries, _ = _root_entries(root, trailer)
    if not wanted or not root_entries:
        return HFileLookup(file_info, [])
    blocks = _data_entries(read_at, trailer.codec, trailer.data_index_levels, root_entries, sorted(wanted), start)
    with_mvcc, with_tags = _cell_layout(file_info)
    cells = [cell for child in blocks
             for cell in _data_cells(read_at, child, trailer.codec, start, with_mvcc, with_tags)
             if whole_blocks or cell[0] in wanted]
    return HFileLookup(file_info, cells, len(blocks), [(lower, upper) for _, _, lower, upper in blocks])
