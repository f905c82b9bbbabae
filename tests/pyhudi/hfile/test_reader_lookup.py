"""Seeking lookups (`lookup`): the cells a filter over the whole file gives, reading only the
trailer, the load-on-open section and the index and data blocks that can hold the wanted rows."""
from __future__ import annotations

import io

import pytest

from pyhudi.hfile.cell import parse_cells
from pyhudi.hfile.format import TRAILER_SIZE, HFileFormatError
from pyhudi.hfile.reader import lookup, parse_hfile
from pyhudi.hfile.writer import HFileWriter, write_hfile
from tests.pyhudi.hfile.hfile_checks import HFILES, numbered_cells


class Reads:
    """A read_at over in-memory bytes that records each (offset, length) read."""

    def __init__(self, data: bytes):
        self.data = data
        self.calls: list[tuple[int, int]] = []

    def __call__(self, offset: int, length: int) -> bytes:
        self.calls.append((offset, length))
        return self.data[offset:offset + length]

    def lookup(self, rows):
        self.calls.clear()
        return lookup(self, len(self.data), rows)


def _filtered(contents, rows) -> list[tuple[bytes, bytes]]:
    wanted = set(rows)
    return [cell for cell in contents.cells if cell[0] in wanted]


def _probes(contents) -> list[bytes]:
    """Every block's first and last row, the file's first and last, rows just before and after
    each of those (absent unless present by chance), before the first and after the last."""
    edges = []
    for block in contents.data_blocks():
        cells = parse_cells(block.payload, True, False)
        edges += [cells[0][0], cells[-1][0]]
    near = [e + b"\x00" for e in edges] + [e[:-1] for e in edges] + [e[:-1] + bytes([e[-1] + 1]) for e in edges]
    return edges + near + [b"", b"\x00", b"a", b"\xff\xff"]


def _small_blocks(n=600, codec="none", **options) -> bytes:
    return write_hfile(numbered_cells(n, value_size=20), block_size=256, compression=codec,
                       file_info={"schema": "s"}, **options)


@pytest.mark.parametrize("codec", ["none", "gz"])
@pytest.mark.parametrize("shorten", [True, False])
def test_each_row_alone_and_all_together_match_the_full_read(codec, shorten):
    data = _small_blocks(codec=codec, shorten_index_keys=shorten)
    contents, reads = parse_hfile(data), Reads(data)
    assert len(contents.data_blocks()) > 20
    for row in _probes(contents):
        found = reads.lookup([row])
        assert found.cells == _filtered(contents, [row]), row
        assert found.file_info == contents.file_info and found.file_info[b"schema"] == b"s"
    probes = _probes(contents)
    assert reads.lookup(probes).cells == _filtered(contents, probes)
    assert reads.lookup(row for row, _ in contents.cells).cells == contents.cells
    assert len(reads.calls) == len(set(reads.calls)), "a block read twice"


def test_one_row_reads_trailer_load_on_open_and_its_block():
    data = _small_blocks()
    contents, reads = parse_hfile(data), Reads(data)
    trailer = (len(data) - TRAILER_SIZE, TRAILER_SIZE)
    section = (contents.trailer.load_on_open_offset, len(data) - TRAILER_SIZE - contents.trailer.load_on_open_offset)
    for block in contents.data_blocks():
        cells = parse_cells(block.payload, True, False)
        for row in (cells[0][0], cells[len(cells) // 2][0], cells[-1][0], cells[-1][0] + b"\x00"):
            found = reads.lookup([row])
            assert reads.calls == [trailer, section, (block.offset, block.on_disk_size)], row
            assert found.data_blocks_read == 1
    for absent in (b"a", b""):  # before the first key: no data block can hold it
        assert reads.lookup([absent]).cells == [] and reads.calls == [trailer, section]
    assert reads.lookup([]).cells == [] and reads.calls == [trailer, section]


def test_rows_of_one_block_read_it_once():
    data = _small_blocks()
    contents, reads = parse_hfile(data), Reads(data)
    rows = [row for row, _ in contents.cells[:3]]
    assert reads.lookup(rows).data_blocks_read == 1 and len(reads.calls) == 3


def _splitting_hfile(cells, **options) -> bytes:
    """HBase cuts blocks between equal keys too (pyhudi's writer does not): duplicates then end
    one block and start the next, whose index key is the row itself."""
    class Splitting(HFileWriter):
        def add(self, key, value):
            if self._block_bytes >= self._block_size:
                self._finish_data_block()
                self._write_leaf_blocks(closing=False)
            self._append_cell(key, value)

    out = io.BytesIO()
    with Splitting(out, block_size=100, compression="none", shorten_index_keys=False, **options) as w:
        w.add_all(cells)
    return out.getvalue()


def test_duplicates_spanning_blocks_are_all_found():
    cells = [(b"a", b"1"), (b"b", b"2")] + [(b"dup", b"v%02d" % i) for i in range(30)] + [(b"e", b"3")]
    data = _splitting_hfile(cells)
    contents, reads = parse_hfile(data), Reads(data)
    assert len(contents.data_blocks()) > 3 and contents.cells == cells
    holding = [b for b in contents.data_blocks() if any(r == b"dup" for r, _ in parse_cells(b.payload, True, False))]
    found = reads.lookup([b"dup"])
    assert found.cells == cells[2:-1] and found.data_blocks_read == len(holding) > 3
    for row in (b"a", b"b", b"c", b"du", b"dupe", b"e", b"f"):
        assert reads.lookup([row]).cells == _filtered(contents, [row])


@pytest.mark.parametrize("codec", ["none", "gz"])
def test_multi_level_index(codec):
    data = _small_blocks(2000, codec, index_block_max_size=200, index_min_entries=2)
    contents, reads = parse_hfile(data), Reads(data)
    levels = contents.trailer.data_index_levels
    assert levels >= 3
    for row in _probes(contents)[::7]:
        assert reads.lookup([row]).cells == _filtered(contents, [row]), row
    row = contents.cells[len(contents.cells) // 2][0]
    reads.lookup([row])
    # trailer, load-on-open, one index block per level below the root, the data block
    assert len(reads.calls) == 2 + (levels - 1) + 1
    assert reads.lookup(r for r, _ in contents.cells).cells == contents.cells
    assert len(reads.calls) == len(set(reads.calls))


@pytest.mark.parametrize("path", HFILES, ids=lambda p: p.stem)
def test_hbase_written_files(path):
    """HBase-written files: multi-level indexes, GZ and NONE, shortened ("fake") index keys,
    non-unique rows, no entries."""
    data = path.read_bytes()
    contents, reads = parse_hfile(data), Reads(data)
    if not contents.cells:
        assert reads.lookup([b"hudi-key-000000000"]).cells == [] and len(reads.calls) == 2
        return
    probes = _probes(contents)
    for row in probes[::max(1, len(probes) // 200)]:
        assert reads.lookup([row]).cells == _filtered(contents, [row]), row
    row = contents.cells[len(contents.cells) // 3][0]
    assert reads.lookup([row]).data_blocks_read == 1
    assert len(reads.calls) == 2 + (contents.trailer.data_index_levels - 1) + 1
    assert reads.lookup(probes).cells == _filtered(contents, probes)
    assert reads.lookup(r for r, _ in contents.cells).cells == contents.cells


def test_checksums_of_the_blocks_read_are_verified():
    data = bytearray(_small_blocks())
    contents = parse_hfile(bytes(data))
    block = contents.data_blocks()[5]
    data[block.offset + 40] ^= 0xFF
    reads = Reads(bytes(data))
    assert reads.lookup([contents.cells[0][0]]).cells  # in another block: not read, not checked
    row = parse_cells(block.payload, True, False)[0][0]
    with pytest.raises(HFileFormatError, match=f"file offset {block.offset}: CRC32C mismatch"):
        reads.lookup([row])


def test_not_an_hfile():
    with pytest.raises(HFileFormatError, match="fewer than"):
        Reads(b"x" * 100).lookup([b"k"])
    with pytest.raises(HFileFormatError, match="trailer magic"):
        Reads(bytes(TRAILER_SIZE)).lookup([b"k"])
    data = _small_blocks()
    with pytest.raises(HFileFormatError, match="file offset 0: inconsistent sizes"):  # a short read
        lookup(lambda offset, length: data[offset:offset + length - (offset == 0)], len(data), [b"key-000000000"])


def _assert_ranges_hold(data: bytes, probes: list[bytes]) -> None:
    """`whole_blocks`: every cell of the blocks read, and each row of the file strictly inside a reported range
    is among them - so a row inside one and missing from them is not in the file."""
    contents, reads = parse_hfile(data), Reads(data)
    found = lookup(reads, len(data), probes, whole_blocks=True)
    assert len(found.ranges) == found.data_blocks_read > 0
    kept = set(found.cells)
    assert set(_filtered(contents, probes)) <= kept
    inside = 0
    for cell in contents.cells:
        if any(lo < cell[0] and (hi is None or cell[0] < hi) for lo, hi in found.ranges):
            inside += 1
            assert cell in kept, cell
    assert inside > 0


@pytest.mark.parametrize("shorten", [True, False])
def test_whole_blocks_and_their_ranges(shorten):
    multi = _small_blocks(2000, "gz", index_block_max_size=200, index_min_entries=2, shorten_index_keys=shorten)
    contents = parse_hfile(multi)
    assert contents.trailer.data_index_levels >= 3
    rows = [r for r, _ in contents.cells]
    _assert_ranges_hold(multi, rows[::97] + [rows[0], rows[-1], b"zz"])  # ends of leaf index blocks included
    cells = [(b"a", b"1"), (b"b", b"2")] + [(b"dup", b"v%02d" % i) for i in range(30)] + [(b"e", b"3")]
    _assert_ranges_hold(_splitting_hfile(cells), [b"b", b"dup", b"dupa"])
    for path in HFILES:
        data = path.read_bytes()
        if parse_hfile(data).cells:
            _assert_ranges_hold(data, _probes(parse_hfile(data))[::25])
