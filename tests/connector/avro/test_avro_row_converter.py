"""io.hudimeta.avro: Avro → Spark type mapping and record conversion.

Records are written with fastavro (an independent Avro implementation), decoded and converted in
the JVM, and come back through a real DataFrame so values are compared as Python objects.
"""
from __future__ import annotations

import datetime
import io
import json
import uuid
from decimal import Decimal

import fastavro
import pytest
from pyspark.sql import DataFrame
from pyspark.sql.types import (ArrayType, BinaryType, BooleanType, ByteType, DateType,
                               DecimalType, DoubleType, FloatType, IntegerType, LongType,
                               MapType, ShortType, StringType, StructField, StructType,
                               TimestampNTZType, TimestampType)

UTC = datetime.timezone.utc


def logical(base, name, **extra):
    return {"type": base, "logicalType": name, **extra}


def nullable(avro_type):
    return ["null", avro_type]


ADDRESS = {"type": "record", "name": "Address", "fields": [
    {"name": "street", "type": "string"},
    {"name": "zip", "type": nullable("int"), "default": None}]}

ALL_TYPES = {"type": "record", "name": "AllTypes", "namespace": "test", "fields": [
    {"name": "b", "type": "boolean"},
    {"name": "i", "type": "int"},
    {"name": "l", "type": "long"},
    {"name": "f", "type": "float"},
    {"name": "d", "type": "double"},
    {"name": "s", "type": nullable("string"), "default": None},
    {"name": "raw", "type": "bytes"},
    {"name": "fx", "type": {"type": "fixed", "name": "Four", "size": 4}},
    {"name": "color", "type": {"type": "enum", "name": "Color", "symbols": ["RED", "GREEN"]}},
    {"name": "address", "type": nullable(ADDRESS), "default": None},
    {"name": "tags", "type": {"type": "array", "items": nullable("string")}},
    {"name": "scores", "type": {"type": "map", "values": "long"}},
    {"name": "people", "type": {"type": "array", "items": {
        "type": "record", "name": "Person", "fields": [
            {"name": "name", "type": "string"},
            {"name": "nick", "type": {"type": "map", "values": nullable("double")}}]}}},
    {"name": "dec_bytes", "type": logical("bytes", "decimal", precision=10, scale=2)},
    {"name": "dec_fixed", "type": nullable({"type": "fixed", "name": "Dec", "size": 9,
                                            "logicalType": "decimal", "precision": 20,
                                            "scale": 4})},
    {"name": "day", "type": logical("int", "date")},
    {"name": "ts_millis", "type": logical("long", "timestamp-millis")},
    {"name": "ts_micros", "type": nullable(logical("long", "timestamp-micros"))},
    {"name": "lts_millis", "type": logical("long", "local-timestamp-millis")},
    {"name": "lts_micros", "type": logical("long", "local-timestamp-micros")},
    {"name": "t_millis", "type": logical("int", "time-millis")},
    {"name": "t_micros", "type": logical("long", "time-micros")},
    {"name": "id", "type": logical("string", "uuid")},
]}

ALL_TYPES_SPARK = StructType([
    StructField("b", BooleanType(), False),
    StructField("i", IntegerType(), False),
    StructField("l", LongType(), False),
    StructField("f", FloatType(), False),
    StructField("d", DoubleType(), False),
    StructField("s", StringType(), True),
    StructField("raw", BinaryType(), False),
    StructField("fx", BinaryType(), False),
    StructField("color", StringType(), False),
    StructField("address", StructType([StructField("street", StringType(), False),
                                       StructField("zip", IntegerType(), True)]), True),
    StructField("tags", ArrayType(StringType(), True), False),
    StructField("scores", MapType(StringType(), LongType(), False), False),
    StructField("people", ArrayType(StructType([
        StructField("name", StringType(), False),
        StructField("nick", MapType(StringType(), DoubleType(), True), False)]), False), False),
    StructField("dec_bytes", DecimalType(10, 2), False),
    StructField("dec_fixed", DecimalType(20, 4), True),
    StructField("day", DateType(), False),
    StructField("ts_millis", TimestampType(), False),
    StructField("ts_micros", TimestampType(), True),
    StructField("lts_millis", TimestampNTZType(), False),
    StructField("lts_micros", TimestampNTZType(), False),
    StructField("t_millis", LongType(), False),
    StructField("t_micros", LongType(), False),
    StructField("id", StringType(), False),
])

FULL = {
    "b": True, "i": -7, "l": 1 << 40, "f": 1.5, "d": -2.25, "s": "héllo",
    "raw": b"\x00\x01\xff", "fx": b"abcd", "color": "GREEN",
    "address": {"street": "Main St", "zip": 12345},
    "tags": ["a", None, "c"], "scores": {"x": 1, "y": -2},
    "people": [{"name": "ann", "nick": {"p": 0.5, "q": None}}],
    "dec_bytes": Decimal("-12345678.91"), "dec_fixed": Decimal("1234567890123456.7891"),
    "day": datetime.date(2024, 2, 29),
    "ts_millis": datetime.datetime(2024, 3, 1, 12, 0, 0, 123000, tzinfo=UTC),
    "ts_micros": datetime.datetime(1969, 12, 31, 23, 59, 59, 999999, tzinfo=UTC),
    "lts_millis": datetime.datetime(2024, 3, 1, 12, 0, 0, 456000),
    "lts_micros": datetime.datetime(2000, 1, 2, 3, 4, 5, 678901),
    "t_millis": datetime.time(1, 2, 3, 4000), "t_micros": datetime.time(23, 59, 59, 999999),
    "id": str(uuid.UUID("12345678-1234-5678-1234-567812345678")),
}
SPARSE = {**FULL, "s": None, "address": None, "tags": [], "scores": {}, "people": [],
          "dec_fixed": None, "ts_micros": None}


def avro_bytes(schema: dict, records: list[dict]) -> bytes:
    parsed = fastavro.parse_schema(schema)
    out = io.BytesIO()
    for record in records:
        fastavro.schemaless_writer(out, parsed, record)
    return out.getvalue()


def convert(spark, schema: dict, records: list[dict], requested: StructType | None = None):
    """Decode + convert in the JVM; rows come back through a DataFrame."""
    jvm = spark._jvm
    inspector = jvm.io.hudimeta.avro.AvroInspector
    requested_json = None if requested is None else requested.json()
    jrows = inspector.decode(json.dumps(schema), avro_bytes(schema, records), requested_json)
    spark_type = requested or StructType.fromJson(
        json.loads(inspector.sparkSchemaJson(json.dumps(schema))))
    jschema = jvm.org.apache.spark.sql.types.DataType.fromJson(spark_type.json())
    return DataFrame(spark._jsparkSession.createDataFrame(jrows, jschema), spark).collect()


def epoch_micros(value: datetime.datetime) -> int:
    """Epoch microseconds of an aware datetime, or of a naive one read as local time."""
    return round(value.timestamp() * 1_000_000)


def spark_schema_of(spark, avro_schema: dict) -> StructType:
    return StructType.fromJson(json.loads(
        spark._jvm.io.hudimeta.avro.AvroInspector.sparkSchemaJson(json.dumps(avro_schema))))


# ---- schema mapping ------------------------------------------------------------------------

def test_schema_mapping_covers_every_type(spark):
    assert spark_schema_of(spark, ALL_TYPES) == ALL_TYPES_SPARK


def test_hudi_log_schema_maps_like_the_table(spark):
    """A Hudi writer schema: nullable meta fields, fixed decimals, dates, timestamps."""
    hudi = {"type": "record", "name": "r", "namespace": "hoodie.t", "fields": [
        {"name": "_hoodie_commit_time", "type": ["null", "string"], "doc": "", "default": None},
        {"name": "amount", "type": ["null", {"type": "fixed", "name": "fixed",
                                             "namespace": "hoodie.t.r.amount", "size": 7,
                                             "logicalType": "decimal", "precision": 15,
                                             "scale": 2}], "default": None},
        {"name": "txn_date", "type": ["null", logical("int", "date")], "default": None}]}
    assert spark_schema_of(spark, hudi) == StructType([
        StructField("_hoodie_commit_time", StringType(), True),
        StructField("amount", DecimalType(15, 2), True),
        StructField("txn_date", DateType(), True)])


@pytest.mark.parametrize("field_type, message", [
    (["int", "string"], "only unions of null and one type"),
    (["null", "int", "string"], "only unions of null and one type"),
    (logical("bytes", "decimal", precision=40, scale=2), "exceeds Spark's maximum precision 38"),
    ({"type": "record", "name": "Node", "fields": [
        {"name": "next", "type": ["null", "Node"]}]}, "recursive Avro record Node"),
])
def test_unsupported_schemas_fail_clearly(spark, field_type, message):
    schema = {"type": "record", "name": "Bad", "fields": [{"name": "x", "type": field_type}]}
    with pytest.raises(Exception) as excinfo:
        spark_schema_of(spark, schema)
    assert message in str(excinfo.value)
    assert "Bad.x" in str(excinfo.value)


# ---- record conversion ---------------------------------------------------------------------

def test_every_type_converts(spark):
    full, sparse = convert(spark, ALL_TYPES, [FULL, SPARSE])
    assert (full.b, full.i, full.l, full.f, full.d, full.s) == (True, -7, 1 << 40, 1.5, -2.25,
                                                                "héllo")
    assert (bytes(full.raw), bytes(full.fx), full.color) == (b"\x00\x01\xff", b"abcd", "GREEN")
    assert full.address.asDict() == {"street": "Main St", "zip": 12345}
    assert full.tags == ["a", None, "c"]
    assert full.scores == {"x": 1, "y": -2}
    assert full.people[0].name == "ann" and full.people[0].nick == {"p": 0.5, "q": None}
    assert full.dec_bytes == Decimal("-12345678.91")
    assert full.dec_fixed == Decimal("1234567890123456.7891")
    assert full.day == datetime.date(2024, 2, 29)
    assert epoch_micros(full.ts_millis) == epoch_micros(FULL["ts_millis"])
    assert epoch_micros(full.ts_micros) == -1  # one microsecond before the epoch
    assert full.lts_millis == FULL["lts_millis"]  # TimestampNTZ: wall-clock, no zone shift
    assert full.lts_micros == FULL["lts_micros"]
    assert full.t_millis == 3_723_004  # raw Avro value: milliseconds of the day
    assert full.t_micros == 86_399_999_999  # raw Avro value: microseconds of the day
    assert full.id == "12345678-1234-5678-1234-567812345678"

    assert (sparse.s, sparse.address, sparse.dec_fixed, sparse.ts_micros) == (None,) * 4
    assert (sparse.tags, sparse.scores, sparse.people) == ([], {}, [])


def test_requested_schema_prunes_reorders_and_fills_missing(spark):
    requested = StructType([
        StructField("address", StructType([StructField("zip", IntegerType()),
                                           StructField("country", StringType())])),
        StructField("added_later", StringType()),
        StructField("L", LongType()),  # case-insensitive match of "l"
        StructField("i", LongType()),  # int widened to long
        StructField("f", DoubleType()),  # float widened to double
        StructField("people", ArrayType(StructType([StructField("name", StringType())]))),
    ])
    (row,) = convert(spark, ALL_TYPES, [FULL], requested)
    assert row.asDict(recursive=True) == {
        "address": {"zip": 12345, "country": None}, "added_later": None, "L": 1 << 40,
        "i": -7, "f": 1.5, "people": [{"name": "ann"}]}


def test_evolution_widenings(spark):
    schema = {"type": "record", "name": "Old", "fields": [
        {"name": "small", "type": "int"}, {"name": "tiny", "type": "int"},
        {"name": "n", "type": "long"}, {"name": "money", "type": logical(
            "bytes", "decimal", precision=5, scale=2)},
        {"name": "as_text", "type": "double"}, {"name": "blob", "type": "string"},
        {"name": "to_dec", "type": "int"}]}
    requested = StructType([
        StructField("small", ShortType()), StructField("tiny", ByteType()),
        StructField("n", DoubleType()), StructField("money", DecimalType(12, 4)),
        StructField("as_text", StringType()), StructField("blob", BinaryType()),
        StructField("to_dec", DecimalType(10, 0))])
    record = {"small": 300, "tiny": -5, "n": 7, "money": Decimal("123.45"), "as_text": 0.5,
              "blob": "é", "to_dec": 42}
    (row,) = convert(spark, schema, [record], requested)
    assert tuple(row) == (300, -5, 7.0, Decimal("123.4500"), "0.5", bytearray("é".encode()),
                          Decimal(42))


def test_incompatible_requested_type_names_the_field(spark):
    requested = StructType([StructField("address", StructType([
        StructField("street", IntegerType())]))])
    with pytest.raises(Exception) as excinfo:
        convert(spark, ALL_TYPES, [FULL], requested)
    assert "cannot read Avro STRING at AllTypes.address.street as Spark int" in str(
        excinfo.value)


def test_converter_is_built_once_per_schema(spark):
    """Many records through one converter (the plan is reused; values stay independent)."""
    schema = {"type": "record", "name": "R", "fields": [
        {"name": "k", "type": "string"}, {"name": "v", "type": {"type": "array",
                                                                "items": "int"}}]}
    records = [{"k": f"key-{i}", "v": list(range(i % 4))} for i in range(500)]
    rows = convert(spark, schema, records)
    assert [(r.k, r.v) for r in rows] == [(r["k"], r["v"]) for r in records]
