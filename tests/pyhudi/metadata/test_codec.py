"""Avro encoding of metadata records: every record of the metadata table Hudi 1.0 wrote (the
quickstart fixture) re-encodes to the same bytes, and every value kind round-trips."""
from pathlib import Path

from pyhudi import hfile
from pyhudi import log as lf
from pyhudi.metadata.codec import decode_record, encode_record, renamer
from pyhudi.metadata.keys import (
    COLUMN_STATS,
    DEFAULT_FILE_GROUP_COUNT,
    RECORD_INDEX,
    column_stats_key,
    file_group_id,
    file_group_index,
)
from pyhudi.metadata.records import ColumnStats, column_stats_record
from pyhudi.metadata.schema import schema_text
from pyhudi.metadata.wrappers import BOOLEAN, BYTES, DATE, DECIMAL, FLOAT, LONG, STRING, Wrapped, wrap
from tests.pyhudi.metadata.synthetic import V8_MDT


def mdt_cells(mdt_dir: Path):
    """(partition, file name, key, value, writer schema) of every HFile cell of a metadata table."""
    for part_dir in sorted(p for p in mdt_dir.iterdir() if p.is_dir() and p.name != ".hoodie"):
        for f in sorted(part_dir.iterdir()):
            if f.name.endswith(".hfile"):
                c = hfile.parse_hfile(f.read_bytes())
                for k, v in c.cells:
                    yield part_dir.name, f.name, k.decode(), v, c.file_info[b"schema"].decode()
            elif ".log." in f.name:
                for b in lf.read_blocks(f.read_bytes()):
                    if b.block_type == lf.BlockType.HFILE_DATA:
                        for k, v in hfile.read_hfile(b.content):
                            yield part_dir.name, f.name, k.decode(), v, b.schema


def test_hudi_written_records_reencode_byte_for_byte(fixture_tables):
    base = Path(fixture_tables[V8_MDT])
    mdt_dir = base / ".hoodie" / "metadata"
    partition_of = {f.name: str(f.parent.relative_to(base)) for f in base.rglob("*")
                    if f.is_file() and ".hoodie" not in f.relative_to(base).parts}
    n = 0
    for part, name, key, value, schema in mdt_cells(mdt_dir):
        assert schema == schema_text()  # the writer schema we store is Hudi's, byte for byte
        rec = decode_record(key, value, schema)
        assert encode_record(rec, name if name.endswith(".hfile") else None) == value, (part, name, key)
        # a compaction's copy of a record: only `_hoodie_file_name` rewritten, without decoding
        assert renamer("x_0-2-0_2.hfile")(value) == encode_record(rec, "x_0-2-0_2.hfile"), (part, name, key)
        if part in (COLUMN_STATS, RECORD_INDEX):  # keys are routed to file groups by String.hashCode
            count = DEFAULT_FILE_GROUP_COUNT[part]
            assert file_group_id(part, file_group_index(key, count)) in name
        if part == COLUMN_STATS:
            s = rec.stats
            assert key == column_stats_key(s.column_name, partition_of[s.file_name], s.file_name)
        n += 1
    assert n > 300


def test_renaming_refuses_values_not_laid_out_as_ours():
    rec = column_stats_record("p", ColumnStats("f.parquet", "c", wrap(1, LONG), wrap(2, LONG)))
    value = encode_record(rec)
    assert renamer("a.hfile")(value) == encode_record(rec, "a.hfile")
    assert renamer("a.hfile")(b"\x02" + value[1:]) is None  # a commit time where ours is null
    assert renamer("a.hfile")(value[:4] + b"\x04" + value[5:]) is None  # no such union branch


def test_value_encoding():
    stats = ColumnStats("f.parquet", "price", wrap("-2.25", DECIMAL), wrap("1.5", DECIMAL), 3, 1, 10, 20)
    rec = column_stats_record("p", stats)
    back = decode_record(rec.key, encode_record(rec))
    assert back.stats == stats
    # DecimalWrapper holds the unscaled value at scale 15 as minimal two's complement bytes
    raw = encode_record(rec)
    assert (-225 * 10**13).to_bytes(7, "big", signed=True) in raw
    for w, v in ((DATE, 19000), (LONG, -5), (FLOAT, 1.5), (BOOLEAN, True), (BYTES, b"\x00\xff"), (STRING, "é")):
        r = column_stats_record("", ColumnStats("f", "c", wrap(v, w), wrap(v, w)))
        assert decode_record(r.key, encode_record(r)).stats.min_value == Wrapped(w, v)
