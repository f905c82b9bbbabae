import struct
from pathlib import Path

import pytest

from conftest import TABLE_NAMES
from pyhudi.log import framing as F
from pyhudi.log.block import BlockType
from pyhudi.log.builders import avro_data_block, rollback_block
from pyhudi.log.cursor import LogFormatError
from pyhudi.log.delete_content import encode_delete_content
from tests.pyhudi.log.samples import INSTANT


def test_every_log_block_of_every_fixture_table(fixture_tables):
    seen = {}
    for name in TABLE_NAMES:
        for f in Path(fixture_tables[name]).rglob(".*.log.*"):
            if "__MACOSX" in f.parts:
                continue
            data = f.read_bytes()
            blocks = F.read_blocks(data)
            assert F.encode_blocks(blocks) == data, f
            for b in blocks:
                seen[b.block_type] = seen.get(b.block_type, 0) + 1
                if b.block_type == BlockType.DELETE:
                    assert encode_delete_content(b.deletes()) == b.content, f
                if b.block_type == BlockType.AVRO_DATA:
                    assert avro_data_block(b.records(), b.schema, b.instant_time).content == b.content, f
    assert seen[BlockType.HFILE_DATA] > 100 and seen[BlockType.DELETE] > 100
    assert seen[BlockType.AVRO_DATA] >= 10 and seen[BlockType.PARQUET_DATA] >= 5


def test_corrupt_logs_are_reported_with_offsets():
    good = F.encode_block(rollback_block(INSTANT, INSTANT))
    with pytest.raises(LogFormatError, match="offset 0 claims"):
        F.read_blocks(good[:-3])
    torn = good[:-8] + struct.pack(">q", 1)
    with pytest.raises(LogFormatError, match="torn"):
        F.read_blocks(torn)
    with pytest.raises(LogFormatError, match=f"no log block magic at offset {len(good)}"):
        F.read_blocks(good + b"garbage")


def test_read_blocks_records_offsets_and_log_file(tmp_path):
    one = F.encode_block(rollback_block(INSTANT, INSTANT))
    (tmp_path / "f.log").write_bytes(one * 2)
    blocks = F.read_log_file(str(tmp_path / "f.log"))
    assert [b.offset for b in blocks] == [0, len(one)]
    assert F.read_blocks(b"") == []
