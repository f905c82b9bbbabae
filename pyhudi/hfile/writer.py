"""HFile v3 writer producing the bytes Hudi 1.0 (table version 8) writes through HBase 2.4.9.

Hudi 1.0 wrote metadata-table base files and the HFile content of metadata-table log blocks with
HBase's writer; its readers (and ours) expect that exact layout (docs/format.md §3):

* data blocks of KeyValue cells (cell.py), cut once the uncompressed cells reach ``block_size``;
* a data-block index (index.py): one root level, or leaf blocks written inline between data
  blocks plus intermediate levels when the root would outgrow the index chunk size;
* meta blocks (Hudi: ``bloomFilter``) with their own root index, the file-info block, and the
  fixed 4096-byte protobuf trailer, major 3, minor 3 (trailer.py);
* every block framed with a header and CRC32C checksums, GZ or NONE (block.py).

Index keys follow HBase's shortening: except for the first block, a block is indexed by the
shortest row sorting after the previous block's last row and not after its own first row
(timestamp LATEST, type Maximum). Readers treat index keys as lower bounds.
"""
from __future__ import annotations

import io
import struct
from typing import BinaryIO, Iterable, Mapping

from pyhudi.hfile.block import frame_block
from pyhudi.hfile.cell import KEY_OVERHEAD, key_value_key, midpoint_row, put_cell
from pyhudi.hfile.format import (
    AVG_KEY_LEN,
    AVG_VALUE_LEN,
    CREATE_TIME_TS,
    DATA,
    DEFAULT_BLOCK_SIZE,
    DEFAULT_INDEX_BLOCK_MAX_SIZE,
    DEFAULT_INDEX_MIN_ENTRIES,
    FILE_INFO,
    HEADER_SIZE,
    HUDI_COMPARATOR,
    KEY_VALUE_VERSION,
    LASTKEY,
    LEAF_INDEX,
    MAJOR_VERSION,
    MAX_MEMSTORE_TS_KEY,
    META,
    MINOR_VERSION,
    RESERVED_PREFIX,
    ROOT_INDEX,
    TRAILER_SIZE,
    TYPE_MAXIMUM,
    codec_name,
)
from pyhudi.hfile.index import BlockIndexWriter, IndexChunk
from pyhudi.hfile.trailer import Trailer, file_info_bytes, trailer_bytes

__all__ = ["HFileWriter", "write_hfile"]


class HFileWriter:
    """Streams an HFile into sink (anything with write(bytes)).

    add() cells in unsigned-byte order of their keys (equal keys allowed and kept in order),
    optionally append_file_info()/add_meta_block(), then close(). Keys and file-info entries may
    be str (UTF-8) or bytes.
    """

    def __init__(self, sink: BinaryIO, *, block_size: int = DEFAULT_BLOCK_SIZE, compression: str = "gz",
                 file_info: Mapping[bytes | str, bytes | str] | None = None,
                 meta_blocks: Mapping[str, bytes | str] | None = None,
                 comparator: str = HUDI_COMPARATOR,
                 index_block_max_size: int = DEFAULT_INDEX_BLOCK_MAX_SIZE,
                 index_min_entries: int = DEFAULT_INDEX_MIN_ENTRIES,
                 shorten_index_keys: bool = True):
        if block_size <= 0:
            raise ValueError(f"block_size must be positive, got {block_size}")
        if index_block_max_size <= 0:
            raise ValueError(f"index_block_max_size must be positive, got {index_block_max_size}")
        if index_min_entries < 2:
            raise ValueError(f"index_min_entries must be at least 2, got {index_min_entries}")
        self._codec = codec_name(compression)
        self._sink = sink
        self._pos = 0
        self._block_size = block_size
        self._comparator = comparator
        self._shorten = shorten_index_keys
        self._index = BlockIndexWriter(index_block_max_size, index_min_entries)
        self._prev_offsets: dict[bytes, int] = {}
        self._file_info: dict[bytes, bytes] = {}
        self._meta: list[tuple[bytes, bytes]] = []
        self._cells: list[bytes] = []
        self._block_bytes = 0
        self._first_row: bytes | None = None
        self._prev_block_last_row: bytes | None = None
        self._last_row: bytes | None = None
        self._entries = 0
        self._key_bytes = 0
        self._value_bytes = 0
        self._uncompressed_total = 0
        self._first_data_offset = -1
        self._last_data_offset = -1
        self._closed = False
        for k, v in (file_info or {}).items():
            self.append_file_info(k, v)
        for name, data in (meta_blocks or {}).items():
            self.add_meta_block(name, data)

    # -- public API

    def add(self, key: bytes | str, value: bytes | str) -> None:
        """Appends one cell; keys must not decrease (unsigned byte order)."""
        self._check_open()
        row = key if type(key) is bytes else _as_bytes(key, "key")  # noqa: E721 - exact type: the hot path
        if type(value) is not bytes:  # noqa: E721
            value = _as_bytes(value, "value")
        if len(row) > 0x7FFF:
            raise ValueError(f"key of {len(row)} bytes exceeds the 32767-byte HFile row limit")
        last = self._last_row
        if last is not None:
            if row < last:
                raise ValueError(f"keys must be added in sorted (unsigned byte) order: {row!r} after {last!r}")
            # Like HBase, a block is only cut between different keys, so equal keys share a block.
            if row != last and self._block_bytes >= self._block_size:
                self._finish_data_block()
                self._write_leaf_blocks(closing=False)
        self._append_cell(row, value)

    def add_all(self, cells: Iterable[tuple[bytes | str, bytes | str]]) -> None:
        for key, value in cells:
            self.add(key, value)

    def append_file_info(self, key: bytes | str, value: bytes | str) -> None:
        """Adds a caller file-info entry (e.g. schema, minRecordKey). The hfile.* keys,
        KEY_VALUE_VERSION and MAX_MEMSTORE_TS_KEY are the writer's own."""
        self._check_open()
        k = _as_bytes(key, "file-info key")
        if k.startswith(RESERVED_PREFIX) or k in (KEY_VALUE_VERSION, MAX_MEMSTORE_TS_KEY):
            raise ValueError(f"file-info key {k!r} is filled in by the writer and cannot be set")
        self._file_info[k] = _as_bytes(value, "file-info value")

    def add_meta_block(self, name: str, data: bytes | str) -> None:
        """Adds a meta block (Hudi: 'bloomFilter' = the Base64 bloom filter text)."""
        self._check_open()
        self._meta.append((_as_bytes(name, "meta block name"), _as_bytes(data, "meta block data")))

    def close(self) -> int:
        """Writes the remaining blocks, the load-on-open section and the trailer; returns the
        file size."""
        self._check_open()
        self._closed = True
        self._finish_data_block()
        self._write_leaf_blocks(closing=True)
        meta_index = self._write_meta_blocks()
        root_offset = self._index.finish(self._write_block)
        self._count_uncompressed(self._write_block(ROOT_INDEX, meta_index.root_bytes()))
        file_info_offset = self._pos
        self._count_uncompressed(self._write_block(FILE_INFO, self._file_info_payload()))
        self._emit(self._trailer(file_info_offset, root_offset, len(meta_index)))
        return self._pos

    def __enter__(self) -> "HFileWriter":
        return self

    def __exit__(self, exc_type, exc, tb) -> None:
        if exc_type is None and not self._closed:
            self.close()

    # -- cells and data blocks

    def _append_cell(self, row: bytes, value: bytes) -> None:
        cell = put_cell(row, value)
        self._cells.append(cell)
        self._block_bytes += len(cell)
        if self._first_row is None:
            self._first_row = row
        self._last_row = row
        self._entries += 1
        self._key_bytes += len(row) + KEY_OVERHEAD
        self._value_bytes += len(value)

    def _finish_data_block(self) -> None:
        if not self._cells:
            return
        offset, on_disk, uncompressed = self._write_block(DATA, b"".join(self._cells))
        if self._first_data_offset < 0:
            self._first_data_offset = offset
        self._last_data_offset = offset
        self._index.add_data_block(self._index_key(), offset, on_disk)
        self._count_uncompressed((offset, on_disk, uncompressed))
        self._cells, self._block_bytes = [], 0
        self._prev_block_last_row, self._first_row = self._last_row, None

    def _index_key(self) -> bytes:
        left, right = self._prev_block_last_row, self._first_row
        assert right is not None  # only called for a block with cells, whose first row _append_cell set
        if left is None or not self._shorten:
            return key_value_key(right)
        return key_value_key(midpoint_row(left, right), TYPE_MAXIMUM)

    def _write_leaf_blocks(self, closing: bool) -> None:
        while self._index.should_write_leaf(closing):
            payload, first_key = self._index.take_leaf()
            offset, on_disk, uncompressed = self._write_block(LEAF_INDEX, payload)
            self._index.leaf_written(first_key, offset, on_disk, uncompressed)
            self._count_uncompressed((offset, on_disk, uncompressed))

    def _write_meta_blocks(self) -> IndexChunk:
        index = IndexChunk()
        # HBase keeps meta blocks sorted by name (stable for equal names).
        for name, data in sorted(self._meta, key=lambda item: item[0]):
            written = self._write_block(META, data)
            self._count_uncompressed(written)
            index.add(name, written[0], written[1])
        return index

    # -- load-on-open section and trailer

    def _file_info_payload(self) -> bytes:
        info = dict(self._file_info)
        if self._last_row is not None:
            info[LASTKEY] = key_value_key(self._last_row)
        info[AVG_KEY_LEN] = struct.pack(">i", self._key_bytes // self._entries if self._entries else 0)
        info[CREATE_TIME_TS] = struct.pack(">q", 0)
        info[AVG_VALUE_LEN] = struct.pack(">i", self._value_bytes // self._entries if self._entries else 0)
        info[MAX_MEMSTORE_TS_KEY] = struct.pack(">q", 0)
        info[KEY_VALUE_VERSION] = struct.pack(">i", 1)
        return file_info_bytes(info)

    def _trailer(self, file_info_offset: int, root_offset: int, meta_count: int) -> bytes:
        return trailer_bytes(Trailer(
            file_info_offset=file_info_offset, load_on_open_offset=root_offset,
            uncompressed_data_index_size=self._index.uncompressed_size,
            total_uncompressed_bytes=self._uncompressed_total + TRAILER_SIZE,
            data_index_count=len(self._index.root), meta_index_count=meta_count, entry_count=self._entries,
            data_index_levels=self._index.levels, first_data_block_offset=self._first_data_offset,
            last_data_block_offset=self._last_data_offset, comparator=self._comparator, codec=self._codec,
            major_version=MAJOR_VERSION, minor_version=MINOR_VERSION))

    # -- output

    def _write_block(self, magic: bytes, payload: bytes) -> tuple[int, int, int]:
        """Writes one block; returns (offset, on-disk size with header, uncompressed payload size)."""
        offset = self._pos
        # The root data index and the meta index share ROOT_INDEX, so the meta index points back
        # at the data root, as HBase's per-type bookkeeping does.
        framed = frame_block(magic, payload, self._prev_offsets.get(magic, -1), self._codec)
        self._prev_offsets[magic] = offset
        self._emit(framed)
        return offset, len(framed), len(payload)

    def _count_uncompressed(self, written: tuple[int, int, int]) -> None:
        self._uncompressed_total += HEADER_SIZE + written[2]

    def _emit(self, data: bytes) -> None:
        self._sink.write(data)
        self._pos += len(data)

    def _check_open(self) -> None:
        if self._closed:
            raise ValueError("HFileWriter is closed")


def _as_bytes(value: bytes | bytearray | memoryview | str, what: str) -> bytes:
    if isinstance(value, str):
        return value.encode("utf-8")
    if isinstance(value, (bytes, bytearray, memoryview)):
        return bytes(value)
    raise TypeError(f"{what} must be bytes or str, got {type(value).__name__}")


def write_hfile(cells: Iterable[tuple[bytes | str, bytes | str]], *, block_size: int = DEFAULT_BLOCK_SIZE,
                compression: str = "gz", file_info: Mapping[bytes | str, bytes | str] | None = None,
                meta_blocks: Mapping[str, bytes | str] | None = None, **options) -> bytes:
    """The bytes of an HFile holding cells ((key, value) pairs in sorted key order).
    options: comparator, index_block_max_size, index_min_entries, shorten_index_keys."""
    out = io.BytesIO()
    writer = HFileWriter(out, block_size=block_size, compression=compression, file_info=file_info,
                         meta_blocks=meta_blocks, **options)
    writer.add_all(cells)
    writer.close()
    return out.getvalue()
