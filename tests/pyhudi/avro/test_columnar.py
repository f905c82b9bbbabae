"""The column-at-a-time Avro encoder writes the bytes fastavro writes record by record, and declines
(None) what it does not encode so the caller falls back."""
import datetime
import io

import fastavro
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pyhudi.avro import columnar
from pyhudi.avro.schema import avro_to_arrow, compiled, to_json
from pyhudi.log import builders as L
from pyhudi.log.avro_content import (
    COLUMNAR_MIN_ROWS,
    decode_avro_content,
    encode_avro_content,
    encode_avro_records,
    encode_avro_table,
)

I32, I64 = (-2**31, 2**31 - 1), (-2**63, 2**63 - 1)
# (Avro type, Arrow type, values)
FIELDS = {
    "i": ("int", pa.int32(), st.integers(*I32)),
    "small": ("int", pa.int16(), st.integers(-2**15, 2**15 - 1)),
    "l": ("long", pa.int64(), st.integers(*I64)),
    "d": ("double", pa.float64(), st.floats(allow_nan=False)),
    "f": ("float", pa.float32(), st.floats(width=32, allow_nan=False)),
    "b": ("boolean", pa.bool_(), st.booleans()),
    "s": ("string", pa.string(), st.text(max_size=300)),
    "raw": ("bytes", pa.binary(), st.binary(max_size=200)),
    "day": ({"type": "int", "logicalType": "date"}, pa.date32(),
            st.dates(datetime.date(1, 1, 1), datetime.date(9999, 12, 31))),
    "ts": ({"type": "long", "logicalType": "timestamp-micros"}, pa.timestamp("us", "UTC"),
           st.integers(-2**55, 2**55)),
    "local": ({"type": "long", "logicalType": "local-timestamp-millis"}, pa.timestamp("ms"),
              st.integers(-2**40, 2**40)),
}


def _schema(names, nullable):
    fields = [{"name": n, "type": ["null", FIELDS[n][0]] if nullable else FIELDS[n][0]} for n in names]
    return {"type": "record", "name": "r", "namespace": "hoodie.t", "fields": fields}


def _fastavro(table: pa.Table, schema: dict) -> list[bytes]:
    return encode_avro_records(table.to_pylist(), to_json(schema))


@st.composite
def tables(draw):
    names = draw(st.lists(st.sampled_from(sorted(FIELDS)), min_size=1, max_size=6, unique=True))
    nullable = draw(st.booleans())
    n = draw(st.integers(0, 40))
    cols = {}
    for name in names:
        values = draw(st.lists(FIELDS[name][2], min_size=n, max_size=n))
        if nullable:
            values = [None if draw(st.booleans()) else v for v in values]
        cols[name] = pa.array(values, FIELDS[name][1]) if not pa.types.is_timestamp(FIELDS[name][1]) \
            else pa.array(values, pa.int64()).cast(FIELDS[name][1])
    return pa.table(cols), _schema(names, nullable)


@settings(max_examples=150, deadline=None)
@given(tables())
def test_rows_equal_fastavro_bytes(case):
    table, schema = case
    rows = columnar.encode_rows(table, schema)
    assert rows is not None
    assert rows.to_pylist() == _fastavro(table, schema)


def test_block_content_equals_the_record_by_record_content():
    schema = _schema(["s", "l", "d", "b"], nullable=True)
    table = pa.table({"s": ["é" * 70, None, ""], "l": [-1, 2**62, None], "d": [0.5, None, -1e300],
                      "b": [True, False, None]})
    table = pa.concat_tables([table] * COLUMNAR_MIN_ROWS)  # fewer rows go through fastavro
    content = L.avro_data_block(table, to_json(schema), "20260101000000000").content
    assert content == encode_avro_content(_fastavro(table, schema))
    records = decode_avro_content(content)
    assert [fastavro.schemaless_reader(io.BytesIO(r), compiled(to_json(schema))) for r in records] == \
        table.to_pylist()
    assert encode_avro_table(table, to_json(schema)) == content  # the columnar path wrote it
    assert encode_avro_table(table.slice(0, COLUMNAR_MIN_ROWS - 1), to_json(schema)) is None
    assert columnar.framed(columnar.encode_rows(table.slice(0, 0), schema)) == b""


@pytest.mark.parametrize("avro_type, column", [
    ({"type": "record", "name": "x", "fields": [{"name": "a", "type": "int"}]}, pa.array([{"a": 1}])),
    ({"type": "bytes", "logicalType": "decimal", "precision": 4, "scale": 1}, pa.array([b"\x01"])),
    ("long", pa.array([1], pa.uint64())),  # unsigned: not a Spark type
    ("int", pa.array([1], pa.int64())),  # wider than the field
    ({"type": "long", "logicalType": "timestamp-micros"}, pa.array([1], pa.timestamp("ns"))),  # another unit
    ("string", pa.array([b"x"])),
    (["null", "string", "long"], pa.array(["x"])),
    ("string", pa.array(["x", None])),  # a null in a field that holds none: fastavro's error to raise
])
def test_declines_what_it_does_not_encode(avro_type, column):
    schema = {"type": "record", "name": "r", "fields": [{"name": "c", "type": avro_type}]}
    assert columnar.encode_rows(pa.table({"c": column}), schema) is None
    assert columnar.encode_rows(pa.table({"other": [1]}), schema) is None  # a missing column


def test_log_writers_schema_falls_back_for_nested_fields_with_the_same_bytes():
    schema = {"type": "record", "name": "r", "fields": [
        {"name": "k", "type": ["null", "string"], "default": None},
        {"name": "tags", "type": ["null", {"type": "array", "items": ["null", "string"]}], "default": None}]}
    table = pa.Table.from_pylist([{"k": "a", "tags": ["x", None]}, {"k": None, "tags": None}],
                                 schema=avro_to_arrow(schema))
    assert columnar.encode_rows(table, schema) is None
    content = L.avro_data_block(table, to_json(schema), "20260101000000000").content
    assert content == encode_avro_content(_fastavro(table, schema))
