import datetime as dt
import decimal
import io
import struct
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from pyhudi.avro import schema as A
from pyhudi.log import log_format as L
from conftest import FIXTURES, TABLE_NAMES

LOGS = FIXTURES / "log-files"
INSTANT = "20250101120000000"


def _fixture_log(kind: str) -> bytes:
    (path,) = [p for p in (LOGS / kind).iterdir() if p.name.startswith(".")]
    return path.read_bytes()


def _writer_schema() -> str:
    data = pa.schema([("ts", pa.int64()), ("uuid", pa.string()), ("fare", pa.float64()),
                      ("tags", pa.map_(pa.string(), pa.int32()))])
    return A.to_json(A.with_meta_fields(A.arrow_to_avro(data, "trips")))


# ---------------------------------------------------------------- fixture logs


@pytest.mark.parametrize("kind", ["valid_log_avro_data", "valid_log_delete",
                                  "valid_log_parquet_data", "valid_log_rollback"])
def test_fixture_log_reserializes_byte_for_byte(kind):
    data = _fixture_log(kind)
    blocks = L.read_blocks(data)
    assert L.encode_blocks(blocks) == data
    # and rebuilt from the decoded contents with the block builders
    rebuilt = []
    for b in blocks:
        if b.block_type == L.BlockType.AVRO_DATA:
            nb = L.avro_data_block(b.records(), b.schema, b.instant_time)
        elif b.block_type == L.BlockType.DELETE:
            nb = L.delete_block(b.deletes(), b.instant_time, b.schema)
        elif b.block_type == L.BlockType.COMMAND:
            nb = L.rollback_block(b.instant_time, b.target_instant_time)
        else:
            nb = L.LogBlock(b.block_type, L.make_header(b.instant_time, b.schema), b.content)
        nb.header = {k: nb.header[k] for k in b.header}  # Java's HashMap order, as parsed
        assert nb.header == b.header
        rebuilt.append(nb)
    assert L.encode_blocks(rebuilt) == data


def test_fixture_log_contents():
    (avro,) = L.read_blocks(_fixture_log("valid_log_avro_data"))
    assert (avro.block_type, avro.instant_time) == (L.BlockType.AVRO_DATA, "20250316025828811")
    rec = avro.records()[0]
    assert rec["_hoodie_commit_seqno"] == "20250316025828811_0_2" and rec["city"] == "san_francisco"
    (delete,) = L.read_blocks(_fixture_log("valid_log_delete"))
    ds = delete.deletes()
    assert len(ds) == 3 and all(d.ordering_value == 0 and d.ordering_type == "int" for d in ds)
    assert ds[0] == L.DeleteRecord("e96c4396-3fad-413a-a942-4cb36106d721", "city=san_francisco", 0, "int")
    (parquet,) = L.read_blocks(_fixture_log("valid_log_parquet_data"))
    assert pq.read_table(io.BytesIO(parquet.content)).num_rows == 1
    (rollback,) = L.read_blocks(_fixture_log("valid_log_rollback"))
    assert rollback.is_rollback() and rollback.target_instant_time == "20250126040826878"
    assert list(rollback.header) == [0, 3, 1] and rollback.content == b""


def test_every_log_block_of_every_fixture_table(fixture_tables):
    seen = {}
    for name in TABLE_NAMES:
        for f in Path(fixture_tables[name]).rglob(".*.log.*"):
            if "__MACOSX" in f.parts:
                continue
            data = f.read_bytes()
            blocks = L.read_blocks(data)
            assert L.encode_blocks(blocks) == data, f
            for b in blocks:
                seen[b.block_type] = seen.get(b.block_type, 0) + 1
                if b.block_type == L.BlockType.DELETE:
                    assert L.encode_delete_content(b.deletes()) == b.content, f
                if b.block_type == L.BlockType.AVRO_DATA:
                    assert L.avro_data_block(b.records(), b.schema, b.instant_time).content == b.content, f
    assert seen[L.BlockType.HFILE_DATA] > 100 and seen[L.BlockType.DELETE] > 100
    assert seen[L.BlockType.AVRO_DATA] >= 10 and seen[L.BlockType.PARQUET_DATA] >= 5


# ---------------------------------------------------------------- blocks from scratch


def _records(n: int) -> list[dict]:
    return [{"_hoodie_commit_time": INSTANT, "_hoodie_commit_seqno": f"{INSTANT}_0_{i}",
             "_hoodie_record_key": f"k{i}", "_hoodie_partition_path": "", "_hoodie_file_name": "fg-0",
             "ts": i, "uuid": f"k{i}", "fare": i / 4, "tags": {"a": i} if i % 2 else None} for i in range(n)]


def test_avro_block_from_dicts_and_arrow():
    schema = _writer_schema()
    block = L.avro_data_block(_records(5), schema, INSTANT, block_identifier="0,1")
    data = L.encode_block(block)
    (back,) = L.read_blocks(data)
    assert back.header == {0: INSTANT, 2: schema, 6: "0,1"}
    assert back.records() == _records(5)
    assert struct.unpack(">ii", back.content[:8]) == (3, 5)
    table = pa.Table.from_pylist(_records(5), schema=A.avro_to_arrow(schema))
    assert L.avro_data_block(table, schema, INSTANT, block_identifier="0,1").content == block.content
    # framing arithmetic (FORMAT-NOTES §1.2)
    block_len = struct.unpack(">q", data[6:14])[0]
    assert block_len == len(data) - 14
    assert struct.unpack(">q", data[-8:])[0] == block_len + 6


def test_parquet_and_hfile_blocks():
    schema = _writer_schema()
    table = pa.Table.from_pylist(_records(3), schema=A.avro_to_arrow(schema))
    block = L.parquet_data_block(table, schema, INSTANT)
    (back,) = L.read_blocks(L.encode_block(block))
    assert back.block_type == L.BlockType.PARQUET_DATA and back.schema == schema
    pf = pq.ParquetFile(io.BytesIO(back.content))
    assert pf.read().to_pylist() == table.to_pylist()
    assert b"org.apache.hudi.bloomfilter" not in pf.metadata.metadata
    assert pf.metadata.metadata[b"parquet.avro.schema"].decode() == schema
    hfile = L.hfile_data_block(b"DATABLK*fake", '{"type":"record"}', INSTANT)
    (hb,) = L.read_blocks(L.encode_block(hfile))
    assert (hb.block_type, hb.content, hb.schema) == (L.BlockType.HFILE_DATA, b"DATABLK*fake", '{"type":"record"}')


def test_rollback_block_bytes():
    block = L.rollback_block("20250126040936578", "20250126040826878")
    assert list(block.header) == [0, 1, 3]
    block.header = {k: block.header[k] for k in (0, 3, 1)}
    assert L.encode_block(block) == _fixture_log("valid_log_rollback")


def test_delete_payload_bytes():
    # v9 data-table delete (FORMAT-NOTES §2.4)
    payload = L.encode_delete_list([L.DeleteRecord("TXN-002", "region=us")])
    assert payload == b"\x02\x02\x0eTXN-002\x02\x12region=us\x04\x00\x00"
    # metadata-table bootstrap block: header {INSTANT_TIME} only, empty list
    block = L.delete_block([], "00000000000000010")
    assert block.header == {0: "00000000000000010"}
    assert block.content == bytes.fromhex("00000003 00000001 00")


@pytest.mark.parametrize("value,kind,expected", [
    (True, None, True), (7, None, 7), (2**40, None, 2**40), (5, "long", 5), (1.5, None, 1.5),
    (1.25, "float", 1.25), (b"\x01\x02", None, b"\x01\x02"), ("zz", None, "zz"),
    (dt.date(2024, 1, 20), None, dt.date(2024, 1, 20)),
    (decimal.Decimal("-12.5"), None, decimal.Decimal("-12.5")),
    (dt.datetime(2024, 1, 20, 16, 0, 0, 5, tzinfo=dt.timezone.utc), None, 1705766400000005),
    (dt.time(1, 2, 3, 4), None, 3723000004), (None, None, None),
])
def test_delete_ordering_values_round_trip(value, kind, expected):
    d = L.DeleteRecord("key", "part", value, kind)
    (back,) = L.decode_delete_content(L.encode_delete_content([d]))
    assert (back.record_key, back.partition_path) == ("key", "part")
    assert back.ordering_value == expected
    assert back.ordering_type == (d.wrapper())
    assert L.encode_delete_content([back]) == L.encode_delete_content([d])


def test_decimal_wrapper_bytes_and_type_mapping():
    # DecimalWrapper = decimal(30,15): 1 -> unscaled 10**15 as minimal two's complement
    payload = L.encode_delete_list([L.DeleteRecord(None, None, decimal.Decimal(1))])
    unscaled = (10**15).to_bytes(7, "big", signed=True)
    assert payload == b"\x02\x00\x00\x12" + bytes([len(unscaled) * 2]) + unscaled + b"\x00"
    assert L.ordering_type_for_avro(["null", "long"]) == "long"
    assert L.ordering_type_for_avro(["null", {"type": "int", "logicalType": "date"}]) == "int"
    assert L.ordering_type_for_avro({"type": "fixed", "name": "f", "size": 5, "logicalType": "decimal"}) == "decimal"


def test_corrupt_logs_are_reported_with_offsets():
    good = L.encode_block(L.rollback_block(INSTANT, INSTANT))
    with pytest.raises(L.LogFormatError, match="offset 0 claims"):
        L.read_blocks(good[:-3])
    torn = good[:-8] + struct.pack(">q", 1)
    with pytest.raises(L.LogFormatError, match="torn"):
        L.read_blocks(torn)
    with pytest.raises(L.LogFormatError, match=f"no log block magic at offset {len(good)}"):
        L.read_blocks(good + b"garbage")
    with pytest.raises(L.LogFormatError, match="expected DELETE"):
        L.read_blocks(good)[0].deletes()
    with pytest.raises(L.LogFormatError, match="valid: boolean"):
        L.encode_delete_list([L.DeleteRecord("k", "p", 1, "short")])
