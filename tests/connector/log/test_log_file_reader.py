"""io.hudimeta.log against real Hudi log files.

The oracle is an independent parse of the block framing written here in Python (docs/format.md
§1.2/§1.3), with fastavro decoding Avro/delete payloads and pyarrow reading embedded Parquet.
"""
from __future__ import annotations

import datetime
import io
import json
import struct
from decimal import Decimal
from pathlib import Path

import fastavro
import pyarrow.parquet as pq
import pytest

from conftest import FIXTURES

LOG_KINDS = ["valid_log_avro_data", "valid_log_delete", "valid_log_parquet_data",
             "valid_log_rollback"]
TYPES = ["COMMAND", "DELETE", "CORRUPT", "AVRO_DATA", "HFILE_DATA", "PARQUET_DATA", "CDC_DATA"]
HEADER_KEYS = ["INSTANT_TIME", "TARGET_INSTANT_TIME", "SCHEMA", "COMMAND_BLOCK_TYPE",
               "COMPACTED_BLOCK_TIMES", "RECORD_POSITIONS", "BLOCK_IDENTIFIER", "IS_PARTIAL",
               "BASE_FILE_INSTANT_TIME_OF_RECORD_POSITIONS"]
MOR_TABLES = ["quickstart_trips_table_mor_avro__v8_trips_8i3u1d",
              "sample_table_mor_avro__v9_txns_simple_meta",
              "sample_table_mor_avro__v9_txns_nonpart_nometa",
              "sample_table_mor_parquet__v6_complexkeygen_hivestyle",
              "sample_table_mor_parquet__v6_nonpartitioned_rollback"]


# ---- Python oracle -------------------------------------------------------------------------

def _map(data: bytes, pos: int) -> tuple[dict, int]:
    (count,) = struct.unpack_from(">i", data, pos)
    pos += 4
    out = {}
    for _ in range(count):
        key, length = struct.unpack_from(">ii", data, pos)
        pos += 8
        out[key] = data[pos:pos + length].decode()
        pos += length
    return out, pos


def oracle_blocks(data: bytes) -> list[dict]:
    """Blocks of an intact log file: type name, header by key name, content, offset."""
    blocks, pos = [], 0
    while pos < len(data):
        assert data[pos:pos + 6] == b"#HUDI#"
        (block_length,) = struct.unpack_from(">q", data, pos + 6)
        version, type_id = struct.unpack_from(">ii", data, pos + 14)
        assert version == 1
        header, p = _map(data, pos + 22)
        (content_length,) = struct.unpack_from(">q", data, p)
        content = data[p + 8:p + 8 + content_length]
        footer, p = _map(data, p + 8 + content_length)
        (total,) = struct.unpack_from(">q", data, p)
        assert total == block_length + 6 and p + 8 == pos + 14 + block_length
        blocks.append({"type": TYPES[type_id], "offset": pos, "content": content,
                       "header": {HEADER_KEYS[k]: v for k, v in header.items()},
                       "footer": footer})
        pos = p + 8
    return blocks


def oracle_avro_records(block: dict) -> list[dict]:
    content = block["content"]
    version, count = struct.unpack_from(">ii", content, 0)
    assert version == 3
    schema = fastavro.parse_schema(json.loads(block["header"]["SCHEMA"]))
    records, pos = [], 8
    for _ in range(count):
        (length,) = struct.unpack_from(">i", content, pos)
        records.append(fastavro.schemaless_reader(io.BytesIO(content[pos + 4:pos + 4 + length]),
                                                  schema))
        pos += 4 + length
    return records


def _wrapper(name, value_type):
    return {"type": "record", "name": name, "namespace": "hudi.oracle",
            "fields": [{"name": "value", "type": value_type}]}


DELETE_LIST_SCHEMA = fastavro.parse_schema({
    "type": "record", "name": "DeleteList", "namespace": "hudi.oracle", "fields": [
        {"name": "deleteRecordList", "type": {"type": "array", "items": {
            "type": "record", "name": "Delete", "fields": [
                {"name": "recordKey", "type": ["null", "string"]},
                {"name": "partitionPath", "type": ["null", "string"]},
                {"name": "orderingVal", "type": ["null"] + [
                    _wrapper(n, t) for n, t in [
                        ("BooleanW", "boolean"), ("IntW", "int"), ("LongW", "long"),
                        ("FloatW", "float"), ("DoubleW", "double"), ("BytesW", "bytes"),
                        ("StringW", "string"), ("DateW", "int"), ("DecimalW", "bytes"),
                        ("TimeMicrosW", "long"), ("TimestampMicrosW", "long")]]}]}}}]})


def oracle_deletes(block: dict) -> list[tuple]:
    content = block["content"]
    version, length = struct.unpack_from(">ii", content, 0)
    assert version == 3 and len(content) == 8 + length
    decoded = fastavro.schemaless_reader(io.BytesIO(content[8:]), DELETE_LIST_SCHEMA)
    return [(d["recordKey"], d["partitionPath"],
             None if d["orderingVal"] is None else d["orderingVal"]["value"])
            for d in decoded["deleteRecordList"]]


# ---- helpers -------------------------------------------------------------------------------

def fixture_log(kind: str) -> Path:
    (path,) = (FIXTURES / "log-files" / kind).glob(".*")
    return path


def table_logs(fixture_tables, name: str) -> list[Path]:
    return sorted(Path(fixture_tables[name]).rglob(".*.log.*"))


@pytest.fixture(scope="module")
def jvm(spark):
    return spark._jvm


def as_list(java_list) -> list:
    # Indexed access: py4j ends iteration over a Java collection with a (slow) Java exception.
    return [java_list.get(i) for i in range(java_list.size())]


def read_blocks(jvm, data: bytes, name: str = "test") -> list:
    return as_list(jvm.io.hudimeta.log.LogFileReader.read(data, name))


def header_dict(block) -> dict:
    keys = block.header().keySet().toArray()
    return {key.name(): block.header(key) for key in keys}


def java_error(excinfo) -> str:
    """Message of a Java exception, whether py4j raised it or pyspark converted it."""
    return str(excinfo.value)


def collect(spark, jrows, jschema) -> list:
    from pyspark.sql import DataFrame

    return DataFrame(spark._jsparkSession.createDataFrame(jrows, jschema), spark).collect()


def spark_schema(jvm, block):
    return jvm.io.hudimeta.avro.AvroSchemas.toStructType(block.writerSchema())


def plain(value):
    """Python value in a form comparable across fastavro, pyarrow and Spark collect()."""
    if isinstance(value, datetime.datetime):
        return round(value.timestamp() * 1_000_000)
    if hasattr(value, "asDict"):  # a Spark Row (a tuple subclass)
        return plain(value.asDict(recursive=True))
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        if value and all(isinstance(v, tuple) and len(v) == 2 for v in value):
            return {k: plain(v) for k, v in value}  # pyarrow renders maps as pairs
        return [plain(v) for v in value]
    if isinstance(value, (bytes, bytearray)):
        return bytes(value)
    return value


# ---- framing -------------------------------------------------------------------------------

@pytest.mark.parametrize("kind", LOG_KINDS)
def test_fixture_log_framing_matches_oracle(jvm, kind):
    data = fixture_log(kind).read_bytes()
    expected = oracle_blocks(data)
    blocks = read_blocks(jvm, data, kind)
    assert [b.type().name() for b in blocks] == [e["type"] for e in expected]
    for b, e in zip(blocks, expected):
        assert header_dict(b) == e["header"]
        assert bytes(b.content()) == e["content"]
        assert b.offset() == e["offset"]
        assert b.footer().isEmpty()
        assert b.instantTime() == e["header"]["INSTANT_TIME"]


def test_block_type_and_header_ids_are_hudi_ordinals(jvm):
    log = jvm.io.hudimeta.log
    assert [t.name() for t in log.LogBlockType.values()] == TYPES
    assert [k.name() for k in log.HeaderKey.values()] == HEADER_KEYS
    assert log.LogBlockType.fromId(5).name() == "PARQUET_DATA"
    # the Avro fixture carries id 3 on disk (docs/format.md §1.4)
    data = fixture_log("valid_log_avro_data").read_bytes()
    assert struct.unpack_from(">i", data, 18)[0] == 3
    assert read_blocks(jvm, data)[0].type().ordinal() == 3


def test_rollback_command_block(jvm):
    (block,) = read_blocks(jvm, fixture_log("valid_log_rollback").read_bytes())
    assert block.type().name() == "COMMAND"
    assert block.isRollback()
    assert header_dict(block) == {"INSTANT_TIME": "20250126040936578",
                                  "COMMAND_BLOCK_TYPE": "0",
                                  "TARGET_INSTANT_TIME": "20250126040826878"}
    assert block.rollbackTargetInstant() == "20250126040826878"
    assert len(block.content()) == 0


def test_read_through_hadoop_filesystem(spark, jvm):
    path = fixture_log("valid_log_parquet_data")
    fs = jvm.org.apache.hadoop.fs.FileSystem.getLocal(spark._jsc.hadoopConfiguration())
    blocks = as_list(jvm.io.hudimeta.log.LogFileReader.read(
        fs, jvm.org.apache.hadoop.fs.Path(path.as_uri())))
    assert [b.type().name() for b in blocks] == ["PARQUET_DATA"]
    assert b"PAR1" == bytes(blocks[0].content())[:4]
    assert blocks[0].source().endswith(path.name)


def java_header(jvm, header: dict):
    out = jvm.java.util.HashMap()
    for name, value in header.items():
        out.put(jvm.io.hudimeta.log.HeaderKey.valueOf(name), value)
    return out


@pytest.mark.parametrize("table", MOR_TABLES)
def test_every_log_of_a_table_matches_oracle(jvm, fixture_tables, table):
    """Data-table and metadata-table logs: types, offsets, headers, content lengths.

    Large values are compared inside the JVM: py4j answers that span several TCP packets cost
    tens of milliseconds each.
    """
    seen = set()
    logs = table_logs(fixture_tables, table)
    assert logs
    for path in logs:
        data = path.read_bytes()
        expected = oracle_blocks(data)
        blocks = read_blocks(jvm, data, path.name)
        assert [str(b) for b in blocks] == [
            f"{e['type']} block at offset {e['offset']} of {path.name} (instant "
            f"{e['header']['INSTANT_TIME']}, {len(e['content'])} content bytes)"
            for e in expected]
        for b, e in zip(blocks, expected):
            assert b.header().equals(java_header(jvm, e["header"])), path
            seen.add(b.type().name())
    assert "AVRO_DATA" in seen or "PARQUET_DATA" in seen


# ---- content decoders ----------------------------------------------------------------------

def avro_blocks(fixture_tables):
    paths = [fixture_log("valid_log_avro_data")]
    for table in MOR_TABLES:
        paths += [p for p in table_logs(fixture_tables, table) if "/.hoodie/" not in str(p)]
    for path in paths:
        data = path.read_bytes()
        for index, block in enumerate(oracle_blocks(data)):
            if block["type"] == "AVRO_DATA":
                yield path, data, index, block


def test_avro_blocks_decode_like_fastavro(spark, jvm, fixture_tables):
    checked = 0
    for path, data, index, expected_block in avro_blocks(fixture_tables):
        block = read_blocks(jvm, data, path.name)[index]
        expected = oracle_avro_records(expected_block)
        assert block.avroRecords().size() == len(expected)
        schema = spark_schema(jvm, block)
        rows = collect(spark, jvm.io.hudimeta.avro.AvroInspector.toExternalRows(
            block.avroRows(schema), schema), schema)
        assert [plain(r) for r in rows] == [plain(e) for e in expected], path
        checked += 1
    assert checked >= 10  # LOG-AVRO, the v8 table and the three v9 tables


def test_avro_block_with_decimal_date_timestamp(spark, jvm, fixture_tables):
    """v9 txns logs: fixed decimals, dates and timestamp-micros survive decoding."""
    path, data, index, expected_block = next(
        item for item in avro_blocks(fixture_tables) if "txn_datetime" in
        item[3]["header"]["SCHEMA"])
    block = read_blocks(jvm, data)[index]
    schema = spark_schema(jvm, block)
    assert json.loads(schema.json())["fields"][8] == {
        "name": "txn_datetime", "type": "timestamp", "nullable": True, "metadata": {}}
    row = collect(spark, jvm.io.hudimeta.avro.AvroInspector.toExternalRows(
        block.avroRows(schema), schema), schema)[0]
    expected = oracle_avro_records(expected_block)[0]
    assert isinstance(row.amount, Decimal) and row.amount == expected["amount"]
    assert row.txn_date == expected["txn_date"]
    assert plain(row.txn_datetime) == plain(expected["txn_datetime"])


def test_avro_rows_pruned_reordered_and_missing(spark, jvm):
    from pyspark.sql.types import DoubleType, LongType, StringType, StructField, StructType

    (block,) = read_blocks(jvm, fixture_log("valid_log_avro_data").read_bytes())
    wanted = StructType([StructField("fare", DoubleType()), StructField("city", StringType()),
                         StructField("not_in_log", LongType()),
                         StructField("_hoodie_record_key", StringType())])
    jschema = jvm.org.apache.spark.sql.types.DataType.fromJson(wanted.json())
    (row,) = collect(spark, jvm.io.hudimeta.avro.AvroInspector.toExternalRows(
        block.avroRows(jschema), jschema), jschema)
    assert tuple(row) == (29.1, "san_francisco", None, "334e26e9-8355-45cc-97c6-c31daf0df330")


def test_avro_reader_schema_resolution(jvm):
    (block,) = read_blocks(jvm, fixture_log("valid_log_avro_data").read_bytes())
    writer = json.loads(block.header().get(jvm.io.hudimeta.log.HeaderKey.SCHEMA))
    writer["fields"].append({"name": "added", "type": "string", "default": "dflt"})
    reader = jvm.io.hudimeta.avro.AvroSchemas.parse(json.dumps(writer))
    (record,) = as_list(block.avroRecords(reader))
    assert str(record.get("added")) == "dflt"
    assert str(record.get("rider")) == "rider-A"


def test_parquet_blocks_match_pyarrow(spark, jvm, fixture_tables):
    """Every Parquet data block, requested with the Spark schema stored in its own footer."""
    paths = [fixture_log("valid_log_parquet_data")]
    for table in fixture_tables:
        if "_mor_parquet_" in table:
            paths += table_logs(fixture_tables, table)
    checked = 0
    for path in paths:
        data = path.read_bytes()
        for index, expected in enumerate(oracle_blocks(data)):
            if expected["type"] != "PARQUET_DATA":
                continue
            table = pq.read_table(io.BytesIO(expected["content"]))
            spark_json = table.schema.metadata[b"org.apache.spark.sql.parquet.row.metadata"]
            jschema = jvm.org.apache.spark.sql.types.DataType.fromJson(spark_json.decode())
            block = read_blocks(jvm, data, path.name)[index]
            rows = collect(spark, jvm.io.hudimeta.avro.AvroInspector.toExternalRows(
                block.parquetRows(jschema), jschema), jschema)
            assert [plain(r) for r in rows] == [plain(r) for r in table.to_pylist()], path
            checked += 1
    assert checked == 7  # LOG-PARQUET and the v6 MOR tables, nested types included


def test_parquet_block_pruned_with_missing_column(spark, jvm):
    from pyspark.sql.types import LongType, StringType, StructField, StructType

    (block,) = read_blocks(jvm, fixture_log("valid_log_parquet_data").read_bytes())
    wanted = StructType([StructField("rider", StringType()), StructField("absent", LongType()),
                         StructField("ts", LongType())])
    jschema = jvm.org.apache.spark.sql.types.DataType.fromJson(wanted.json())
    rows = collect(spark, jvm.io.hudimeta.avro.AvroInspector.toExternalRows(
        block.parquetRows(jschema), jschema), jschema)
    assert [tuple(r) for r in rows] == [("rider-A", None, 1695159649088)]


def test_delete_block_fixture(jvm):
    data = fixture_log("valid_log_delete").read_bytes()
    (expected,) = oracle_blocks(data)
    (block,) = read_blocks(jvm, data)
    deletes = [(d.recordKey(), d.partitionPath(), d.orderingValue())
               for d in as_list(block.deleteRecords())]
    assert deletes == oracle_deletes(expected)
    assert [d[0] for d in deletes] == ["e96c4396-3fad-413a-a942-4cb36106d721",
                                       "9909a8b1-2d15-4d3d-8ec9-efc48c536a00",
                                       "334e26e9-8355-45cc-97c6-c31daf0df330"]
    assert {d[1] for d in deletes} == {"city=san_francisco"}
    assert {d[2] for d in deletes} == {0}  # IntWrapper(0): no ordering value of its own


@pytest.mark.parametrize("table", ["quickstart_trips_table_mor_avro__v8_trips_8i3u1d",
                                   "sample_table_mor_avro__v9_txns_simple_meta"])
def test_delete_blocks_of_data_and_metadata_tables(jvm, fixture_tables, table):
    kinds = set()
    for path in table_logs(fixture_tables, table):
        data = path.read_bytes()
        for index, expected in enumerate(oracle_blocks(data)):
            if expected["type"] != "DELETE":
                continue
            block = read_blocks(jvm, data, path.name)[index]
            deletes = [(d.recordKey(), d.partitionPath(), d.orderingValue())
                       for d in as_list(block.deleteRecords())]
            assert deletes == oracle_deletes(expected), path
            in_mdt = "/.hoodie/metadata/" in str(path)
            kinds.add(("mdt" if in_mdt else "data", bool(deletes)))
            if in_mdt and deletes:  # record/secondary-index deletes name their MDT partition
                assert {d[1] for d in deletes} <= {p.name for p in path.parents}
    assert ("data", True) in kinds
    assert ("mdt", False) in kinds  # the empty bootstrap delete blocks
    assert ("mdt", True) in kinds


@pytest.mark.parametrize("table", ["quickstart_trips_table_mor_avro__v8_trips_8i3u1d",
                                   "sample_table_mor_avro__v9_txns_simple_meta"])
def test_hfile_blocks_hand_back_raw_content(jvm, fixture_tables, table):
    """Metadata-table HFile blocks (v8: HBase-written, v9: Hudi-native), a few per table."""
    checked = 0
    for path in table_logs(fixture_tables, table):
        if "/.hoodie/metadata/" not in str(path) or checked == 6:
            continue
        data = path.read_bytes()
        for index, expected in enumerate(oracle_blocks(data)):
            if expected["type"] == "HFILE_DATA":
                block = read_blocks(jvm, data, path.name)[index]
                content = bytes(block.hfileContent())
                assert content == expected["content"]
                assert content.startswith(b"DATABLK*")
                assert "HoodieMetadataRecord" in block.header(
                    jvm.io.hudimeta.log.HeaderKey.SCHEMA)
                checked += 1
    assert checked == 6


def test_wrong_decoder_for_block_type_fails_clearly(jvm):
    (block,) = read_blocks(jvm, fixture_log("valid_log_avro_data").read_bytes())
    with pytest.raises(Exception) as excinfo:
        block.deleteRecords()
    assert "expected a DELETE block" in java_error(excinfo)
    assert "AVRO_DATA" in java_error(excinfo)


# ---- damaged files -------------------------------------------------------------------------

@pytest.fixture(scope="module")
def three_blocks() -> tuple[bytes, list[dict]]:
    """A valid multi-block log: the Avro, delete and rollback fixtures back to back."""
    data = b"".join(fixture_log(k).read_bytes() for k in
                    ["valid_log_avro_data", "valid_log_delete", "valid_log_rollback"])
    return data, oracle_blocks(data)


def block_summary(blocks) -> list[tuple]:
    return [(b.type().name(), b.instantTime(), len(b.content())) for b in blocks]


def expected_summary(expected) -> list[tuple]:
    return [(e["type"], e["header"]["INSTANT_TIME"], len(e["content"])) for e in expected]


def test_truncated_last_block_is_dropped(jvm, three_blocks):
    data, expected = three_blocks
    last = expected[-1]["offset"]
    for cut in [last + 3, last + 10, last + 40, len(data) - 1]:
        blocks = read_blocks(jvm, data[:cut])
        assert block_summary(blocks) == expected_summary(expected[:2]), cut


def test_truncated_middle_of_data_block(jvm, three_blocks):
    data, expected = three_blocks
    cut = expected[1]["offset"] + 100  # inside the delete block's content
    assert block_summary(read_blocks(jvm, data[:cut])) == expected_summary(expected[:1])


def test_garbage_after_and_between_blocks_is_skipped(jvm, three_blocks):
    data, expected = three_blocks
    garbage = b"\x00garbage\xff" * 7
    assert block_summary(read_blocks(jvm, data + garbage)) == expected_summary(expected)
    assert block_summary(read_blocks(jvm, garbage + data)) == expected_summary(expected)
    second = expected[1]["offset"]
    spliced = data[:second] + garbage + data[second:]
    assert block_summary(read_blocks(jvm, spliced)) == expected_summary(expected)


def test_torn_block_followed_by_intact_block(jvm, three_blocks):
    """A block cut short by a crash, then a retried write: the reader resyncs on the magic."""
    data, expected = three_blocks
    second, third = expected[1]["offset"], expected[2]["offset"]
    torn = data[:second + 60] + data[third:]
    assert block_summary(read_blocks(jvm, torn)) == expected_summary([expected[0], expected[2]])


def test_mismatched_trailing_length_is_corrupt(jvm, three_blocks):
    data, expected = three_blocks
    trailer = expected[2]["offset"] - 8  # trailing length of the delete block
    broken = bytearray(data)
    broken[trailer:trailer + 8] = struct.pack(">q", 12345)
    assert block_summary(read_blocks(jvm, bytes(broken))) == expected_summary(
        [expected[0], expected[2]])


def test_block_length_past_eof(jvm, three_blocks):
    data, expected = three_blocks
    broken = bytearray(data)
    last = expected[2]["offset"]
    broken[last + 6:last + 14] = struct.pack(">q", 10 ** 9)
    assert block_summary(read_blocks(jvm, bytes(broken))) == expected_summary(expected[:2])


def test_truncated_file_through_filesystem(spark, jvm, three_blocks, tmp_path):
    data, expected = three_blocks
    path = tmp_path / ".f1-0_20250101000000000.log.1_0-1-1"
    path.write_bytes(data[:-5])
    fs = jvm.org.apache.hadoop.fs.FileSystem.getLocal(spark._jsc.hadoopConfiguration())
    blocks = as_list(jvm.io.hudimeta.log.LogFileReader.read(fs, jvm.org.apache.hadoop.fs.Path(
        path.as_uri())))
    assert block_summary(blocks) == expected_summary(expected[:2])


def test_empty_and_tiny_inputs(jvm):
    assert read_blocks(jvm, b"") == []
    assert read_blocks(jvm, b"#HUDI#") == []
    assert read_blocks(jvm, b"#HU") == []


# ---- blocks we read but cannot merge -------------------------------------------------------

def encode_block(type_id: int, header: dict[int, str], content: bytes = b"",
                 version: int = 1) -> bytes:
    def encode_map(entries: dict[int, str]) -> bytes:
        out = struct.pack(">i", len(entries))
        for key, value in entries.items():
            raw = value.encode()
            out += struct.pack(">ii", key, len(raw)) + raw
        return out

    body = (struct.pack(">ii", version, type_id) + encode_map(header)
            + struct.pack(">q", len(content)) + content + encode_map({}))
    block_length = len(body) + 8
    return b"#HUDI#" + struct.pack(">q", block_length) + body + struct.pack(
        ">q", block_length + 6)


def test_encoder_agrees_with_fixture_bytes():
    """The synthetic-block encoder below reproduces a real file byte for byte."""
    data = fixture_log("valid_log_rollback").read_bytes()
    (block,) = oracle_blocks(data)
    ids = {name: i for i, name in enumerate(HEADER_KEYS)}
    header = {ids[k]: v for k, v in block["header"].items()}  # keeps the on-disk entry order
    assert encode_block(0, header) == data


def test_partial_update_block_is_flagged(jvm):
    avro = oracle_blocks(fixture_log("valid_log_avro_data").read_bytes())[0]
    header = {0: avro["header"]["INSTANT_TIME"], 2: avro["header"]["SCHEMA"], 7: "true"}
    (block,) = read_blocks(jvm, encode_block(3, header, avro["content"]))
    assert block.isPartial()
    assert "partial-update" in block.unsupportedReason()
    with pytest.raises(Exception) as excinfo:
        block.checkSupported()
    assert "partial-update log blocks (IS_PARTIAL=true) are not supported" in java_error(excinfo)
    # decoding under its own schema still works; anything that would fill absent columns does not
    assert block.avroRecords().size() == 1
    schema = spark_schema(jvm, block)
    with pytest.raises(Exception, match="partial-update"):
        block.avroRows(schema)
    with pytest.raises(Exception, match="partial-update"):
        block.avroRecords(block.writerSchema())


def test_cdc_block_is_flagged(jvm):
    (block,) = read_blocks(jvm, encode_block(6, {0: "20250101000000000"}, b"\x00" * 8))
    assert block.type().name() == "CDC_DATA"
    with pytest.raises(Exception) as excinfo:
        block.checkSupported()
    assert "CDC log blocks are not supported" in java_error(excinfo)
    plain_block = read_blocks(jvm, fixture_log("valid_log_delete").read_bytes())[0]
    assert plain_block.unsupportedReason() is None


def test_unknown_type_or_header_key_is_an_error_not_corruption(jvm):
    with pytest.raises(Exception) as excinfo:
        read_blocks(jvm, encode_block(9, {0: "20250101000000000"}))
    assert "unknown log block type id 9" in java_error(excinfo)
    with pytest.raises(Exception) as excinfo:
        read_blocks(jvm, encode_block(3, {42: "x"}))
    assert "unknown log block header key id 42" in java_error(excinfo)
