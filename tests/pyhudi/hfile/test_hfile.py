"""The HFile v3 writer (pyhudi.hfile.hfile) against HBase-written files and the Java reader.

1. Every HBase test HFile (fixtures/hfile) is re-created from its own cells, file info and meta
   blocks: same blocks (kind, offset, sizes, back-pointers), payloads, index levels, trailer and
   valid CRC32C checksums; and, with the same deflate implementation, the same bytes.
2. The connector's Java reader scans and seeks files we write (multi-level indexes, GZ and NONE,
   empty files).
3. The table-version-8 metadata table of the quickstart fixture: its HBase-written base files and
   log-block HFiles are re-created byte for byte, and the Java reader sees identical cells.
"""
from __future__ import annotations

import io
import random
import re
import zlib
from pathlib import Path

import pytest
from conftest import FIXTURES

from pyhudi.hfile import hfile
from pyhudi.hfile.hfile import (HUDI_COMPARATOR, INTERMEDIATE_INDEX, LEAF_INDEX, HFileWriter,
                          crc32c, parse_hfile, read_hfile, write_hfile)
from pyhudi.log import BlockType, read_blocks

HFILES = sorted((FIXTURES / "hfile").glob("*.hfile"))
V8_MDT_TABLE = "quickstart_trips_table_mor_avro__v8_trips_8i3u1d"
SEP = "\n"
WRITER_KEYS = (b"KEY_VALUE_VERSION", b"MAX_MEMSTORE_TS_KEY")


# ---------------------------------------------------------------- helpers

def caller_file_info(contents) -> dict[bytes, bytes]:
    """The file-info entries a caller supplied (the writer adds hfile.* and the KeyValue keys)."""
    return {k: v for k, v in contents.file_info.items()
            if not k.startswith(b"hfile.") and k not in WRITER_KEYS}


def fixture_options(name: str) -> dict:
    """Writer options a fixture was made with: block size from its name; the deep-index file was
    written with hfile.index.block.max.size=2048 and hfile.index.block.min.entries=4 (Hudi's
    TestHFileReader notes these settings)."""
    m = re.search(r"_(\d+)KB_", name)
    options = {"block_size": int(m[1]) * 1024 if m else hfile.DEFAULT_BLOCK_SIZE}
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


def data_block_shape(contents):
    """(first row, cell count) of each data block, i.e. where the writer cut blocks."""
    with_mvcc = b"KEY_VALUE_VERSION" in contents.file_info
    shape = []
    for block in contents.data_blocks():
        cells = hfile._parse_cells(block.payload, with_mvcc, False)
        shape.append((cells[0][0], len(cells)))
    return shape


def deflate_matches_here(contents) -> bool:
    """Whether this Python's zlib deflates a fixture block exactly as the fixture's JVM did."""
    block = next(b for b in contents.blocks if b.on_disk_payload[:2] == b"\x1f\x8b")
    return hfile._gzip(block.payload) == block.on_disk_payload


def mdt_base_files(base: Path) -> list[Path]:
    return sorted((base / ".hoodie" / "metadata").glob("*/*.hfile"))


def mdt_log_hfiles(base: Path) -> list[tuple[Path, bytes]]:
    out = []
    for log in sorted((base / ".hoodie" / "metadata").glob("*/.*.log.*")):
        out += [(log, b.content) for b in read_blocks(log.read_bytes()) if b.block_type == BlockType.HFILE_DATA]
    return out


def numbered_cells(n: int, value_size: int = 0) -> list[tuple[str, bytes]]:
    pad = b"v" * value_size
    return [(f"key-{i:09d}", f"value-{i:09d}".encode() + pad) for i in range(n)]


# ---------------------------------------------------------------- primitives

def test_crc32c_known_answers_and_vectorised_path():
    assert crc32c(b"") == 0
    assert crc32c(b"123456789") == 0xE3069283  # the standard CRC-32C check value
    assert crc32c(bytes(32)) == 0x8A9136AA  # RFC 3720 B.4: 32 bytes of zeros
    assert crc32c(b"\xff" * 32) == 0x62A8AB43  # RFC 3720 B.4: 32 bytes of 0xFF
    rng = random.Random(7)
    for n in (511, 512, 513, 1000, 4096, 16383, 16384, 16385, 70000):
        data = rng.randbytes(n)
        assert crc32c(data) == hfile._crc32c_small(data), n


@pytest.mark.parametrize("value", [0, 1, -1, 127, -112, -113, 128, 131, 255, 256, -129, 2**40, -2**40,
                                   2**63 - 1, -2**63])
def test_hadoop_vlong_round_trip(value):
    encoded = hfile.write_vlong(value)
    assert hfile.read_vlong(encoded, 0) == (value, len(encoded))
    if value >= 0:
        assert hfile._vint_size(value) == len(encoded)


def test_vlong_matches_bytes_seen_in_fixtures():
    assert hfile.write_vlong(131) == bytes.fromhex("8f83")  # key length of the large-key fixtures


@pytest.mark.parametrize("left,right,mid", [
    (b"hudi-key-000000234-abcdefghij", b"hudi-key-000000235-abcdefghij", b"hudi-key-000000235"),
    (b"abc", b"abe", b"abd"),
    (b"ab", b"abc", b"abc"),
    (b"a\x7f", b"a\x80", b"a\x80"),
    (b"a\x90x", b"a\x95", b"a\x91"),
])
def test_index_key_shortening(left, right, mid):
    assert hfile._midpoint_row(left, right) == mid
    assert left < mid <= right


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
    assert all(b.checksum_type == hfile.CHECKSUM_CRC32C for b in ours.blocks)


@pytest.mark.parametrize("path", HFILES, ids=lambda p: p.stem)
def test_recreates_hbase_fixture_bytes(path):
    data = path.read_bytes()
    original = parse_hfile(data)
    if original.trailer.codec == "GZ" and not deflate_matches_here(original):
        pytest.skip(f"zlib {zlib.ZLIB_RUNTIME_VERSION} deflates differently from the JVM that wrote the fixture")
    assert recreate(original, **fixture_options(path.stem)) == data


def test_expected_index_depths():
    levels = {p.stem: parse_hfile(p.read_bytes()).trailer.data_index_levels for p in HFILES}
    assert levels["hudi_1_0_hbase_2_4_13_1KB_GZ_10000_large_keys_deep_index"] == 3
    assert levels["hudi_1_0_hbase_2_4_13_1KB_GZ_20000_large_keys"] == 2
    assert levels["hudi_1_0_hbase_2_4_9_16KB_GZ_20000"] == 1


# ---------------------------------------------------------------- writer behaviour

def test_empty_file_layout():
    contents = parse_hfile(write_hfile([], meta_blocks={"bloomFilter": b"x"}))
    t = contents.trailer
    assert (t.entry_count, t.data_index_count, t.data_index_levels) == (0, 0, 1)
    assert (t.first_data_block_offset, t.last_data_block_offset) == (-1, -1)
    assert [b.magic for b in contents.blocks] == [hfile.META, hfile.ROOT_INDEX, hfile.ROOT_INDEX, hfile.FILE_INFO]
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
    metas = contents.blocks_of(hfile.META)
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


def test_corrupted_byte_fails_checksum():
    data = bytearray(write_hfile(numbered_cells(10)))
    data[40] ^= 1
    with pytest.raises(hfile.HFileFormatError, match="CRC32C"):
        read_hfile(bytes(data))


# ---------------------------------------------------------------- (2) the Java reader reads what we write

def java_reader(spark, data: bytes, description: str):
    return spark._jvm.io.hudimeta.hfile.HFileReader.fromBytes(bytearray(data), description)


def java_rows(spark, reader) -> list[str]:
    joined = spark._jvm.io.hudimeta.hfile.HFileInspect.rows(reader, SEP)
    return joined.split(SEP) if joined else []


def java_values(spark, reader) -> list[str]:
    joined = spark._jvm.io.hudimeta.hfile.HFileInspect.values(reader, SEP)
    return joined.split(SEP) if joined else []


def java_cells(reader) -> list[tuple[bytes, bytes]]:
    out, it = [], reader.scan()
    while it.hasNext():
        cell = it.next()
        out.append((bytes(cell.row()), bytes(cell.value())))
    return out


# 50k keys in ~256-byte blocks: 1 KiB index chunks give leaf + intermediate levels (3 levels),
# the default 128 KiB chunk gives a leaf level (2 levels).
LARGE = [pytest.param(256, 1024, 3, id="3-level"), pytest.param(512, hfile.DEFAULT_INDEX_BLOCK_MAX_SIZE, 2, id="2-level")]


@pytest.mark.parametrize("compression", ["gz", "none"])
@pytest.mark.parametrize("block_size,chunk,levels", LARGE)
def test_java_reader_scans_and_seeks_large_file(spark, compression, block_size, chunk, levels):
    cells = numbered_cells(50_000)
    data = write_hfile(cells, block_size=block_size, compression=compression, index_block_max_size=chunk,
                       file_info={"schema": "s"})
    contents = parse_hfile(data)
    assert contents.trailer.data_index_levels == levels
    assert contents.blocks_of(LEAF_INDEX) and bool(contents.blocks_of(INTERMEDIATE_INDEX)) == (levels == 3)
    reader = java_reader(spark, data, f"50k keys, {compression}")
    try:
        trailer = reader.trailer()
        assert reader.entryCount() == len(cells)
        assert trailer.dataIndexLevels() == levels and trailer.minorVersion() == 3
        assert trailer.comparatorClassName() == HUDI_COMPARATOR
        assert java_rows(spark, reader) == [k for k, _ in cells]
        assert java_values(spark, reader) == [v.decode() for _, v in cells]
        for i in list(range(0, 50_000, 997)) + [1, 49_998, 49_999]:
            key, value = cells[i]
            found = reader.seek(key)
            assert found.isPresent() and bytes(found.get().value()) == value, key
        for absent in ("", "key-", "key-000000000a", "key-000025000-", "zzz"):
            assert not reader.seek(absent).isPresent(), absent
        lookups = [cells[i][0] for i in (7, 7777, 49_999)] + ["nope"]
        found = spark._jvm.io.hudimeta.hfile.HFileInspect.getAll(reader, SEP.join(lookups), SEP)
        assert found.split(SEP) == [f"{cells[i][0]}={cells[i][1].decode()}" for i in (7, 7777, 49_999)]
        prefix = spark._jvm.io.hudimeta.hfile.HFileInspect.prefixRows(reader, "key-00001234", SEP)
        assert prefix.split(SEP) == [f"key-00001234{d}" for d in range(10)]
        assert bytes(reader.fileInfo().get("schema")) == b"s"
    finally:
        reader.close()


@pytest.mark.parametrize("compression", ["gz", "none"])
def test_java_reader_reads_empty_file(spark, compression):
    data = write_hfile([], compression=compression, file_info={"minRecordKey": "", "maxRecordKey": ""},
                       meta_blocks={"bloomFilter": b"bits"})
    reader = java_reader(spark, data, "empty")
    try:
        assert reader.entryCount() == 0
        assert java_rows(spark, reader) == []
        assert not reader.seek("a").isPresent()
        assert bytes(reader.metaBlock("bloomFilter").get()) == b"bits"
        assert reader.trailer().firstDataBlockOffset() == -1
    finally:
        reader.close()


def test_java_reader_binary_keys_and_duplicates(spark):
    cells = [(bytes([b]), bytes([b, 0, 255])) for b in range(1, 256)] + [(b"\xff\xff", b"x"), (b"\xff\xff", b"y")]
    cells.sort(key=lambda c: c[0])
    data = write_hfile(cells, block_size=32, index_block_max_size=256)
    reader = java_reader(spark, data, "binary keys")
    try:
        assert java_cells(reader) == cells
        first = reader.seek(bytearray(b"\xff\xff"))
        assert bytes(first.get().value()) == b"x"  # the first cell of a repeated row
    finally:
        reader.close()


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


def test_java_reader_reads_recreated_v8_metadata_files(spark, fixture_tables):
    base = Path(fixture_tables[V8_MDT_TABLE])
    for path in mdt_base_files(base):
        original = parse_hfile(path.read_bytes())
        # Built only from what a writer knows: sorted cells, Hudi's file-info entries and the bloom text.
        ours = write_hfile(original.cells, file_info=caller_file_info(original),
                           meta_blocks={"bloomFilter": original.meta_blocks[b"bloomFilter"]})
        theirs_reader = java_reader(spark, path.read_bytes(), path.name)
        ours_reader = java_reader(spark, ours, f"re-created {path.name}")
        try:
            assert java_cells(ours_reader) == java_cells(theirs_reader) == original.cells
            for row, value in original.cells:
                assert bytes(ours_reader.seek(bytearray(row)).get().value()) == value
            for key in ("schema", "minRecordKey", "maxRecordKey", "bloomFilterTypeCode", "hfile.LASTKEY"):
                theirs, mine = theirs_reader.fileInfo().get(key), ours_reader.fileInfo().get(key)
                assert (None if mine is None else bytes(mine)) == (None if theirs is None else bytes(theirs)), key
            assert bytes(ours_reader.metaBlock("bloomFilter").get()) == bytes(theirs_reader.metaBlock("bloomFilter").get())
            assert ours_reader.trailer().comparatorClassName() == HUDI_COMPARATOR
        finally:
            theirs_reader.close()
            ours_reader.close()
