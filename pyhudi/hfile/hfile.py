"""HFile v3 writer producing the bytes Hudi 1.0 (table version 8) writes through HBase 2.4.9.

Hudi 1.0 wrote metadata-table base files and the HFile content of metadata-table log blocks with
HBase's writer; its readers (and ours) expect that exact layout (FORMAT-NOTES.md §3):

* data blocks of KeyValue cells (row = record key, empty family/qualifier, LATEST timestamp, Put,
  memstore timestamp 0), cut once the uncompressed cells reach ``block_size``;
* a data-block index: one root level, or leaf blocks written inline between data blocks plus
  intermediate levels when the root would outgrow the index chunk size;
* meta blocks (Hudi: ``bloomFilter``) with their own root index, the file-info block, and the
  fixed 4096-byte protobuf trailer (major 3, minor 3);
* every block framed by a 33-byte header and CRC32C checksums per 16 KiB of header + payload,
  payloads compressed with GZ (one gzip member per block) or NONE.

Index keys follow HBase's shortening: except for the first block, a block is indexed by the
shortest row sorting after the previous block's last row and not after its own first row
(timestamp LATEST, type Maximum). Readers treat index keys as lower bounds.

``read_hfile``/``parse_hfile`` are a small sequential reader used to check the writer.
"""
from __future__ import annotations

import io
import struct
import zlib
from dataclasses import dataclass, field
from typing import BinaryIO, Iterable, Mapping

import numpy as np

__all__ = [
    "DEFAULT_BLOCK_SIZE", "HBASE_DEFAULT_BLOCK_SIZE", "DEFAULT_INDEX_BLOCK_MAX_SIZE",
    "DEFAULT_INDEX_MIN_ENTRIES", "HUDI_COMPARATOR", "HBASE_KV_COMPARATOR",
    "HFileWriter", "write_hfile", "read_hfile", "parse_hfile", "HFileContents", "Trailer",
    "RawBlock", "HFileFormatError", "crc32c",
]

# Hudi's `hoodie.hfile.block.size` default, also the block size of metadata-table log-block HFiles.
DEFAULT_BLOCK_SIZE = 1024 * 1024
HBASE_DEFAULT_BLOCK_SIZE = 64 * 1024
# HBase `hfile.index.block.max.size` and `hfile.index.block.min.entries` defaults.
DEFAULT_INDEX_BLOCK_MAX_SIZE = 128 * 1024
DEFAULT_INDEX_MIN_ENTRIES = 16

HUDI_COMPARATOR = "org.apache.hudi.io.storage.HoodieHBaseKVComparator"
HBASE_KV_COMPARATOR = "org.apache.hadoop.hbase.KeyValue$KVComparator"

MAJOR_VERSION = 3
MINOR_VERSION = 3
HEADER_SIZE = 33
TRAILER_SIZE = 4096
BYTES_PER_CHECKSUM = 16384
CHECKSUM_NULL, CHECKSUM_CRC32, CHECKSUM_CRC32C = 0, 1, 2

LATEST_TIMESTAMP = (1 << 63) - 1
TYPE_PUT = 4
TYPE_MAXIMUM = 255

# Compression.Algorithm ordinals as stored in the trailer.
CODECS = {"LZO": 0, "GZ": 1, "NONE": 2, "SNAPPY": 3, "LZ4": 4, "BZIP2": 5, "ZSTD": 6}
CODEC_NAMES = {v: k for k, v in CODECS.items()}
WRITABLE_CODECS = ("GZ", "NONE")

DATA = b"DATABLK*"
ENCODED_DATA = b"DATABLKE"
LEAF_INDEX = b"IDXLEAF2"
BLOOM_CHUNK = b"BLMFBLK2"
META = b"METABLKc"
INTERMEDIATE_INDEX = b"IDXINTE2"
ROOT_INDEX = b"IDXROOT2"
FILE_INFO = b"FILEINF2"
GENERAL_BLOOM_META = b"BLMFMET2"
DELETE_FAMILY_BLOOM_META = b"DFBLMET2"
TRAILER_MAGIC = b'TRABLK"$'
KNOWN_MAGICS = (DATA, ENCODED_DATA, LEAF_INDEX, BLOOM_CHUNK, META, INTERMEDIATE_INDEX, ROOT_INDEX,
                FILE_INFO, GENERAL_BLOOM_META, DELETE_FAMILY_BLOOM_META)

# File-info keys HBase fills in itself.
KEY_VALUE_VERSION = b"KEY_VALUE_VERSION"
MAX_MEMSTORE_TS_KEY = b"MAX_MEMSTORE_TS_KEY"
AVG_KEY_LEN = b"hfile.AVG_KEY_LEN"
AVG_VALUE_LEN = b"hfile.AVG_VALUE_LEN"
CREATE_TIME_TS = b"hfile.CREATE_TIME_TS"
LASTKEY = b"hfile.LASTKEY"
MAX_TAGS_LEN = b"hfile.MAX_TAGS_LEN"
RESERVED_PREFIX = b"hfile."
PB_MAGIC = b"PBUF"

# gzip member header as Java's GZIPOutputStream writes it: no flags, MTIME 0, XFL 0, OS 0.
_GZIP_HEADER = b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x00"
# java.util.zip.Deflater default level (Z_DEFAULT_COMPRESSION resolves to 6).
GZIP_LEVEL = 6

_HEADER = struct.Struct(">8siiqbii")
_CELL_LENGTHS = struct.Struct(">ii")
_KEY_SUFFIX = struct.Struct(">bqB").pack(0, LATEST_TIMESTAMP, TYPE_PUT)  # family len, ts, type
_FIRST_ON_ROW_SUFFIX = struct.Struct(">bqB").pack(0, LATEST_TIMESTAMP, TYPE_MAXIMUM)


class HFileFormatError(ValueError):
    """Malformed or unsupported HFile bytes."""


# ---------------------------------------------------------------- CRC32C (Castagnoli)

_CRC32C_POLY = 0x82F63B78  # reflected form of 0x1EDC6F41


def _make_byte_table() -> np.ndarray:
    t = np.arange(256, dtype=np.uint32)
    for _ in range(8):
        t = np.where(t & 1, (t >> 1) ^ np.uint32(_CRC32C_POLY), t >> 1).astype(np.uint32)
    return t


_T0 = _make_byte_table()
_T0_LIST = [int(v) for v in _T0]
_SPAN = 256  # bytes folded per vectorised step


def _make_position_table() -> np.ndarray:
    """Row i: contribution of a byte at position i of a 256-byte span (zero initial state)."""
    rows = [_T0]
    for _ in range(_SPAN - 1):
        prev = rows[-1]
        rows.append((prev >> 8) ^ _T0[prev & 0xFF])
    return np.stack(rows[::-1])


_POSITION = _make_position_table()
_COLUMNS = np.arange(_SPAN)
_SHIFT_TABLES: list[np.ndarray] = []  # [level] -> (4, 256): state after 256 * 2**level zero bytes


def _apply_zero_bytes(state: np.ndarray, count: int) -> np.ndarray:
    for _ in range(count):
        state = (state >> 8) ^ _T0[state & 0xFF]
    return state


def _apply_shift(table: np.ndarray, state: np.ndarray) -> np.ndarray:
    return (table[0][state & 0xFF] ^ table[1][(state >> 8) & 0xFF]
            ^ table[2][(state >> 16) & 0xFF] ^ table[3][state >> 24])


def _shift_table(level: int) -> np.ndarray:
    """The register is linear in its 4 bytes, so advancing it by n zero bytes is 4 lookups."""
    while len(_SHIFT_TABLES) <= level:
        basis = (np.arange(256, dtype=np.uint32)[None, :] << (8 * np.arange(4, dtype=np.uint32))[:, None])
        if not _SHIFT_TABLES:
            _SHIFT_TABLES.append(_apply_zero_bytes(basis, _SPAN))
        else:
            last = _SHIFT_TABLES[-1]
            _SHIFT_TABLES.append(_apply_shift(last, _apply_shift(last, basis)))
    return _SHIFT_TABLES[level]


def _crc32c_small(data: bytes, crc: int = 0) -> int:
    crc ^= 0xFFFFFFFF
    table = _T0_LIST
    for b in data:
        crc = (crc >> 8) ^ table[(crc ^ b) & 0xFF]
    return crc ^ 0xFFFFFFFF


def crc32c(data: bytes | bytearray | memoryview) -> int:
    """CRC32C of data (HBase ChecksumType.CRC32C). Spans of 256 bytes are folded with numpy and
    the per-span CRCs combined pairwise; leading zero bytes do not change a zero-initialised CRC,
    so the input is zero-padded in front to whole spans."""
    n = len(data)
    if n < 2 * _SPAN:
        return _crc32c_small(bytes(data))
    padded = np.zeros(-(-n // _SPAN) * _SPAN, dtype=np.uint8)
    padded[len(padded) - n:] = np.frombuffer(data, dtype=np.uint8)
    # The all-ones initial register equals XOR-ing 0xFF into the first four message bytes.
    padded[len(padded) - n:len(padded) - n + 4] ^= 0xFF
    spans = np.bitwise_xor.reduce(_POSITION[_COLUMNS, padded.reshape(-1, _SPAN)], axis=1)
    level = 0
    while len(spans) > 1:
        if len(spans) % 2:
            spans = np.concatenate([np.zeros(1, dtype=np.uint32), spans])
        spans = _apply_shift(_shift_table(level), spans[0::2]) ^ spans[1::2]
        level += 1
    return int(spans[0]) ^ 0xFFFFFFFF


def _checksums(block: bytes, bytes_per_checksum: int = BYTES_PER_CHECKSUM) -> bytes:
    return b"".join(crc32c(block[i:i + bytes_per_checksum]).to_bytes(4, "big")
                    for i in range(0, len(block), bytes_per_checksum))


# ---------------------------------------------------------------- small encoders


def _vint_size(value: int) -> int:
    """Bytes of Hadoop WritableUtils.writeVLong(value)."""
    if -112 <= value <= 127:
        return 1
    if value < 0:
        value = ~value
    return 1 + (value.bit_length() + 7) // 8


def write_vlong(value: int) -> bytes:
    """Hadoop WritableUtils.writeVLong: one byte for -112..127, else a length marker byte
    followed by the big-endian magnitude (one's complement for negatives)."""
    if -112 <= value <= 127:
        return struct.pack(">b", value)
    marker = -112
    if value < 0:
        value = ~value
        marker = -120
    size = (value.bit_length() + 7) // 8
    return struct.pack(">b", marker - size) + value.to_bytes(size, "big")


def read_vlong(buf: bytes, pos: int) -> tuple[int, int]:
    """Inverse of write_vlong; returns (value, next position)."""
    first = struct.unpack_from(">b", buf, pos)[0]
    if first >= -112:
        return first, pos + 1
    negative = first < -120
    size = (-120 - first) if negative else (-112 - first)
    value = int.from_bytes(buf[pos + 1:pos + 1 + size], "big")
    return (~value if negative else value), pos + 1 + size


def _pb_varint(value: int) -> bytes:
    """Protobuf base-128 varint; negatives as 64-bit two's complement (10 bytes), as Java does."""
    value &= (1 << 64) - 1
    out = bytearray()
    while value > 0x7F:
        out.append((value & 0x7F) | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


def _pb_read_varint(buf: bytes, pos: int) -> tuple[int, int]:
    shift = result = 0
    while True:
        if pos >= len(buf):
            raise HFileFormatError("truncated protobuf varint")
        b = buf[pos]
        pos += 1
        result |= (b & 0x7F) << shift
        if b < 0x80:
            return result, pos
        shift += 7


def _pb_field_varint(number: int, value: int) -> bytes:
    return _pb_varint(number << 3) + _pb_varint(value)


def _pb_field_bytes(number: int, value: bytes) -> bytes:
    return _pb_varint((number << 3) | 2) + _pb_varint(len(value)) + value


def _pb_fields(buf: bytes) -> Iterable[tuple[int, int | bytes]]:
    """Yields (field number, varint value or bytes) of a protobuf message; other wire types fail."""
    pos = 0
    while pos < len(buf):
        tag, pos = _pb_read_varint(buf, pos)
        number, wire = tag >> 3, tag & 7
        if wire == 0:
            value, pos = _pb_read_varint(buf, pos)
        elif wire == 2:
            size, pos = _pb_read_varint(buf, pos)
            value, pos = bytes(buf[pos:pos + size]), pos + size
        else:
            raise HFileFormatError(f"unsupported protobuf wire type {wire} (field {number})")
        yield number, value


def _as_bytes(value: bytes | bytearray | memoryview | str, what: str) -> bytes:
    if isinstance(value, str):
        return value.encode("utf-8")
    if isinstance(value, (bytes, bytearray, memoryview)):
        return bytes(value)
    raise TypeError(f"{what} must be bytes or str, got {type(value).__name__}")


def key_value_key(row: bytes, type_code: int = TYPE_PUT) -> bytes:
    """Serialized KeyValue key of a Hudi cell: int16 row length, row, empty family and
    qualifier, LATEST timestamp, type."""
    suffix = _KEY_SUFFIX if type_code == TYPE_PUT else _FIRST_ON_ROW_SUFFIX
    return struct.pack(">h", len(row)) + row + suffix


def _midpoint_row(left: bytes, right: bytes) -> bytes:
    """HBase's shortest separator: a row r with left < r <= right, cut right after the first
    differing byte (left's byte + 1 when that still sorts below right's byte)."""
    limit = min(len(left), len(right))
    i = 0
    while i < limit and left[i] == right[i]:
        i += 1
    if i < limit and left[i] + 1 < right[i]:
        return left[:i] + bytes([left[i] + 1])
    return right[:i + 1]


# ---------------------------------------------------------------- block framing


def _gzip(payload: bytes) -> bytes:
    deflater = zlib.compressobj(GZIP_LEVEL, zlib.DEFLATED, -15, 8, zlib.Z_DEFAULT_STRATEGY)
    body = deflater.compress(payload) + deflater.flush()
    return _GZIP_HEADER + body + struct.pack("<II", zlib.crc32(payload), len(payload) & 0xFFFFFFFF)


def _frame_block(magic: bytes, payload: bytes, prev_offset: int, codec: str) -> bytes:
    """Header + (compressed) payload + CRC32C per 16 KiB chunk of header and on-disk payload."""
    on_disk = _gzip(payload) if codec == "GZ" else payload
    data_with_header = HEADER_SIZE + len(on_disk)
    checksum_bytes = 4 * -(-data_with_header // BYTES_PER_CHECKSUM)
    header = _HEADER.pack(magic, len(on_disk) + checksum_bytes, len(payload), prev_offset,
                          CHECKSUM_CRC32C, BYTES_PER_CHECKSUM, data_with_header)
    framed = header + on_disk
    return framed + _checksums(framed)


# ---------------------------------------------------------------- block index


class _IndexChunk:
    """Entries of one index block under construction, with the sizes HBase measures it by."""

    def __init__(self):
        self.keys: list[bytes] = []
        self.offsets: list[int] = []
        self.sizes: list[int] = []
        self.sub_entries: list[int] = []  # cumulative data-block count, root of a multi-level index
        self.non_root_entries_size = 0
        self.root_size = 0

    def __len__(self) -> int:
        return len(self.keys)

    def add(self, key: bytes, offset: int, size: int, sub_entries: int | None = None) -> None:
        self.keys.append(key)
        self.offsets.append(offset)
        self.sizes.append(size)
        if sub_entries is not None:
            self.sub_entries.append(sub_entries)
        self.non_root_entries_size += 12 + len(key)
        self.root_size += 12 + _vint_size(len(key)) + len(key)

    def non_root_size(self) -> int:
        return 4 + 4 * (len(self.keys) + 1) + self.non_root_entries_size

    def non_root_bytes(self) -> bytes:
        """int32 count, int32 offsets of each entry (plus the end) relative to the entries,
        then offset/size/key entries."""
        out = [struct.pack(">i", len(self.keys))]
        mark = 0
        for key in self.keys:
            out.append(struct.pack(">i", mark))
            mark += 12 + len(key)
        out.append(struct.pack(">i", mark))
        for key, offset, size in zip(self.keys, self.offsets, self.sizes):
            out.append(struct.pack(">qi", offset, size))
            out.append(key)
        return b"".join(out)

    def root_bytes(self) -> bytes:
        return b"".join(struct.pack(">qi", offset, size) + write_vlong(len(key)) + key
                        for key, offset, size in zip(self.keys, self.offsets, self.sizes))

    def mid_key_metadata(self) -> bytes:
        """Where HBase finds the file's middle data block: leaf offset, leaf on-disk size, and
        the entry within that leaf."""
        total = self.sub_entries[-1]
        mid = (total - 1) // 2
        entry = next(i for i, count in enumerate(self.sub_entries) if count > mid)
        before = self.sub_entries[entry - 1] if entry else 0
        return struct.pack(">qii", self.offsets[entry], self.sizes[entry], mid - before)


class _BlockIndexWriter:
    """HBase's multi-level data-block index: leaf chunks go to disk inline once their non-root
    size reaches max_chunk_size; at close, levels above are split until the root fits."""

    def __init__(self, max_chunk_size: int, min_entries: int):
        self.max_chunk_size = max_chunk_size
        self.min_entries = min_entries
        self.root = _IndexChunk()
        self.leaf: _IndexChunk | None = _IndexChunk()
        self.levels = 1
        self.data_blocks = 0
        self.uncompressed_size = 0  # all index blocks, headers excluded

    def add_data_block(self, key: bytes, offset: int, size: int) -> None:
        self.leaf.add(key, offset, size)
        self.data_blocks += 1

    def should_write_leaf(self, closing: bool) -> bool:
        if self.leaf is None or not len(self.leaf):
            return False
        if not closing:
            return self.leaf.non_root_size() >= self.max_chunk_size
        if not len(self.root):
            # Too few entries for a leaf level: they become the root.
            self.root, self.leaf = self.leaf, None
            return False
        return True

    def take_leaf(self) -> tuple[bytes, bytes]:
        """Payload of the pending leaf block and its first key; starts a new leaf."""
        payload, first_key = self.leaf.non_root_bytes(), self.leaf.keys[0]
        self.leaf = _IndexChunk()
        return payload, first_key

    def leaf_written(self, first_key: bytes, offset: int, on_disk: int, uncompressed: int) -> None:
        self.uncompressed_size += uncompressed
        self.levels = max(self.levels, 2)
        self.root.add(first_key, offset, on_disk, self.data_blocks)

    def finish(self, write_block) -> int:
        """Writes intermediate levels and the root with write_block(magic, payload) ->
        (offset, on_disk, uncompressed); returns the root offset."""
        mid_key = self.root.mid_key_metadata() if self.levels > 1 else b""
        if self.leaf is not None:
            while (self.root.root_size > self.max_chunk_size and len(self.root) > self.min_entries
                   and self.levels < 16):
                self.root = self._intermediate_level(self.root, write_block)
                self.levels += 1
        offset, _, uncompressed = write_block(ROOT_INDEX, self.root.root_bytes() + mid_key)
        self.uncompressed_size += uncompressed
        return offset

    def _intermediate_level(self, level: _IndexChunk, write_block) -> _IndexChunk:
        parent, chunk = _IndexChunk(), _IndexChunk()
        for i, (key, offset, size) in enumerate(zip(level.keys, level.offsets, level.sizes)):
            chunk.add(key, offset, size)
            # HBase counts i over the whole level here, not within the chunk.
            if i >= self.min_entries and chunk.root_size >= self.max_chunk_size:
                chunk = self._write_intermediate(chunk, parent, write_block)
        if len(chunk):
            self._write_intermediate(chunk, parent, write_block)
        return parent

    def _write_intermediate(self, chunk: _IndexChunk, parent: _IndexChunk, write_block) -> _IndexChunk:
        offset, on_disk, uncompressed = write_block(INTERMEDIATE_INDEX, chunk.non_root_bytes())
        self.uncompressed_size += uncompressed
        parent.add(chunk.keys[0], offset, on_disk)
        return _IndexChunk()


# ---------------------------------------------------------------- writer


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
        self._codec = _codec_name(compression)
        self._sink = sink
        self._pos = 0
        self._block_size = block_size
        self._comparator = comparator
        self._shorten = shorten_index_keys
        self._index = _BlockIndexWriter(index_block_max_size, index_min_entries)
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
        row, value = _as_bytes(key, "key"), _as_bytes(value, "value")
        if len(row) > 0x7FFF:
            raise ValueError(f"key of {len(row)} bytes exceeds the 32767-byte HFile row limit")
        duplicate = False
        if self._last_row is not None:
            if row < self._last_row:
                raise ValueError(f"keys must be added in sorted (unsigned byte) order: {row!r} after "
                                 f"{self._last_row!r}")
            duplicate = row == self._last_row
        # Like HBase, a block is only cut between different keys, so equal keys share a block.
        if not duplicate and self._block_bytes >= self._block_size:
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
        key = key_value_key(row)
        cell = b"".join((_CELL_LENGTHS.pack(len(key), len(value)), key, value, b"\x00"))
        self._cells.append(cell)
        self._block_bytes += len(cell)
        if self._first_row is None:
            self._first_row = row
        self._last_row = row
        self._entries += 1
        self._key_bytes += len(key)
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
        if left is None or not self._shorten:
            return key_value_key(right)
        return key_value_key(_midpoint_row(left, right), TYPE_MAXIMUM)

    def _write_leaf_blocks(self, closing: bool) -> None:
        while self._index.should_write_leaf(closing):
            payload, first_key = self._index.take_leaf()
            offset, on_disk, uncompressed = self._write_block(LEAF_INDEX, payload)
            self._index.leaf_written(first_key, offset, on_disk, uncompressed)
            self._count_uncompressed((offset, on_disk, uncompressed))

    def _write_meta_blocks(self) -> _IndexChunk:
        index = _IndexChunk()
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
        entries = b"".join(_pb_field_bytes(1, _pb_field_bytes(1, k) + _pb_field_bytes(2, info[k]))
                           for k in sorted(info))
        return PB_MAGIC + _pb_varint(len(entries)) + entries

    def _trailer(self, file_info_offset: int, root_offset: int, meta_count: int) -> bytes:
        proto = b"".join((
            _pb_field_varint(1, file_info_offset),
            _pb_field_varint(2, root_offset),
            _pb_field_varint(3, self._index.uncompressed_size),
            _pb_field_varint(4, self._uncompressed_total + TRAILER_SIZE),
            _pb_field_varint(5, len(self._index.root)),
            _pb_field_varint(6, meta_count),
            _pb_field_varint(7, self._entries),
            _pb_field_varint(8, self._index.levels),
            _pb_field_varint(9, self._first_data_offset),
            _pb_field_varint(10, self._last_data_offset),
            _pb_field_bytes(11, self._comparator.encode("utf-8")),
            _pb_field_varint(12, CODECS[self._codec]),
        ))
        body = TRAILER_MAGIC + _pb_varint(len(proto)) + proto
        padding = TRAILER_SIZE - 4 - len(body)
        if padding < 0:
            raise ValueError(f"trailer protobuf of {len(body)} bytes does not fit the {TRAILER_SIZE}-byte trailer "
                             "(comparator name too long?)")
        return body + bytes(padding) + struct.pack(">i", (MINOR_VERSION << 24) | MAJOR_VERSION)

    # -- output

    def _write_block(self, magic: bytes, payload: bytes) -> tuple[int, int, int]:
        """Writes one block; returns (offset, on-disk size with header, uncompressed payload size)."""
        offset = self._pos
        # The root data index and the meta index share ROOT_INDEX, so the meta index points back
        # at the data root, as HBase's per-type bookkeeping does.
        framed = _frame_block(magic, payload, self._prev_offsets.get(magic, -1), self._codec)
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


def _codec_name(compression: str | None) -> str:
    name = (compression or "none").upper()
    if name == "GZIP":
        name = "GZ"
    if name not in WRITABLE_CODECS:
        raise ValueError(f"unsupported HFile compression {compression!r}; valid values: gz, none")
    return name


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


# ---------------------------------------------------------------- reader (for checking)


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


def _parse_trailer(data: bytes) -> Trailer:
    if len(data) < TRAILER_SIZE:
        raise HFileFormatError(f"not an HFile: {len(data)} bytes, fewer than the {TRAILER_SIZE}-byte trailer")
    tail = data[-TRAILER_SIZE:]
    if tail[:8] != TRAILER_MAGIC:
        raise HFileFormatError(f"no trailer magic at {len(data) - TRAILER_SIZE}: {tail[:8]!r}")
    version = struct.unpack(">i", tail[-4:])[0]
    major, minor = version & 0xFFFFFF, (version >> 24) & 0xFF
    if major != 3:
        raise HFileFormatError(f"HFile major version {major} unsupported (only 3)")
    size, pos = _pb_read_varint(tail, 8)
    f = {}
    for number, value in _pb_fields(tail[pos:pos + size]):
        f[number] = value

    def signed(v):
        return v - (1 << 64) if v >= 1 << 63 else v

    return Trailer(
        file_info_offset=f.get(1, 0), load_on_open_offset=f.get(2, 0),
        uncompressed_data_index_size=f.get(3, 0), total_uncompressed_bytes=f.get(4),
        data_index_count=f.get(5, 0), meta_index_count=f.get(6, 0), entry_count=f.get(7, 0),
        data_index_levels=f.get(8, 1), first_data_block_offset=signed(f.get(9, 0)),
        last_data_block_offset=signed(f.get(10, 0)),
        comparator=f.get(11, b"").decode("utf-8"),
        codec=CODEC_NAMES.get(f.get(12, 2), str(f.get(12))), major_version=major, minor_version=minor)


def _decompress(on_disk: bytes, codec: str, size: int, where: str) -> bytes:
    if codec == "NONE":
        payload = on_disk
    elif codec == "GZ":
        try:
            payload = zlib.decompress(on_disk, 16 + zlib.MAX_WBITS)
        except zlib.error as e:
            raise HFileFormatError(f"bad gzip data in {where}: {e}") from None
    else:
        raise HFileFormatError(f"codec {codec} not supported by this reader")
    if len(payload) != size:
        raise HFileFormatError(f"{where} holds {len(payload)} bytes, header says {size}")
    return payload


def _read_block(data: bytes, offset: int, codec: str) -> RawBlock:
    if offset + HEADER_SIZE > len(data):
        raise HFileFormatError(f"truncated block header at {offset}")
    magic, on_disk_wo_header, uncompressed, prev, ck_type, per_ck, data_with_header = \
        _HEADER.unpack_from(data, offset)
    where = f"{magic!r} block at {offset}"
    if magic not in KNOWN_MAGICS:
        raise HFileFormatError(f"unknown block magic {magic!r} at {offset}")
    end = offset + HEADER_SIZE + on_disk_wo_header
    if data_with_header < HEADER_SIZE or data_with_header > HEADER_SIZE + on_disk_wo_header or end > len(data):
        raise HFileFormatError(f"inconsistent sizes in {where}")
    framed = data[offset:offset + data_with_header]
    stored = data[offset + data_with_header:end]
    if ck_type == CHECKSUM_CRC32C:
        if stored != _checksums(framed, per_ck):
            raise HFileFormatError(f"CRC32C mismatch in {where}")
    elif ck_type != CHECKSUM_NULL:
        raise HFileFormatError(f"checksum type {ck_type} not supported by this reader ({where})")
    on_disk = data[offset + HEADER_SIZE:offset + data_with_header]
    return RawBlock(offset, magic, end - offset, uncompressed, prev, ck_type, per_ck,
                    _decompress(on_disk, codec, uncompressed, where), on_disk)


def _parse_file_info(payload: bytes) -> dict[bytes, bytes]:
    if payload[:4] != PB_MAGIC:
        raise HFileFormatError("file info does not start with PBUF")
    size, pos = _pb_read_varint(payload, 4)
    info = {}
    for number, entry in _pb_fields(payload[pos:pos + size]):
        if number == 1:
            pair = dict(_pb_fields(entry))
            info[pair.get(1, b"")] = pair.get(2, b"")
    return info


def _parse_cells(payload: bytes, with_mvcc: bool, with_tags: bool) -> list[tuple[bytes, bytes]]:
    cells, pos, end = [], 0, len(payload)
    while pos < end:
        key_len, value_len = _CELL_LENGTHS.unpack_from(payload, pos)
        key_at = pos + 8
        row_len = struct.unpack_from(">h", payload, key_at)[0]
        row = payload[key_at + 2:key_at + 2 + row_len]
        value_at = key_at + key_len
        cells.append((row, payload[value_at:value_at + value_len]))
        pos = value_at + value_len
        if with_tags:
            pos += 2 + struct.unpack_from(">H", payload, pos)[0]
        if with_mvcc:
            _, pos = read_vlong(payload, pos)
    if pos != end:
        raise HFileFormatError(f"cells overrun their data block by {pos - end} bytes")
    return cells


def parse_root_index(payload: bytes, count: int) -> tuple[list[tuple[int, int, bytes]], bytes]:
    """Root index entries (offset, on-disk size, key) and the trailing mid-key bytes."""
    entries, pos = [], 0
    for _ in range(count):
        offset, size = struct.unpack_from(">qi", payload, pos)
        key_len, pos = read_vlong(payload, pos + 12)
        entries.append((offset, size, payload[pos:pos + key_len]))
        pos += key_len
    return entries, payload[pos:]


def parse_non_root_index(payload: bytes) -> list[tuple[int, int, bytes]]:
    """Leaf/intermediate index entries (offset, on-disk size, key)."""
    count = struct.unpack_from(">i", payload, 0)[0]
    marks = struct.unpack_from(f">{count + 1}i", payload, 4)
    base = 4 + 4 * (count + 1)
    entries = []
    for i in range(count):
        start, stop = base + marks[i], base + marks[i + 1]
        offset, size = struct.unpack_from(">qi", payload, start)
        entries.append((offset, size, payload[start + 12:stop]))
    return entries


def parse_hfile(data: bytes | bytearray | memoryview) -> HFileContents:
    """Walks every block front to back (verifying CRC32C checksums), then decodes cells, file
    info, meta blocks and the root data index."""
    data = bytes(data)
    trailer = _parse_trailer(data)
    blocks, pos, stop = [], 0, len(data) - TRAILER_SIZE
    while pos < stop:
        block = _read_block(data, pos, trailer.codec)
        blocks.append(block)
        pos += block.on_disk_size
    if pos != stop:
        raise HFileFormatError(f"blocks end at {pos}, trailer starts at {stop}")
    by_offset = {b.offset: b for b in blocks}
    info_block = by_offset.get(trailer.file_info_offset)
    if info_block is None or info_block.magic != FILE_INFO:
        raise HFileFormatError(f"no file-info block at {trailer.file_info_offset}")
    file_info = _parse_file_info(info_block.payload)
    kv_version = file_info.get(KEY_VALUE_VERSION)
    with_mvcc = kv_version is not None and struct.unpack(">i", kv_version)[0] == 1
    with_tags = MAX_TAGS_LEN in file_info
    cells = [cell for b in blocks if b.magic == DATA for cell in _parse_cells(b.payload, with_mvcc, with_tags)]
    root = by_offset.get(trailer.load_on_open_offset)
    if root is None or root.magic != ROOT_INDEX:
        raise HFileFormatError(f"no root index at {trailer.load_on_open_offset}")
    root_entries, mid_key = parse_root_index(root.payload, trailer.data_index_count)
    meta_root = by_offset.get(root.offset + root.on_disk_size)  # the meta index follows the data root
    if meta_root is None or meta_root.magic != ROOT_INDEX:
        raise HFileFormatError(f"no meta index after the root data index at {root.offset}")
    meta_entries, _ = parse_root_index(meta_root.payload, trailer.meta_index_count)
    meta_blocks = {name: by_offset[offset].payload for offset, _, name in meta_entries}
    return HFileContents(trailer, file_info, blocks, cells, meta_blocks, root_entries, mid_key)


def read_hfile(data: bytes | bytearray | memoryview) -> list[tuple[bytes, bytes]]:
    """All cells of an HFile as (row, value) pairs in file order."""
    return parse_hfile(data).cells
