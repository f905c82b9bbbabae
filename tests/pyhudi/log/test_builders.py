import io
import struct

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from pyhudi.avro import schema as A
from pyhudi.log import builders as L
from pyhudi.log.block import BlockType, LogBlock, make_header
from pyhudi.log.framing import encode_block, encode_blocks, read_blocks
from tests.pyhudi.log.samples import INSTANT, fixture_log, records, writer_schema


@pytest.mark.parametrize("kind", ["valid_log_avro_data", "valid_log_delete",
                                  "valid_log_parquet_data", "valid_log_rollback"])
def test_fixture_log_reserializes_byte_for_byte(kind):
    data = fixture_log(kind)
    blocks = read_blocks(data)
    assert encode_blocks(blocks) == data
    # and rebuilt from the decoded contents with the block builders
    rebuilt = []
    for b in blocks:
        if b.block_type == BlockType.AVRO_DATA:
            nb = L.avro_data_block(b.records(), b.schema, b.instant_time)
        elif b.block_type == BlockType.DELETE:
            nb = L.delete_block(b.deletes(), b.instant_time, b.schema)
        elif b.block_type == BlockType.COMMAND:
            nb = L.rollback_block(b.instant_time, b.target_instant_time)
        else:
            nb = LogBlock(b.block_type, make_header(b.instant_time, b.schema), b.content)
        nb.header = {k: nb.header[k] for k in b.header}  # Java's HashMap order, as parsed
        assert nb.header == b.header
        rebuilt.append(nb)
    assert encode_blocks(rebuilt) == data


def test_avro_block_from_dicts_and_arrow():
    schema = writer_schema()
    block = L.avro_data_block(records(5), schema, INSTANT, block_identifier="0,1")
    data = encode_block(block)
    (back,) = read_blocks(data)
    assert back.header == {0: INSTANT, 2: schema, 6: "0,1"}
    assert back.records() == records(5)
    assert struct.unpack(">ii", back.content[:8]) == (3, 5)
    table = pa.Table.from_pylist(records(5), schema=A.avro_to_arrow(schema))
    assert L.avro_data_block(table, schema, INSTANT, block_identifier="0,1").content == block.content
    # framing arithmetic (docs/format.md §1.2)
    block_len = struct.unpack(">q", data[6:14])[0]
    assert block_len == len(data) - 14
    assert struct.unpack(">q", data[-8:])[0] == block_len + 6


def test_parquet_and_hfile_blocks():
    schema = writer_schema()
    table = pa.Table.from_pylist(records(3), schema=A.avro_to_arrow(schema))
    block = L.parquet_data_block(table, schema, INSTANT)
    (back,) = read_blocks(encode_block(block))
    assert back.block_type == BlockType.PARQUET_DATA and back.schema == schema
    pf = pq.ParquetFile(io.BytesIO(back.content))
    assert pf.read().to_pylist() == table.to_pylist()
    assert b"org.apache.hudi.bloomfilter" not in pf.metadata.metadata and block.key_filter is None
    assert pf.metadata.metadata[b"parquet.avro.schema"].decode() == schema
    # with a key summary, the block hands its writer the footer's filter (the metadata table's entry)
    summarised = L.parquet_data_block(table, schema, INSTANT, key_summary=True)
    footer = pq.ParquetFile(io.BytesIO(summarised.content)).metadata.metadata
    assert summarised.key_filter == footer[b"org.apache.hudi.bloomfilter"].decode()
    hfile = L.hfile_data_block(b"DATABLK*fake", '{"type":"record"}', INSTANT)
    (hb,) = read_blocks(encode_block(hfile))
    assert (hb.block_type, hb.content, hb.schema) == (BlockType.HFILE_DATA, b"DATABLK*fake", '{"type":"record"}')


def test_rollback_block_bytes():
    block = L.rollback_block("20250126040936578", "20250126040826878")
    assert list(block.header) == [0, 1, 3]
    block.header = {k: block.header[k] for k in (0, 3, 1)}
    assert encode_block(block) == fixture_log("valid_log_rollback")


def test_metadata_bootstrap_delete_block():
    # metadata-table bootstrap block: header {INSTANT_TIME} only, empty list
    block = L.delete_block([], "00000000000000010")
    assert block.header == {0: "00000000000000010"}
    assert block.content == bytes.fromhex("00000003 00000001 00")
