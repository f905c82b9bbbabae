"""Log blocks of merge-on-read updates and deletes carry the base-file row positions of their records
(hoodie.write.record.positions, Apache Hudi's RECORD_POSITIONS and BASE_FILE_INSTANT_TIME_OF_RECORD_POSITIONS
headers): records in position order, each at the position its key has in the slice's base file."""
import io
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from pyhudi.hudi_table import HudiTable
from pyhudi.log import BlockType, HeaderKey, decode_positions, read_log_file

SCHEMA = "id string, ts long, region string, note string"
OPTS = {"hoodie.table.name": "positions", "hoodie.datasource.write.recordkey.field": "id",
        "hoodie.datasource.write.precombine.field": "ts", "hoodie.datasource.write.partitionpath.field": "region",
        "hoodie.datasource.write.table.type": "MERGE_ON_READ"}


def _rows(spark, ids, ts, region="eu"):
    return spark.createDataFrame([(f"k{i:03d}", ts, region, f"v{ts}") for i in ids], SCHEMA)


def _block_keys(block) -> list[str]:
    if block.block_type == BlockType.DELETE:
        return [d.record_key for d in block.deletes()]
    if block.block_type == BlockType.PARQUET_DATA:
        return pq.read_table(io.BytesIO(block.content), columns=["_hoodie_record_key"]).column(0).to_pylist()
    return [r["_hoodie_record_key"] for r in block.records()]


def _log_blocks(path):
    return [(f, b) for f in sorted(Path(path).glob("*/.*.log.*")) for b in read_log_file(str(f))
            if b.block_type != BlockType.COMMAND]


def _base_keys(log_file: Path, instant: str) -> list[str]:
    fg = log_file.name[1:].split("_")[0]
    (base,) = log_file.parent.glob(f"{fg}_*_{instant}.parquet")
    return pq.read_table(base, columns=["_hoodie_record_key"]).column(0).to_pylist()


@pytest.mark.parametrize("block_format", ["avro", "parquet"])
def test_updates_and_deletes_carry_the_positions_of_their_keys_in_the_base_file(spark, tmp_path, block_format):
    path = str(tmp_path / block_format)
    table = HudiTable(spark, path, {**OPTS, "hoodie.logfile.data.block.format": block_format})
    table.insert(_rows(spark, range(40), 1))
    table.upsert(_rows(spark, [31, 2, 17, 9, 25], 2))
    table.delete(_rows(spark, [30, 4, 12], 3))
    blocks = _log_blocks(path)
    assert sorted(b.block_type for _, b in blocks) == sorted([BlockType.DELETE, _data_type(block_format)])
    for log_file, block in blocks:
        instant = block.header[HeaderKey.BASE_FILE_INSTANT_TIME_OF_RECORD_POSITIONS]
        base_keys = _base_keys(log_file, instant)
        positions = decode_positions(block.header[HeaderKey.RECORD_POSITIONS])
        assert [base_keys[p] for p in positions] == _block_keys(block)  # the i-th record at the i-th position
        assert positions == sorted(positions)
    assert len(decode_positions(blocks[0][1].header[HeaderKey.RECORD_POSITIONS])) + len(
        decode_positions(blocks[1][1].header[HeaderKey.RECORD_POSITIONS])) == 8
    want = {f"k{i:03d}": (2 if i in (31, 2, 17, 9, 25) else 1) for i in range(40) if i not in (30, 4, 12)}
    assert {r["id"]: r["ts"] for r in table.read().collect()} == want
    from hudi import HudiTableBuilder
    rs = HudiTableBuilder.from_base_uri(path).build().read()
    assert {k: t for b in rs for k, t in zip(b.column("id").to_pylist(), b.column("ts").to_pylist())} == want


def _data_type(block_format):
    return BlockType.PARQUET_DATA if block_format == "parquet" else BlockType.AVRO_DATA


def test_no_positions_when_turned_off_or_when_a_block_holds_inserts(spark, tmp_path):
    off = str(tmp_path / "off")
    table = HudiTable(spark, off, {**OPTS, "hoodie.write.record.positions": "false"})
    table.insert(_rows(spark, range(10), 1))
    table.upsert(_rows(spark, [3, 5], 2))
    assert [b for _, b in _log_blocks(off) if HeaderKey.RECORD_POSITIONS in b.header] == []
    bucket = str(tmp_path / "bucket")  # the bucket index reads no keys: no positions, as in Hudi
    table = HudiTable(spark, bucket, {**OPTS, "hoodie.index.type": "BUCKET", "hoodie.bucket.index.num.buckets": "2"})
    table.insert(_rows(spark, range(10), 1))
    table.upsert(_rows(spark, [3, 5], 2))
    assert _log_blocks(bucket) and [b for _, b in _log_blocks(bucket) if HeaderKey.RECORD_POSITIONS in b.header] == []
    assert [b for _, b in _log_blocks(off) if HeaderKey.BASE_FILE_INSTANT_TIME_OF_RECORD_POSITIONS in b.header] == []

    # under log-file indexing, inserts join the log files of small groups: a block with records the base file
    # lacks has no positions at all (Hudi's rule), and reads stay right
    mixed = str(tmp_path / "mixed")
    table = HudiTable(spark, mixed, {**OPTS, "hoodie.index.type": "BLOOM", "hoodie.logfile.data.block.format": "avro",
                                     "pyhudi.bloom.index.log.files.enable": "true"})
    table.insert(_rows(spark, range(10), 1))
    table.upsert(_rows(spark, [3, 5, 11, 12], 2))
    (block,) = [b for _, b in _log_blocks(mixed)]
    assert sorted(_block_keys(block)) == ["k003", "k005", "k011", "k012"]
    assert HeaderKey.RECORD_POSITIONS not in block.header
    assert HeaderKey.BASE_FILE_INSTANT_TIME_OF_RECORD_POSITIONS not in block.header
    assert sorted((r["id"], r["ts"]) for r in table.read().collect()) == sorted(
        [(f"k{i:03d}", 2 if i in (3, 5) else 1) for i in range(10)] + [("k011", 2), ("k012", 2)])
