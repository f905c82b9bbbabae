"""The connector's Java reader (io.hudimeta.hfile) reads what the HFile writer writes: scans and
seeks on multi-level indexes, GZ and NONE, empty files, binary keys, and re-created v8
metadata-table files next to the HBase-written originals."""
from __future__ import annotations

from pathlib import Path

import pytest

from pyhudi.hfile import parse_hfile, write_hfile
from pyhudi.hfile.format import DEFAULT_INDEX_BLOCK_MAX_SIZE, HUDI_COMPARATOR, INTERMEDIATE_INDEX, LEAF_INDEX
from tests.pyhudi.hfile.hfile_checks import V8_MDT_TABLE, caller_file_info, mdt_base_files, numbered_cells

SEP = "\n"


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
LARGE = [pytest.param(256, 1024, 3, id="3-level"), pytest.param(512, DEFAULT_INDEX_BLOCK_MAX_SIZE, 2, id="2-level")]


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
            bloom = [bytes(r.metaBlock("bloomFilter").get()) for r in (ours_reader, theirs_reader)]
            assert bloom[0] == bloom[1]
            assert ours_reader.trailer().comparatorClassName() == HUDI_COMPARATOR
        finally:
            theirs_reader.close()
            ours_reader.close()
