import datetime as dt
import decimal
import io
import json
import os
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from pyhudi.avro import schema as A
from pyhudi.basefile import bloom
from pyhudi.basefile import parquet as B

UTC = dt.timezone.utc
COMMIT = "20250101120000000"
FILE = "8aa68f7e-0000-4000-8000-000000000001-0_1-2-3_20250101120000000.parquet"

SCHEMA = pa.schema([
    ("id", pa.int32()), ("name", pa.string()), ("isActive", pa.bool_()), ("longField", pa.int64()),
    ("floatField", pa.float32()), ("doubleField", pa.float64()), ("decimalField", pa.decimal128(10, 5)),
    ("dateField", pa.date32()), ("timestampField", pa.timestamp("us", tz="UTC")),
    ("ntz", pa.timestamp("us")), ("binaryField", pa.binary()), ("byteField", pa.int8()),
    ("arrayField", pa.list_(pa.struct([("f1", pa.string()), ("f2", pa.int32())]))),
    ("mapField", pa.map_(pa.string(), pa.struct([("v1", pa.float64()), ("v2", pa.bool_())]))),
    ("structField", pa.struct([("a", pa.string()), ("child", pa.struct([("c", pa.float64())]))])),
])

ROWS = [
    dict(id=1, name="Alice", isActive=True, longField=2**40, floatField=1.5, doubleField=2.25,
         decimalField=decimal.Decimal("12345.67890"), dateField=dt.date(2023, 4, 1),
         timestampField=dt.datetime(2023, 4, 1, 12, 1, 2, 345678, tzinfo=UTC),
         ntz=dt.datetime(2023, 4, 1, 12, 0), binaryField=b"\x00\xff", byteField=-3,
         arrayField=[{"f1": "x", "f2": 1}, None], mapField=[("k", {"v1": 1.0, "v2": False})],
         structField={"a": "s", "child": {"c": 0.5}}),
    dict(id=2, name="Bob", isActive=None, longField=None, floatField=None, doubleField=None,
         decimalField=decimal.Decimal("-0.00001"), dateField=None, timestampField=None, ntz=None,
         binaryField=None, byteField=None, arrayField=None, mapField=None, structField=None),
    dict(id=3, name="日本", isActive=False, longField=-1, floatField=0.0, doubleField=-1e300,
         decimalField=None, dateField=dt.date(1969, 12, 31),
         timestampField=dt.datetime(1960, 1, 1, tzinfo=UTC), ntz=None, binaryField=b"",
         byteField=127, arrayField=[], mapField=[], structField={"a": None, "child": None}),
]


def _table(keys):
    data = pa.Table.from_pylist(ROWS, schema=SCHEMA)
    return B.add_meta_columns(data, commit_time=COMMIT, partition_path="p=1", file_name=FILE,
                              record_keys=keys, partition_id=1)


def _writer_schema():
    return A.with_meta_fields(A.arrow_to_avro(SCHEMA, "tbl"))


def test_every_type_round_trips_with_hudi_footer(tmp_path):
    keys = ["id:1", "id:2", "id:3"]
    path = str(tmp_path / "p=1" / FILE)
    stats = B.write_base_file(path, _table(keys), _writer_schema())
    assert stats.file_size == os.path.getsize(path) and stats.num_records == 3
    assert (stats.min_record_key, stats.max_record_key) == ("id:1", "id:3")
    back = pq.read_table(path)
    assert back.column_names == [*A.META_FIELDS, *SCHEMA.names]
    rows = back.to_pylist()
    for got, want, key, n in zip(rows, ROWS, keys, range(3)):
        assert got["_hoodie_record_key"] == key
        assert got["_hoodie_commit_seqno"] == f"{COMMIT}_1_{n}"
        meta = (got["_hoodie_commit_time"], got["_hoodie_partition_path"], got["_hoodie_file_name"])
        assert meta == (COMMIT, "p=1", FILE)
        for col, value in want.items():
            assert got[col] == value, col

    footer = B.read_footer(path)
    assert footer["writer.model.name"] == "avro"
    assert footer["hoodie_bloom_filter_type_code"] == "DYNAMIC_V0"
    assert footer["parquet.avro.schema"] == A.to_json(_writer_schema())
    assert set(footer) == {"org.apache.hudi.bloomfilter", "hoodie_bloom_filter_type_code", "hoodie_min_record_key",
                           "hoodie_max_record_key", "parquet.avro.schema", "writer.model.name"}
    fk = B.read_footer_keys(path)
    assert (fk.min_record_key, fk.max_record_key) == ("id:1", "id:3")
    assert fk.bloom_filter.might_contain_all(keys) == [True] * 3
    assert fk.bloom_filter.serialize() == stats.bloom_filter.serialize()


def test_physical_layout(tmp_path):
    path = str(tmp_path / FILE)
    B.write_base_file(path, _table(["a", "b", "c"]), _writer_schema())
    md = pq.ParquetFile(path).metadata
    cols = {md.schema.column(i).path: md.schema.column(i) for i in range(md.num_columns)}
    assert cols["decimalField"].physical_type == "FIXED_LEN_BYTE_ARRAY" and cols["decimalField"].length == 5
    ts = json.loads(cols["timestampField"].logical_type.to_json())
    assert cols["timestampField"].physical_type == "INT64"
    assert (ts["Type"], ts["isAdjustedToUTC"], ts["timeUnit"]) == ("Timestamp", True, "microseconds")
    assert json.loads(cols["ntz"].logical_type.to_json())["isAdjustedToUTC"] is False
    assert cols["byteField"].physical_type == "INT32" and cols["byteField"].logical_type.type == "NONE"
    assert cols["dateField"].logical_type.type == "DATE"
    assert "arrayField.list.element.f1" in cols  # standard 3-level list
    assert {md.row_group(0).column(i).compression for i in range(md.num_columns)} == {"ZSTD"}
    assert b"ARROW:schema" not in md.metadata


def _dictionary_encoded(path) -> dict[str, bool]:
    md = pq.ParquetFile(path).metadata
    rg = md.row_group(0)
    return {rg.column(i).path_in_schema: "RLE_DICTIONARY" in rg.column(i).encodings for i in range(md.num_columns)}


def test_dictionary_only_where_the_first_rows_repeat(tmp_path):
    # parquet-mr's rule: a column gets a dictionary when it makes the first rows smaller than plain values
    n = 10_000
    data = pa.table({"ts": pa.array(range(n), pa.int64()), "uuid": pa.array([f"{i:036x}" for i in range(n)]),
                     "category": pa.array(["alpha", "beta", "gamma"] * (n // 3) + ["alpha"]),
                     "qty": pa.array([i % 7 for i in range(n)], pa.int32()),
                     "tags": pa.array([[i % 3] for i in range(n)], pa.list_(pa.int64())),
                     "late": pa.array([None] * (n - 1) + [1.5], pa.float64())})
    t = B.add_meta_columns(data, commit_time=COMMIT, partition_path="p=1", file_name=FILE,
                           record_keys=pa.array([f"k{i}" for i in range(n)]), partition_id=0)
    path = str(tmp_path / FILE)
    B.write_base_file(path, t, A.arrow_to_avro(data.schema, "t"))
    got = _dictionary_encoded(path)
    assert not got["ts"] and not got["uuid"] and not got["_hoodie_record_key"] and not got["_hoodie_commit_seqno"]
    assert got["category"] and got["qty"] and got["_hoodie_commit_time"] and got["_hoodie_file_name"]
    assert got["late"] and not got["tags.list.element"]  # no value in the sample to judge by; nested: plain
    assert pq.read_table(path).select(data.column_names).equals(data)
    # no rows at all: a valid empty file
    empty = str(tmp_path / "empty.parquet")
    B.BaseFileWriter(empty, A.arrow_to_avro(data.schema, "t")).close()
    assert pq.read_table(empty).num_rows == 0


def test_streaming_batches_and_java_key_order(tmp_path):
    buf = io.BytesIO()
    w = B.BaseFileWriter(buf, _writer_schema(), compression="snappy")
    # U+1F600 sorts after U+FF5E by code point, but before it in Java's UTF-16 order
    w.write(_table(["m", "\uff5e", "b"]))
    w.write(_table(["\U0001f600", "z", "a"]).to_batches()[0])
    stats = w.close()
    assert stats.num_records == 6 and stats.file_size == len(buf.getvalue())
    assert (stats.min_record_key, stats.max_record_key) == ("a", "\uff5e")
    assert stats.parquet_metadata.num_rows == 6  # column statistics for the metadata table
    buf.seek(0)
    assert pq.read_table(buf).num_rows == 6
    assert B.java_min_max(pa.array(["b", "a", "c"])) == ("a", "c")
    assert B.java_min_max(pa.array(["\uff5e", "\U0001f600", "~"])) == ("~", "\uff5e")


def test_many_keys_in_one_file(tmp_path):
    n = 130_000  # two bloom rows and the round-robin phase
    keys = pa.array([f"key-{i:07d}" for i in range(n)])
    data = pa.table({"id": pa.array(range(n), pa.int32())})
    t = B.add_meta_columns(data, commit_time=COMMIT, partition_path="", file_name=FILE,
                           record_keys=keys, partition_id=0)
    path = str(tmp_path / FILE)
    stats = B.write_base_file(path, t, A.arrow_to_avro(data.schema, "t"))
    bf = B.read_footer_keys(path).bloom_filter
    assert len(bf.rows) == 2 and bf.current_nb_record == 70_000
    assert all(bf.might_contain_all(keys))
    assert (stats.min_record_key, stats.max_record_key) == ("key-0000000", f"key-{n - 1:07d}")


def test_without_meta_fields_and_missing_columns(tmp_path):
    data = pa.table({"id": pa.array([1, 2], pa.int32())})
    t = B.add_meta_columns(data, commit_time=COMMIT, partition_path="x", file_name=FILE,
                           record_keys=None, partition_id=0, populate_meta_fields=False)
    schema = A.arrow_to_avro(pa.schema([("id", pa.int32()), ("later", pa.string())]), "t")
    path = str(tmp_path / FILE)
    stats = B.write_base_file(path, t, schema, populate_meta_fields=False)
    assert stats.bloom_filter is None and stats.min_record_key is None
    assert set(B.read_footer(path)) == {"parquet.avro.schema", "writer.model.name"}
    rows = pq.read_table(path).to_pylist()
    assert rows[0]["_hoodie_record_key"] is None and rows[0]["_hoodie_file_name"] == FILE
    assert rows[1]["later"] is None
    assert B.read_footer_keys(path) == B.FooterKeys(None, None, None)


def test_clear_errors(tmp_path):
    schema = _writer_schema()
    with pytest.raises(B.BaseFileError, match="not in the writer schema"):
        B.write_base_file(io.BytesIO(), _table(["a", "b", "c"]).append_column("extra", pa.array([1, 2, 3])), schema)
    t = _table(["a", "b", "c"])
    t = t.set_column(2, "_hoodie_record_key", pa.array(["a", None, "c"]))
    with pytest.raises(B.BaseFileError, match="null _hoodie_record_key"):
        B.write_base_file(io.BytesIO(), t, schema)
    bad = pa.table({"id": pa.array([2**40])})
    with pytest.raises(B.BaseFileError, match="cannot store int64 as int32"):
        B.write_base_file(io.BytesIO(), B.add_meta_columns(bad, commit_time=COMMIT, partition_path="", file_name=FILE,
                                                           record_keys=["k"], partition_id=0),
                          A.arrow_to_avro(pa.schema([("id", pa.int32())]), "t"))


def test_reads_fixture_footers(fixture_tables):
    base = Path(fixture_tables["sample_table_cow__v8_complexkeygen_hivestyle"])
    f = next(base.glob("byteField=10/shortField=300/*_1-13-25_*.parquet"))
    fk = B.read_footer_keys(str(f))
    assert (fk.min_record_key, fk.max_record_key) == ("id:1,name:Alice", "id:3,name:Carol")
    assert isinstance(fk.bloom_filter, bloom.DynamicBloomFilter)
    assert fk.bloom_filter.might_contain("id:3,name:Carol")
