"""The HFile v3 writer against HBase-written files.

1. Every HBase test HFile (fixtures/hfile) is re-created from its own cells, file info and meta
   blocks: same blocks (kind, offset, sizes, back-pointers), payloads, index levels, trailer and
   valid CRC32C checksums; and, with the same deflate implementation, the same bytes.
2. The writer's own rules: where blocks are cut, argument checks, streaming and str keys.
3. The table-version-8 metadata table of the quickstart fixture: its HBase-written base files and
   log-block HFiles are re-created byte for byte.
(The connector's Java reader reads what this writer writes: test_writer_java.py.)
"""
from __future__ import annotations

import io
import re
import zlib
from pathlib import Path

import pytest

from pyhudi.hfile import parse_hfile, write_hfile
from pyhudi.hfile.block import gzip
from pyhudi.hfile.format import CHECKSUM_CRC32C, DEFAULT_BLOCK_SIZE, FILE_INFO, HUDI_COMPARATOR, META, ROOT_INDEX
from pyhudi.hfile.writer import HFileWriter
from pyhudi.log import BlockType, read_blocks
from tests.pyhudi.hfile.hfile_checks import (
    HFILES,
    V8_MDT_TABLE,
    caller_file_info,
    data_block_shape,
    mdt_base_files,
    numbered_cells,
)

# ---------------------------------------------------------------- helpers

def fixture_options(name: str) -> dict:
    """Writer options a fixture was made with: block size from its name; the deep-index file was
    written with hfile.index.block.max.size=2048 and hfile.index.block.min.entries=4 (Hudi's
    TestHFileReader notes these settings)."""
    m = re.search(r"_(\d+)KB_", name)
    options = {"block_size": int(m[1]) * 1024 if m else DEFAULT_BLOCK_SIZE}
    if "deep_index" in name:
        options.update(index_block_max_size=2048, index_min_entries=4)
    return options


def recreate(contents, **options) -> bytes:
    """Writes the cells, caller file info and meta blocks of parsed contents again."""
    return write_hfile(contents.cells, compression=contents.trailer.codec,
                       file_info=caller_file_info(contents),
                       meta_blocks={k.decode(): v for k, v in contents.meta_blocks.items()},
                       comparator=contents.trailer.comparator, **options)


def block_layout(contents):
    return [(b.magic, b.offset, b.on_disk_size, b.uncompressed_size, b.prev_offset) for b in contents.blocks]


def deflate_matches_here(contents) -> bool:
    """Whether this Python's zlib deflates a fixture block exactly as the fixture's JVM did."""
    block = next(b for b in contents.blocks if b.on_disk_payload[:2] == b"\x1f\x8b")
    return gzip(block.payload) == block.on_disk_payload


def mdt_log_hfiles(base: Path) -> list[tuple[Path, bytes]]:
    out = []
    for log in sorted((base / ".hoodie" / "metadata").glob("*/.*.log.*")):
        out += [(log, b.content) for b in read_blocks(log.read_bytes()) if b.block_type == BlockType.HFILE_DATA]
    return out


# ---------------------------------------------------------------- (1) HBase test files re-created

@pytest.mark.parametrize("path", HFILES, ids=lambda p: p.stem)
def test_recreates_hbase_fixture_structure(path):
    original = parse_hfile(path.read_bytes())  # also verifies every checksum of the fixture
    ours = parse_hfile(recreate(original, **fixture_options(path.stem)))  # ... and of ours
    assert ours.cells == original.cells
    assert data_block_shape(ours) == data_block_shape(original)
    assert ours.trailer == original.trailer  # entry/index counts, levels, codec, comparator, offsets
    assert block_layout(ours) == block_layout(original)
    for mine, theirs in zip(ours.blocks, original.blocks):
        assert mine.payload == theirs.payload, f"{theirs.magic!r} block at {theirs.offset}"
    assert ours.root_index == original.root_index and ours.mid_key == original.mid_key
    assert ours.file_info == original.file_info
    assert all(b.checksum_type == CHECKSUM_CRC32C for b in ours.blocks)


@pytest.mark.parametrize("path", HFILES, ids=lambda p: p.stem)
def test_recreates_hbase_fixture_bytes(path):
    data = path.read_bytes()
    original = parse_hfile(data)
    if original.trailer.codec == "GZ" and not deflate_matches_here(original):
        pytest.skip(f"zlib {zlib.ZLIB_RUNTIME_VERSION} deflates differently from the JVM that wrote the fixture")
    assert recreate(original, **fixture_options(path.stem)) == data


# ---------------------------------------------------------------- (2) writer behaviour

def test_empty_file_layout():
    contents = parse_hfile(write_hfile([], meta_blocks={"bloomFilter": b"x"}))
    t = contents.trailer
    assert (t.entry_count, t.data_index_count, t.data_index_levels) == (0, 0, 1)
    assert (t.first_data_block_offset, t.last_data_block_offset) == (-1, -1)
    assert [b.magic for b in contents.blocks] == [META, ROOT_INDEX, ROOT_INDEX, FILE_INFO]
    assert b"hfile.LASTKEY" not in contents.file_info
    assert contents.cells == []


def test_blocks_cut_once_cells_reach_block_size():
    cells = numbered_cells(100)
    cell_size = 8 + (13 + 12) + len(cells[0][1]) + 1
    contents = parse_hfile(write_hfile(cells, block_size=10 * cell_size, compression="none"))
    assert [n for _, n in data_block_shape(contents)] == [10] * 10


def test_equal_keys_never_split_across_blocks():
    cells = [("a", b"1" * 64)] + [("b", bytes([i])) for i in range(200)] + [("c", b"2")]
    contents = parse_hfile(write_hfile(cells, block_size=64, compression="none"))
    assert [(row, n) for row, n in data_block_shape(contents)] == [(b"a", 1), (b"b", 200), (b"c", 1)]
    assert contents.cells == [(k.encode(), v) for k, v in cells]


def test_str_and_bytes_keys_are_the_same_file():
    cells = numbered_cells(50)
    assert write_hfile(cells) == write_hfile([(k.encode(), v) for k, v in cells])


def test_streaming_writer_matches_write_hfile(tmp_path):
    cells = numbered_cells(3000)
    path = tmp_path / "x.hfile"
    with path.open("wb") as sink, HFileWriter(sink, block_size=4096, file_info={"schema": "{}"}) as writer:
        for key, value in cells:
            writer.add(key, value)
        writer.add_meta_block("bloomFilter", "bits")
    assert path.read_bytes() == write_hfile(cells, block_size=4096, file_info={"schema": "{}"},
                                            meta_blocks={"bloomFilter": "bits"})


def test_meta_blocks_written_in_name_order():
    contents = parse_hfile(write_hfile(numbered_cells(3), meta_blocks={"zeta": b"z", "alpha": b"a"}))
    metas = contents.blocks_of(META)
    assert [m.payload for m in metas] == [b"a", b"z"]
    assert contents.meta_blocks == {b"alpha": b"a", b"zeta": b"z"}


def test_unsorted_keys_rejected():
    writer = HFileWriter(io.BytesIO())
    writer.add("b", b"")
    with pytest.raises(ValueError, match="sorted"):
        writer.add("a", b"")


def test_keys_sort_as_unsigned_bytes():
    writer = HFileWriter(io.BytesIO())
    writer.add(b"\x7f", b"")
    writer.add(b"\x80", b"")  # negative as a Java byte, still after 0x7f
    with pytest.raises(ValueError, match="sorted"):
        writer.add(b"\x00", b"")


@pytest.mark.parametrize("key", ["hfile.LASTKEY", "KEY_VALUE_VERSION", "MAX_MEMSTORE_TS_KEY"])
def test_writer_owned_file_info_keys_rejected(key):
    with pytest.raises(ValueError, match="filled in by the writer"):
        write_hfile([], file_info={key: b"x"})


def test_bad_options_rejected():
    with pytest.raises(ValueError, match="valid values: gz, none"):
        write_hfile([], compression="snappy")
    with pytest.raises(ValueError, match="block_size"):
        write_hfile([], block_size=0)
    with pytest.raises(ValueError, match="32767"):
        write_hfile([(b"k" * 40000, b"")])
    writer = HFileWriter(io.BytesIO())
    writer.close()
    with pytest.raises(ValueError, match="closed"):
        writer.add("a", b"")


# ---------------------------------------------------------------- (3) a v8 metadata table re-created

def test_recreates_v8_metadata_table_base_files(fixture_tables):
    files = mdt_base_files(Path(fixture_tables[V8_MDT_TABLE]))
    assert len(files) > 10
    for path in files:
        data = path.read_bytes()
        original = parse_hfile(data)
        assert original.trailer.comparator == HUDI_COMPARATOR and original.trailer.minor_version == 3
        assert set(caller_file_info(original)) == {b"schema", b"minRecordKey", b"maxRecordKey", b"bloomFilterTypeCode"}
        assert set(original.meta_blocks) == {b"bloomFilter"}
        ours = recreate(original)  # Hudi's default hoodie.hfile.block.size and GZ
        assert parse_hfile(ours).cells == original.cells
        if deflate_matches_here(original):
            assert ours == data, path.name


def test_recreates_v8_metadata_table_log_block_hfiles(fixture_tables):
    blocks = mdt_log_hfiles(Path(fixture_tables[V8_MDT_TABLE]))
    assert blocks
    for log, content in blocks:
        original = parse_hfile(content)
        assert set(caller_file_info(original)) == {b"schema"} and not original.meta_blocks
        ours = recreate(original)
        assert parse_hfile(ours).cells == original.cells
        if deflate_matches_here(original):
            assert ours == content, log.name
