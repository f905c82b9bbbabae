"""The Java HFile v3 reader (io.hudimeta.hfile) on real HBase- and Hudi-written HFiles.

Expected cells of the HBase test files are derived from their names (see ``expected_cells``);
metadata-table files are checked against Hudi's own invariants (Avro payloads under the stored
schema, the key -> file-group hash, partition lists).
"""
from __future__ import annotations

import base64
import gzip
import io
import json
import re
import shutil
import struct
from contextlib import contextmanager
from pathlib import Path

import fastavro
import pytest
from py4j.protocol import Py4JJavaError
from conftest import FIXTURES

HFILE_DIR = FIXTURES / "hfile"
HFILES = sorted(HFILE_DIR.glob("*.hfile"))
SEP = "\n"
V8_MDT_TABLE = "quickstart_trips_table_mor_avro__v8_trips_8i3u1d"
V9_MDT_TABLE = "sample_table_cow__v9_txns_simple_meta"


# ---------------------------------------------------------------- expectations from file names

def row_of(name: str, i: int) -> str:
    """Row i of an HBase test file: `hudi-key-%09d`, with a 100-char infix for large keys and a
    suffix for fake-first-key files (so HBase can shorten index keys)."""
    if "large_keys" in name:
        return f"hudi-key-{'a' * 100}-{i:09d}"
    if "fake_first_key" in name:
        return f"hudi-key-{i:09d}-abcdefghij"
    return f"hudi-key-{i:09d}"


def expected_cells(name: str) -> list[tuple[str, str]]:
    """`..._<entries>` files hold rows 0..entries-1 with value `hudi-value-%09d`; `..._<keys>_<versions>
    _non_unique` files repeat each row: first `hudi-value-%09d`, then `..._0` .. `..._<versions-1>`."""
    if name.endswith("no_entry"):
        return []
    m = re.search(r"_\d+KB_(?:GZ|NONE)_(\d+)(?:_(\d+)_non_unique)?", name)
    keys, versions = int(m[1]), int(m[2] or 0)
    cells = []
    for i in range(keys):
        cells.append((row_of(name, i), f"hudi-value-{i:09d}"))
        cells += [(row_of(name, i), f"hudi-value-{i:09d}_{v}") for v in range(versions)]
    return cells


def expected_codec(name: str) -> str:
    return "NONE" if "_NONE_" in name else "GZ"


def expected_index_levels(name: str) -> int:
    return 3 if "deep_index" in name else 2 if "large_keys" in name else 1


# ---------------------------------------------------------------- py4j helpers

def pkg(spark):
    return spark._jvm.io.hudimeta.hfile


@contextmanager
def opened(spark, path):
    reader = pkg(spark).HFileInspect.open(str(path), spark._jsc.hadoopConfiguration())
    try:
        yield reader
    finally:
        reader.close()


def error_text(excinfo) -> str:
    """Class name and message of a Java exception, whether py4j raised it raw or PySpark translated it."""
    return f"{type(excinfo.value).__name__}: {excinfo.value}"


def split(joined: str) -> list[str]:
    return joined.split(SEP) if joined else []


def all_rows(spark, reader) -> list[str]:
    return split(pkg(spark).HFileInspect.rows(reader, SEP))


def seek_value(reader, row: str):
    """Value (text) of the first cell of row, or None when absent."""
    found = reader.seek(row)
    return bytes(found.get().value()).decode() if found.isPresent() else None


def cells_of(reader) -> list[tuple[str, bytes]]:
    """All cells with binary values (for small metadata-table files)."""
    out, it = [], reader.scan()
    while it.hasNext():
        cell = it.next()
        out.append((cell.rowString(), bytes(cell.value())))
    return out


def is_sorted(rows: list[str], strictly: bool) -> bool:
    keys = [r.encode() for r in rows]  # UTF-8 bytes compare unsigned-lexicographically, like the reader
    return all(a < b if strictly else a <= b for a, b in zip(keys, keys[1:]))


def java_string_hash(s: str) -> int:
    h = 0
    for unit in struct.unpack(f">{len(s.encode('utf-16-be')) // 2}H", s.encode("utf-16-be")):
        h = (31 * h + unit) & 0xFFFFFFFF
    return h - (1 << 32) if h >= 1 << 31 else h


# ---------------------------------------------------------------- HBase test files

@pytest.mark.parametrize("path", HFILES, ids=lambda p: p.stem)
def test_full_scan_matches_name_pattern(spark, path):
    expected = expected_cells(path.stem)
    with opened(spark, path) as reader:
        rows = all_rows(spark, reader)
        values = split(pkg(spark).HFileInspect.values(reader, SEP))
        trailer = reader.trailer()
        assert reader.entryCount() == len(expected)
        assert list(zip(rows, values)) == expected
        assert is_sorted(rows, strictly="non_unique" not in path.stem)
        assert trailer.codec().name() == expected_codec(path.stem)
        assert trailer.dataIndexLevels() == expected_index_levels(path.stem)
        assert trailer.minorVersion() == 3  # HBase-written


@pytest.mark.parametrize("path", HFILES, ids=lambda p: p.stem)
def test_seek_finds_present_and_reports_absent_keys(spark, path):
    expected = expected_cells(path.stem)
    first_value = {}
    for row, value in expected:
        first_value.setdefault(row, value)
    rows = list(first_value)
    with opened(spark, path) as reader:
        for row in rows[:1] + rows[len(rows) // 3:len(rows) // 3 + 1] + rows[len(rows) // 2:len(rows) // 2 + 1] + rows[-1:]:
            assert seek_value(reader, row) == first_value[row], row
        absent = ["", "hudi-key-", "a", "hudi-key-zzz", "zzzz"]  # before first, after last, empty file
        for i in (0, len(rows) // 2, len(rows) - 2):
            if 0 <= i < len(rows):
                absent.append(rows[i] + "!")  # between row i and row i+1
        if "fake_first_key" in path.stem:
            # Shortened index keys such as `hudi-key-000000235` are lower bounds, not rows.
            absent += [f"hudi-key-{i:09d}" for i in range(0, len(rows), 997)]
        for row in absent:
            assert seek_value(reader, row) is None, row


@pytest.mark.parametrize("path", HFILES, ids=lambda p: p.stem)
def test_batch_lookup(spark, path):
    expected = expected_cells(path.stem)
    first_value = {}
    for row, value in expected:
        first_value.setdefault(row, value)
    rows = list(first_value)
    wanted = sorted(set(rows[::7] + rows[:300] + rows[-40:]))  # sparse, then dense runs: seeks within a block
    # unsorted, with absent keys between present ones and keys asked twice
    asked = wanted[::-1] + [r + "!" for r in wanted[:50]] + ["hudi-key-", "zzz"] + wanted[:20]
    with opened(spark, path) as reader:
        joined = pkg(spark).HFileInspect.getAll(reader, SEP.join(asked), SEP)
    found = dict(line.split("=", 1) for line in split(joined))
    assert found == {row: first_value[row] for row in wanted}
    assert list(found) == sorted(found, key=str.encode)


@pytest.mark.parametrize("path", HFILES, ids=lambda p: p.stem)
def test_prefix_scans(spark, path):
    expected_rows = [row for row, _ in expected_cells(path.stem)]
    with opened(spark, path) as reader:
        if expected_rows:
            # All rows 120..129 (or fewer in small files): the row text with its last digit cut off.
            prefix = row_of(path.stem, 123).split("000000123")[0] + "00000012"
            prefix_rows = split(pkg(spark).HFileInspect.prefixRows(reader, prefix, SEP))
            assert prefix_rows == [r for r in expected_rows if r.startswith(prefix)]
            assert len(prefix_rows) > 0
        assert split(pkg(spark).HFileInspect.prefixRows(reader, "hudi-kex", SEP)) == []
        assert split(pkg(spark).HFileInspect.prefixRows(reader, "hudi-key-", SEP)) == expected_rows
        # several prefixes at once; one nested in another must not repeat cells
        prefixes = [row_of(path.stem, 7), row_of(path.stem, 4000)[:-1], row_of(path.stem, 4000)[:-2], "nope"]
        multi = split(pkg(spark).HFileInspect.multiPrefixRows(reader, SEP.join(prefixes), SEP))
        assert multi == [r for r in expected_rows if any(r.startswith(p) for p in prefixes[1:] + prefixes[:1])]


@pytest.mark.parametrize("path", HFILES, ids=lambda p: p.stem)
def test_file_info_and_bloom_meta_block(spark, path):
    expected = expected_cells(path.stem)
    with opened(spark, path) as reader:
        info = reader.fileInfo()
        keys = set(info.keySet())
        assert {"KEY_VALUE_VERSION", "MAX_MEMSTORE_TS_KEY", "hfile.AVG_KEY_LEN", "hfile.AVG_VALUE_LEN",
                "hfile.CREATE_TIME_TS"} <= keys
        assert struct.unpack(">i", bytes(info.get("KEY_VALUE_VERSION"))) == (1,)
        if expected:
            last_key = bytes(info.get("hfile.LASTKEY"))  # full KeyValue key: int16 rowLen | row | ...
            (row_len,) = struct.unpack(">H", last_key[:2])
            assert last_key[2:2 + row_len].decode() == expected[-1][0]
            assert bytes(info.get("hudi_hfile_testing.custom_key")) == b"hudi_custom_value"
        else:
            assert "hfile.LASTKEY" not in keys
            assert bytes(info.get("bloomFilterTypeCode")) == b"DYNAMIC_V0"
            assert json.loads(bytes(info.get("schema")))["type"] == "record"
        bloom = reader.metaBlock("bloomFilter")
        assert bloom.isPresent()
        assert len(base64.b64decode(bytes(bloom.get()), validate=True)) > 0
        assert not reader.metaBlock("noSuchBlock").isPresent()


def _varint(n: int) -> bytes:
    out = bytearray()
    while True:
        out.append((n & 0x7F) | (0x80 if n > 0x7F else 0))
        n >>= 7
        if not n:
            return bytes(out)


def _block(magic: bytes, payload: bytes) -> bytes:
    """Uncompressed block with checksum type NULL and one zero placeholder, as Hudi's native writer does."""
    return (magic + struct.pack(">iiqbii", len(payload) + 4, len(payload), -1, 0, 16384, 33 + len(payload))
            + payload + b"\0\0\0\0")


def _native_style_hfile(blocks: list[list[tuple[bytes, bytes]]]) -> bytes:
    """A minimal HFile v3 (NONE codec, NULL checksums, row-only index keys) with the given data blocks."""
    out, index = bytearray(), bytearray()
    for cells in blocks:
        payload = b"".join(struct.pack(">iih", len(row) + 12, len(value), len(row)) + row + b"\0"
                           + struct.pack(">qb", 2**63 - 1, 4) + value + b"\0" for row, value in cells)
        index_key = struct.pack(">h", len(cells[0][0])) + cells[0][0]
        index += struct.pack(">qi", len(out), 33 + len(payload) + 4) + _varint(len(index_key)) + index_key
        out += _block(b"DATABLK*", payload)
    load_on_open = len(out)
    out += _block(b"IDXROOT2", bytes(index)) + _block(b"IDXROOT2", b"")
    file_info_at = len(out)
    pair = b"\x0a" + _varint(17) + b"KEY_VALUE_VERSION" + b"\x12\x04" + struct.pack(">i", 1)
    info = b"\x0a" + _varint(len(pair)) + pair
    out += _block(b"FILEINF2", b"PBUF" + _varint(len(info)) + info)
    fields = [(1, file_info_at), (2, load_on_open), (5, len(blocks)), (6, 0), (7, sum(map(len, blocks))),
              (8, 1), (9, 0), (10, 0), (12, 2)]
    proto = b"".join(_varint(num << 3) + _varint(value) for num, value in fields)
    trailer = b'TRABLK"$' + _varint(len(proto)) + proto
    return bytes(out + trailer + b"\0" * (4092 - len(trailer)) + struct.pack(">i", 3))


def test_row_repeated_across_block_boundary(spark):
    """Synthetic bytes: no fixture has a row whose cells straddle two blocks (HBase keeps a row's
    cells in one block), but other writers may; the index key of the second block then equals the
    row, and an exact lookup must still return the row's first cell, in the first block."""
    blocks = [[(b"a", b"a1"), (b"k", b"k1"), (b"k", b"k2")], [(b"k", b"k3"), (b"m", b"m1")], [(b"p", b"p1")]]
    reader = pkg(spark).HFileReader.fromBytes(_native_style_hfile(blocks), "synthetic HFile")
    assert reader.entryCount() == 6
    assert split(pkg(spark).HFileInspect.rows(reader, SEP)) == ["a", "k", "k", "k", "m", "p"]
    assert seek_value(reader, "k") == "k1"
    assert seek_value(reader, "m") == "m1" and seek_value(reader, "p") == "p1"
    assert seek_value(reader, "l") is None and seek_value(reader, "n") is None
    assert split(pkg(spark).HFileInspect.values(reader, SEP)) == ["a1", "k1", "k2", "k3", "m1", "p1"]
    assert split(pkg(spark).HFileInspect.prefixRows(reader, "k", SEP)) == ["k", "k", "k"]
    assert pkg(spark).HFileInspect.getAll(reader, SEP.join(["p", "k", "x"]), SEP) == SEP.join(["k=k1", "p=p1"])


def test_rows_around_the_eight_byte_head_are_ordered_by_their_bytes(spark):
    """Searches compare each cell's first 8 row bytes as one unsigned number before the rows: rows shorter
    than 8 bytes, rows that differ only past byte 8 or only by trailing zero bytes, and bytes >= 0x80 (UTF-8)
    must still be found exactly, and rows between them reported absent."""
    rows = sorted({"a", "a\0", "a\0\0", "ab", "abcdefg", "abcdefg\0", "abcdefgh", "abcdefgh\0", "abcdefgha",
                   "abcdefgi", "abcdefg\u00ff", "b\u0080", "\u00e9t\u00e9", "\u00e9t\u00e9\u00e9"}, key=str.encode)
    cells = [(r.encode(), f"v{i}".encode()) for i, r in enumerate(rows)]
    reader = pkg(spark).HFileReader.fromBytes(_native_style_hfile([cells[:5], cells[5:9], cells[9:]]), "heads")
    for i, row in enumerate(rows):
        assert seek_value(reader, row) == f"v{i}", repr(row)
    absent = ["", "a\0\0\0", "aa", "abcdefgg", "abcdefgh\0\0", "abcdefgz", "b", "b\u0081", "\u00e9", "\u00ff"]
    for row in absent:
        assert seek_value(reader, row) is None, repr(row)
    joined = pkg(spark).HFileInspect.getAll(reader, SEP.join(absent + rows[::-1]), SEP)
    assert dict(line.split("=", 1) for line in split(joined)) == {r: f"v{i}" for i, r in enumerate(rows)}


# ---------------------------------------------------------------- corruption and unsupported input

@pytest.mark.parametrize("name", ["hudi_1_0_hbase_2_4_9_16KB_GZ_20000.hfile", "hudi_1_0_hbase_2_4_9_16KB_NONE_5000.hfile"])
def test_flipped_byte_in_data_block_fails_checksum(spark, tmp_path, name):
    copy = tmp_path / name
    data = bytearray((HFILE_DIR / name).read_bytes())
    assert data[:8] == b"DATABLK*"
    data[200] ^= 0x40  # inside the payload of the first data block (which starts at offset 0)
    copy.write_bytes(bytes(data))
    with opened(spark, copy) as reader:  # the load-on-open section is intact
        with pytest.raises(Exception) as err:
            reader.seek("hudi-key-000000000")
        message = error_text(err)
        assert "checksum mismatch" in message and "CRC32C" in message
        assert "offset 0 of" in message and name in message
        last = expected_cells(name)[-1]
        assert seek_value(reader, last[0]) == last[1]  # other blocks still read fine


def test_unsupported_codec_is_named(spark, tmp_path):
    name = "hudi_1_0_hbase_2_4_9_16KB_GZ_20000.hfile"
    data = bytearray((HFILE_DIR / name).read_bytes())
    trailer_start = len(data) - 4096
    codec_at = data.index(b"KVComparator", trailer_start) + len(b"KVComparator")
    assert data[codec_at:codec_at + 2] == b"\x60\x01"  # trailer field 12 (codec) = 1 (GZ)
    data[codec_at + 1] = 3  # SNAPPY
    (tmp_path / name).write_bytes(bytes(data))
    with pytest.raises(Exception) as err:
        with opened(spark, tmp_path / name):
            pass
    assert "UnsupportedOperationException" in error_text(err)
    assert "compressed with SNAPPY; only GZ and NONE are supported" in error_text(err)


def test_gzip_block_payloads(spark):
    """GZ blocks inflate to exactly the size their header gives, gzip header fields (name, extra) skipped and
    concatenated members read in turn; a payload that is truncated, longer or shorter than the header says, or
    whose trailer CRC is wrong is corrupt, never silently cut or padded; a header size past deflate's 1032:1 is
    corrupt before anything is allocated."""
    inspect = pkg(spark).HFileInspect
    raw = b"".join(b"hudi-key-%09d value %d;" % (i, i * 7) for i in range(20_000))
    packed = gzip.compress(raw)
    assert bytes(inspect.decompress("GZ", packed, len(raw))) == raw
    named = bytearray(packed)
    named[3] |= 8 | 4  # FNAME and FEXTRA: their fields go after the 10 fixed bytes
    named[10:10] = b"\x03\x00xyzblock.bin\x00"
    assert bytes(inspect.decompress("GZ", bytes(named), len(raw))) == raw
    two_members = gzip.compress(raw[:70_000]) + gzip.compress(raw[70_000:])  # RFC 1952 allows several
    assert bytes(inspect.decompress("GZ", two_members, len(raw))) == raw
    crc_flipped = packed[:-8] + bytes([packed[-8] ^ 1]) + packed[-7:]
    for bad, size, says in ((packed[:len(packed) // 2], len(raw), "decompresses to"),
                            (packed, len(raw) + 1, "decompresses to"),
                            (packed, len(raw) - 1, "more than"),
                            (packed + gzip.compress(b"x"), len(raw), "more than"),
                            (crc_flipped, len(raw), "CRC-32"),
                            # a header size deflate cannot reach from these bytes: refused, not allocated
                            (packed, 2**31 - 1, "more than deflate can expand to"),
                            (packed, len(packed) * 1032 + 1025, "more than deflate can expand to"),
                            (b"\x00" * 40, len(raw), "not a gzip")):
        with pytest.raises(Py4JJavaError) as e:
            inspect.decompress("GZ", bad, size)
        assert "CorruptHFileException" in str(e.value) and says in str(e.value)


def test_not_an_hfile(spark):
    log = next((FIXTURES / "log-files").rglob(".*log*"))
    with pytest.raises(Exception) as err:
        with opened(spark, log):
            pass
    assert "not an HFile" in error_text(err) and log.name in error_text(err)


# ---------------------------------------------------------------- real metadata tables

def _latest_base_hfile(partition_dir: Path, group: str) -> Path:
    files = sorted(partition_dir.glob(f"{group}_*.hfile"), key=lambda p: p.stem.rsplit("_", 1)[1])
    return files[-1]


def _decode(schema_json, value: bytes) -> dict:
    schema = fastavro.parse_schema(json.loads(schema_json))
    buf = io.BytesIO(value)
    record = fastavro.schemaless_reader(buf, schema)
    assert buf.tell() == len(value), "value has trailing bytes after the Avro record"
    return record


def _check_files_partition(cells, schema_json, table_base: Path):
    records = {row: _decode(schema_json, value) for row, value in cells}
    assert all(r["key"] == "" for r in records.values())  # Hudi blanks `key`; the HFile row holds it
    listed = records.pop("__all_partitions__")
    assert listed["type"] == 1
    assert set(records) <= set(listed["filesystemMetadata"])
    for partition, record in records.items():
        assert record["type"] == 2
        assert (table_base / partition).is_dir()
        assert record["filesystemMetadata"]


@pytest.mark.parametrize("table,minor", [(V8_MDT_TABLE, 3), (V9_MDT_TABLE, 0)])
def test_metadata_table_base_hfiles(spark, fixture_tables, table, minor):
    base = Path(fixture_tables[table])
    mdt = base / ".hoodie" / "metadata"
    files_hfile = _latest_base_hfile(mdt / "files", "files-0000-0")
    with opened(spark, files_hfile) as reader:
        assert reader.trailer().minorVersion() == minor  # 3: HBase-written (v8), 0: Hudi-native (v9)
        assert bytes(reader.fileInfo().get("bloomFilterTypeCode")) == b"DYNAMIC_V0"
        assert reader.metaBlock("bloomFilter").isPresent()
        schema_json = bytes(reader.fileInfo().get("schema")).decode()
        cells = cells_of(reader)
        assert len(cells) == reader.entryCount() > 1
        assert is_sorted([row for row, _ in cells], strictly=True)
        _check_files_partition(cells, schema_json, base)

    # record_index: each base file holds only keys that hash to its file group (docs/format.md 7.6)
    ri_dir = mdt / "record_index"
    groups = {re.search(r"record-index-(\d{4})", p.name)[1] for p in ri_dir.iterdir() if "record-index-" in p.name}
    seen = 0
    for path in sorted(ri_dir.glob("*.hfile")):
        group = int(re.search(r"record-index-(\d{4})", path.name)[1])
        with opened(spark, path) as reader:
            rows = all_rows(spark, reader)
            assert len(rows) == reader.entryCount()
            for row in rows:
                assert abs(abs(java_string_hash(row)) % len(groups)) == group, row
                assert reader.seek(row).isPresent()
            seen += len(rows)
    assert seen > 0


def _hfile_blocks_of_log(path: Path):
    """(schema JSON, HFile bytes) of each HFile data block (type 4) of a log file (docs/format.md 1.2)."""
    data = path.read_bytes()
    pos = 0
    while pos < len(data):
        assert data[pos:pos + 6] == b"#HUDI#"
        block_len, _version, block_type, n_header = struct.unpack_from(">qiii", data, pos + 6)
        at, header = pos + 26, {}
        for _ in range(n_header):
            key, length = struct.unpack_from(">ii", data, at)
            header[key] = data[at + 8:at + 8 + length].decode()
            at += 8 + length
        (content_len,) = struct.unpack_from(">q", data, at)
        if block_type == 4:
            yield header[2], data[at + 8:at + 8 + content_len]
        pos += 6 + block_len + 8


@pytest.mark.parametrize("table,minor", [(V8_MDT_TABLE, 3), (V9_MDT_TABLE, 0)])
def test_hfile_data_block_inside_log_file(spark, fixture_tables, table, minor):
    base = Path(fixture_tables[table])
    logs = sorted((base / ".hoodie" / "metadata" / "files").glob(".files-0000-0_*.log.*"))
    blocks = [(log, block) for log in logs for block in _hfile_blocks_of_log(log)]
    assert blocks
    log, (schema_json, hfile_bytes) = blocks[-1]
    assert hfile_bytes[:8] == b"DATABLK*"
    reader = pkg(spark).HFileReader.fromBytes(hfile_bytes, f"HFile block of {log.name}")
    assert reader.trailer().minorVersion() == minor
    assert reader.trailer().metaIndexCount() == 0 and not reader.metaBlock("bloomFilter").isPresent()
    cells = cells_of(reader)
    assert len(cells) == reader.entryCount() > 0
    rows = [row for row, _ in cells]
    assert is_sorted(rows, strictly=True) and "__all_partitions__" in rows
    _check_files_partition(cells, schema_json, base)
    for row, value in cells:
        assert bytes(reader.seek(row).get().value()) == value


def test_keys_sought_are_sorted_by_their_bytes_each_once(spark):
    """sortedDistinct (the order every many-key seek walks in) sorts by a primitive sort of the keys' first 5
    bytes, then by comparison where those tie: the result must be the keys' unsigned UTF-8 byte order, each
    once, whatever the keys share (short keys, zero bytes, multi-byte characters, common prefixes)."""
    import random

    rng = random.Random(5)
    alphabet = ["a", "b", "\x00", "\x7f", "é", "😀", "TXN-", "0", "9"]
    keys = ["", "a", "a\x00", "ab", "TXN-000", "TXN-0001", "TXN-00010"]
    keys += ["".join(rng.choice(alphabet) for _ in range(rng.randrange(0, 9))) for _ in range(3000)]
    keys += keys[::3]  # duplicates
    jkeys = spark._jvm.java.util.ArrayList()
    for k in keys:
        jkeys.add(k)
    got = [bytes(b) for b in spark._jvm.io.hudimeta.hfile.HFileReader.sortedDistinct(jkeys)]
    assert got == sorted({k.encode("utf-8") for k in keys})
