import json
from pathlib import Path

import fastavro
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from conftest import TABLE_NAMES
from pyhudi.avro import schema as A
from pyhudi.table import properties

COMPLEX = "sample_table_cow__v8_complexkeygen_hivestyle"


def _nullable_elements(t: pa.DataType) -> pa.DataType:
    """Hudi's parquet-avro files use 2-level lists, which read back with non-null elements; the
    Spark schema the create schema came from had nullable elements (containsNull=true)."""
    if pa.types.is_struct(t):
        return pa.struct([pa.field(f.name, _nullable_elements(f.type), f.nullable) for f in t])
    if pa.types.is_map(t):
        item = t.item_field
        return pa.map_(t.key_type, pa.field(item.name, _nullable_elements(item.type), item.nullable))
    if pa.types.is_list(t):
        return pa.list_(pa.field("element", _nullable_elements(t.value_type), True))
    return t


def _data_schema(parquet_schema: pa.Schema) -> pa.Schema:
    return pa.schema([pa.field(f.name, _nullable_elements(f.type), f.nullable)
                      for f in parquet_schema if f.name not in A.META_FIELDS])


def _tables(fixture_tables):
    """(table name, properties, one data Parquet file) per fixture table that has data files."""
    for name in TABLE_NAMES:
        base = Path(fixture_tables[name])
        props = properties.parse((base / ".hoodie" / "hoodie.properties").read_text())
        files = sorted(f for f in base.rglob("*.parquet") if "__MACOSX" not in f.parts)
        if files:
            yield name, props, files[-1]


def test_create_schema_of_every_fixture_table_is_reproduced(fixture_tables):
    seen = 0
    for name, props, f in _tables(fixture_tables):
        data = _data_schema(pq.read_schema(f))
        got = A.to_json(A.arrow_to_avro(data, props["hoodie.table.name"], A.CREATE))
        assert got == props["hoodie.table.create.schema"], name
        seen += 1
    assert seen >= 25


def test_writer_schema_with_meta_fields_matches_parquet_footers(fixture_tables):
    seen = 0
    for name, props, f in _tables(fixture_tables):
        footer = (pq.ParquetFile(f).metadata.metadata or {}).get(b"parquet.avro.schema")
        if footer is None:  # files from Spark's row writer carry no Avro schema
            continue
        data = _data_schema(pq.read_schema(f))
        got = A.with_meta_fields(A.arrow_to_avro(data, props["hoodie.table.name"]))
        assert A.to_json(got) == footer.decode(), name
        seen += 1
    assert seen >= 15


def test_every_type_in_the_complex_fixture(fixture_tables):
    base = Path(fixture_tables[COMPLEX])
    props = properties.parse((base / ".hoodie" / "hoodie.properties").read_text())
    create = json.loads(props["hoodie.table.create.schema"])
    types = {f["name"]: f["type"] for f in create["fields"]}
    assert types["decimalField"][0] == {
        "type": "fixed", "name": "fixed", "size": 5, "logicalType": "decimal", "precision": 10, "scale": 5,
        "namespace": "hoodie.v8_complexkeygen_hivestyle.v8_complexkeygen_hivestyle_record.decimalField"}
    # writer style == the schema in the commit metadata
    commit = sorted((base / ".hoodie" / "timeline").glob("*_*.commit"))[0]
    with commit.open("rb") as fh:
        commit_schema = next(fastavro.reader(fh))["extraMetadata"]["schema"]
    assert A.to_json(A.to_writer_style(create)) == commit_schema
    arrow = A.avro_to_arrow(create)
    again = A.arrow_to_avro(arrow, "v8_complexkeygen_hivestyle", A.CREATE)
    assert A.to_json(again) == props["hoodie.table.create.schema"]


def test_avro_to_arrow_matches_fixture_parquet_schemas(fixture_tables):
    for name, _props, f in _tables(fixture_tables):
        footer = (pq.ParquetFile(f).metadata.metadata or {}).get(b"parquet.avro.schema")
        if footer is None:
            continue
        expected = pq.read_schema(f)
        got = A.avro_to_arrow(footer.decode())
        assert got.names == expected.names, name
        for g, e in zip(got, expected):
            assert g.type == _nullable_elements(e.type) and g.nullable == e.nullable, (name, g.name)


def test_avro_round_trip_is_stable():
    sch = pa.schema([
        pa.field("k", pa.string(), nullable=False),
        pa.field("b", pa.int8()), pa.field("s", pa.int16()), pa.field("u", pa.large_string()),
        pa.field("ntz", pa.timestamp("us")), pa.field("tz", pa.timestamp("ns", tz="Asia/Tokyo")),
        pa.field("bin", pa.large_binary()), pa.field("dec", pa.decimal128(38, 2)),
        pa.field("nest", pa.struct([pa.field("d", pa.decimal128(5, 1)),
                                    pa.field("l", pa.list_(pa.field("x", pa.int64(), False)))])),
        pa.field("m", pa.map_(pa.string(), pa.list_(pa.struct([("q", pa.date32())])))),
        pa.field("n", pa.null()),
    ])
    w = A.arrow_to_avro(sch, "t")
    fastavro.parse_schema(w)  # a valid Avro schema
    fields = {f["name"]: f for f in w["fields"]}
    assert fields["k"] == {"name": "k", "type": "string"}
    assert fields["b"]["type"] == ["null", "int"] and fields["b"]["default"] is None
    assert fields["ntz"]["type"][1] == {"type": "long", "logicalType": "local-timestamp-micros"}
    assert fields["tz"]["type"][1] == {"type": "long", "logicalType": "timestamp-micros"}
    assert fields["dec"]["type"][1]["size"] == 16
    assert fields["nest"]["type"][1]["fields"][0]["type"][1]["namespace"] == "hoodie.t.t_record.nest.d"
    assert fields["nest"]["type"][1]["fields"][1]["type"][1] == {"type": "array", "items": "long"}
    assert fields["n"] == {"name": "n", "type": "null"}
    back = A.avro_to_arrow(w)
    assert A.arrow_to_avro(back, "t") == w
    assert back.field("b").type == pa.int32() and back.field("tz").type == pa.timestamp("us", tz="UTC")


def test_meta_fields_form():
    w = A.with_meta_fields(A.arrow_to_avro(pa.schema([("a", pa.int64())]), "t"), with_operation=True)
    assert [f["name"] for f in w["fields"]] == [*A.META_FIELDS, "_hoodie_operation", "a"]
    assert w["fields"][0] == {"name": "_hoodie_commit_time", "type": ["null", "string"], "doc": "", "default": None}
    assert A.with_meta_fields(w, with_operation=True) == w  # idempotent
    assert [f["name"] for f in A.without_meta_fields(w)["fields"]] == ["a"]
    assert A.to_json(w).startswith('{"type":"record","name":"t_record","namespace":"hoodie.t","fields":[')


def test_names_and_sizes():
    assert A.record_name("my-table.v2") == ("my__table__v2_record", "hoodie.my__table__v2")
    assert A.record_name("1abc") == ("__abc_record", "hoodie.__abc")
    # Spark's minBytesForPrecision
    assert [A.decimal_size(p) for p in (1, 2, 3, 9, 10, 18, 19, 38)] == [1, 1, 2, 4, 5, 8, 9, 16]


@pytest.mark.parametrize("t", [pa.map_(pa.int32(), pa.string()), pa.uint32(), pa.float16(),
                               pa.time64("us"), pa.decimal256(50, 2)])
def test_unsupported_arrow_types(t):
    with pytest.raises(A.AvroSchemaError):
        A.arrow_to_avro(pa.schema([("c", t)]), "t")


def test_unsupported_avro():
    bad = {"type": "record", "name": "r", "fields": [{"name": "u", "type": ["int", "string"]}]}
    with pytest.raises(A.AvroSchemaError, match="unions"):
        A.avro_to_arrow(bad)
    with pytest.raises(A.AvroSchemaError, match="unknown named type"):
        A.avro_to_arrow({"type": "record", "name": "r", "fields": [{"name": "x", "type": "Missing"}]})
