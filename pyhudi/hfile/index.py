"""The data-block index: HBase's multi-level layout of root, intermediate and leaf index blocks
(written) and the root/non-root entry formats (read). Index keys are lower bounds of their
blocks; the root also carries the mid-key metadata once the index has more than one level."""
from __future__ import annotations

import struct

from pyhudi.hfile.format import INTERMEDIATE_INDEX, ROOT_INDEX, HFileFormatError
from pyhudi.hfile.varint import read_vlong, vint_size, write_vlong

__all__ = ["IndexChunk", "BlockIndexWriter", "parse_root_index", "parse_non_root_index"]


class IndexChunk:
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
        self.root_size += 12 + vint_size(len(key)) + len(key)

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


class BlockIndexWriter:
    """HBase's multi-level data-block index: leaf chunks go to disk inline once their non-root
    size reaches max_chunk_size; at close, levels above are split until the root fits."""

    def __init__(self, max_chunk_size: int, min_entries: int):
        self.max_chunk_size = max_chunk_size
        self.min_entries = min_entries
        self.root = IndexChunk()
        self.leaf: IndexChunk | None = IndexChunk()
        self.levels = 1
        self.data_blocks = 0
        self.uncompressed_size = 0  # all index blocks, headers excluded

    def add_data_block(self, key: bytes, offset: int, size: int) -> None:
        assert self.leaf is not None  # dropped only by should_write_leaf(closing=True), after the last block
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
        assert self.leaf is not None  # called when should_write_leaf said a leaf is pending
        payload, first_key = self.leaf.non_root_bytes(), self.leaf.keys[0]
        self.leaf = IndexChunk()
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

    def _intermediate_level(self, level: IndexChunk, write_block) -> IndexChunk:
        parent, chunk = IndexChunk(), IndexChunk()
        for i, (key, offset, size) in enumerate(zip(level.keys, level.offsets, level.sizes)):
            chunk.add(key, offset, size)
            # HBase counts i over the whole level here, not within the chunk.
            if i >= self.min_entries and chunk.root_size >= self.max_chunk_size:
                chunk = self._write_intermediate(chunk, parent, write_block)
        if len(chunk):
            self._write_intermediate(chunk, parent, write_block)
        return parent

    def _write_intermediate(self, chunk: IndexChunk, parent: IndexChunk, write_block) -> IndexChunk:
        offset, on_disk, uncompressed = write_block(INTERMEDIATE_INDEX, chunk.non_root_bytes())
        self.uncompressed_size += uncompressed
        parent.add(chunk.keys[0], offset, on_disk)
        return IndexChunk()


def parse_root_index(payload: bytes, count: int) -> tuple[list[tuple[int, int, bytes]], bytes]:
    """Root index entries (offset, on-disk size, key) and the trailing mid-key bytes."""
    entries, pos = [], 0
    for i in range(count):
        if pos + 13 > len(payload):
            raise HFileFormatError(f"root index of {len(payload)} bytes ends inside entry {i} of {count}")
        offset, size = struct.unpack_from(">qi", payload, pos)
        key_len, pos = read_vlong(payload, pos + 12)
        if not 0 <= key_len <= len(payload) - pos:
            raise HFileFormatError(f"root index entry {i}: key length {key_len} overruns the block")
        entries.append((offset, size, payload[pos:pos + key_len]))
        pos += key_len
    return entries, payload[pos:]


def parse_non_root_index(payload: bytes) -> list[tuple[int, int, bytes]]:
    """Leaf/intermediate index entries (offset, on-disk size, key)."""
    if len(payload) < 4:
        raise HFileFormatError(f"non-root index block of {len(payload)} bytes has no entry count")
    count = struct.unpack_from(">i", payload, 0)[0]
    base = 4 + 4 * (count + 1)
    if count < 0 or base > len(payload):
        raise HFileFormatError(f"non-root index entry count {count} does not fit its {len(payload)}-byte block")
    marks = struct.unpack_from(f">{count + 1}i", payload, 4)
    entries = []
    for i in range(count):
        start, stop = base + marks[i], base + marks[i + 1]
        if not base <= start <= stop - 12 or stop > len(payload):
            raise HFileFormatError(f"non-root index entry {i} spans bytes {start}..{stop} of a "
                                   f"{len(payload)}-byte block")
        offset, size = struct.unpack_from(">qi", payload, start)
        entries.append((offset, size, payload[start + 12:stop]))
    return entries
