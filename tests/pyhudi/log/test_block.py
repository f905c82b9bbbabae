import io

import pyarrow.parquet as pq
import pytest

from pyhudi.log import block as B
from pyhudi.log.builders import rollback_block
from pyhudi.log.cursor import LogFormatError
from pyhudi.log.delete_content import DeleteRecord
from pyhudi.log.framing import encode_block, read_blocks
from tests.pyhudi.log.samples import INSTANT, fixture_log


def test_fixture_log_contents():
    (avro,) = read_blocks(fixture_log("valid_log_avro_data"))
    assert (avro.block_type, avro.instant_time) == (B.BlockType.AVRO_DATA, "20250316025828811")
    rec = avro.records()[0]
    assert rec["_hoodie_commit_seqno"] == "20250316025828811_0_2" and rec["city"] == "san_francisco"
    (delete,) = read_blocks(fixture_log("valid_log_delete"))
    ds = delete.deletes()
    assert len(ds) == 3 and all(d.ordering_value == 0 and d.ordering_type == "int" for d in ds)
    assert ds[0] == DeleteRecord("e96c4396-3fad-413a-a942-4cb36106d721", "city=san_francisco", 0, "int")
    (parquet,) = read_blocks(fixture_log("valid_log_parquet_data"))
    assert pq.read_table(io.BytesIO(parquet.content)).num_rows == 1
    (rollback,) = read_blocks(fixture_log("valid_log_rollback"))
    assert rollback.is_rollback() and rollback.target_instant_time == "20250126040826878"
    assert list(rollback.header) == [0, 3, 1] and rollback.content == b""


def test_content_access_checks_the_block_type():
    with pytest.raises(LogFormatError, match="expected DELETE"):
        read_blocks(encode_block(rollback_block(INSTANT, INSTANT)))[0].deletes()
    with pytest.raises(LogFormatError, match="block is unknown type 9, expected AVRO_DATA, CDC_DATA"):
        B.LogBlock(9, {}).record_bytes()
    with pytest.raises(LogFormatError, match="no SCHEMA header"):
        B.LogBlock(B.BlockType.AVRO_DATA, {B.HeaderKey.INSTANT_TIME: INSTANT}).records()


def test_make_header_order_and_schema_text():
    header = B.make_header(INSTANT, {"type": "record", "name": "r", "fields": []}, "0,1", {7: "true"})
    assert list(header) == [0, 2, 6, 7]
    assert header[B.HeaderKey.SCHEMA] == '{"type":"record","name":"r","fields":[]}'
    assert B.make_header(INSTANT, '{ "kept": "as is" }')[2] == '{ "kept": "as is" }'
