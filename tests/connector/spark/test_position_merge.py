"""Position-based merging of merge-on-read slices (Apache Hudi 1.0): a log block whose RECORD_POSITIONS refer to
the slice's base file (BASE_FILE_INSTANT_TIME_OF_RECORD_POSITIONS = its instant) merges with the base rows at those
positions; a block without valid positions makes the whole slice merge by record key, as before. A base file that
holds one key twice tells the two apart: by position only the named row changes, by key the first row of the key.

The log files are pyhudi's own (a deltacommit on the timeline), rewritten with crafted blocks under the same name."""
from decimal import Decimal
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from pyhudi.log import (BlockType, DeleteRecord, HeaderKey, avro_data_block, delete_block, encode_blocks,
                        encode_positions, parquet_data_block, read_log_file)
from pyhudi.hudi_table import HudiTable

SCHEMA = "id string, ts long, region string, val string"
OPTS = {"hoodie.table.name": "positions", "hoodie.datasource.write.recordkey.field": "id",
        "hoodie.datasource.write.precombine.field": "ts", "hoodie.datasource.write.partitionpath.field": "region",
        "hoodie.datasource.write.table.type": "MERGE_ON_READ", "hoodie.metadata.enable": "false",
        "hoodie.compact.inline": "false", "hoodie.clean.automatic": "false", "hoodie.archive.automatic": "false"}
DUPLICATED = [("k0", 1, "eu", "a"), ("k0", 1, "eu", "b"), ("k1", 1, "eu", "c")]  # k0 at positions 0 and 1
BY_POSITION = [("k0", "a"), ("k0", "b2"), ("k1", "c")]  # k0@1 updated: only row 1 changes
BY_KEY = [("k0", "b"), ("k0", "b2"), ("k1", "c")]  # k0 updated by key: the first k0 row takes it


class Slice:
    """A table with one file slice: a base file of `rows` (in that order) and one log file of a deltacommit,
    whose blocks `rewrite` replaces."""

    def __init__(self, spark, path, rows):
        self.table = HudiTable(spark, path, OPTS)
        self.base_instant = self.table.insert(spark.createDataFrame(rows, SCHEMA).coalesce(1))
        self.table.upsert(spark.createDataFrame([(rows[-1][0], 2, "eu", "ignored")], SCHEMA))
        [self.log] = [p for p in Path(path, "eu").iterdir() if ".log." in p.name]
        [self.block] = [b for b in read_log_file(str(self.log)) if b.block_type == BlockType.AVRO_DATA]
        [base] = Path(path, "eu").glob(f"*_{self.base_instant}.parquet")
        assert [r["val"] for r in pq.read_table(base).to_pylist()] == [r[3] for r in rows]

    def positions(self, positions, base_instant=None):
        """The two headers of a block at `positions` (a list, or a raw header value) of the base file."""
        value = encode_positions(positions) if isinstance(positions, list) else positions
        return {HeaderKey.RECORD_POSITIONS: value,
                HeaderKey.BASE_FILE_INSTANT_TIME_OF_RECORD_POSITIONS: base_instant or self.base_instant}

    def update(self, updates, header=None, block_format="avro"):
        """A data block of (key, val) updates at ts 2, in the deltacommit's instant."""
        template = self.block.records()[0]
        records = [{**template, "_hoodie_record_key": k, "id": k, "val": v, "ts": 2} for k, v in updates]
        if block_format == "parquet":
            return parquet_data_block(pa.Table.from_pylist(records, schema=self._arrow_schema()), self.block.schema,
                                      self.block.instant_time, extra_header=header)
        return avro_data_block(records, self.block.schema, self.block.instant_time, extra_header=header)

    def _arrow_schema(self):
        return pa.schema([(f, pa.int64() if f == "ts" else pa.string()) for f in self.block.records()[0]])

    def delete(self, keys, header=None):
        deletes = [DeleteRecord(k, "eu", 0) for k in keys]
        return delete_block(deletes, self.block.instant_time, self.block.schema, extra_header=header)

    def rewrite(self, *blocks):
        self.log.write_bytes(encode_blocks(list(blocks)))

    def read(self):
        return sorted((r["id"], r["val"]) for r in self.table.read().collect())


@pytest.fixture
def duplicated(spark, tmp_path):
    return Slice(spark, str(tmp_path / "t"), DUPLICATED)


@pytest.mark.parametrize("block_format", ["avro", "parquet"])
def test_an_update_at_a_position_changes_only_that_row(duplicated, block_format):
    s = duplicated
    s.rewrite(s.update([("k0", "b2")], s.positions([1]), block_format))
    assert s.read() == BY_POSITION


@pytest.mark.parametrize("block_format", ["avro", "parquet"])
def test_positions_into_another_base_file_merge_by_key(duplicated, block_format):
    s = duplicated
    s.rewrite(s.update([("k0", "b2")], s.positions([1], base_instant="20000101000000000"), block_format))
    assert s.read() == BY_KEY
    s.rewrite(s.update([("k0", "b2")], None, block_format))  # no positions at all: the same
    assert s.read() == BY_KEY
    s.rewrite(s.update([("k0", "b2")], {HeaderKey.RECORD_POSITIONS: encode_positions([1])}, block_format))
    assert s.read() == BY_KEY  # positions without the base file's instant


def test_a_positional_delete_removes_exactly_the_positioned_row(duplicated):
    s = duplicated
    s.rewrite(s.delete(["k0"], s.positions([1])))
    assert s.read() == [("k0", "a"), ("k1", "c")]
    s.rewrite(s.delete(["k0"]))  # by key: the first k0 row goes
    assert s.read() == [("k0", "b"), ("k1", "c")]


def test_positional_deletes_and_updates_of_many_rows(spark, tmp_path):
    s = Slice(spark, str(tmp_path / "t"), [(f"k{i:02d}", 1, "eu", f"v{i}") for i in range(40)])
    s.rewrite(s.update([("k03", "u3"), ("k17", "u17"), ("k39", "u39")], s.positions([3, 17, 39])),
              s.delete(["k00", "k17", "k25"], s.positions([0, 17, 25])))
    want = {f"k{i:02d}": f"v{i}" for i in range(40) if i not in (0, 17, 25)} | {"k03": "u3", "k39": "u39"}
    assert dict(s.read()) == want
    assert dict(_hudi_rs(s.table.path)) == want


@pytest.mark.parametrize("positioned_first", [True, False])
def test_a_slice_mixing_positioned_and_key_only_blocks_merges_by_key(duplicated, positioned_first):
    s = duplicated
    positioned = s.update([("k0", "b2")], s.positions([1]))
    by_key = s.update([("k1", "c2"), ("k9", "new")])  # an update and a log-only insert
    s.rewrite(*([positioned, by_key] if positioned_first else [by_key, positioned]))
    assert s.read() == [("k0", "b"), ("k0", "b2"), ("k1", "c2"), ("k9", "new")]


def test_a_mixed_slice_of_unique_keys_reads_as_hudi_rs(spark, tmp_path):
    s = Slice(spark, str(tmp_path / "t"), [(f"k{i}", 1, "eu", f"v{i}") for i in range(10)])
    s.rewrite(s.update([("k2", "p2"), ("k5", "p5")], s.positions([2, 5])),
              s.delete(["k8"], s.positions([8])),
              s.update([("k5", "q5"), ("k7", "q7"), ("k20", "new")]),
              s.delete(["k3"]))
    want = {f"k{i}": f"v{i}" for i in range(10) if i not in (3, 8)} | {"k2": "p2", "k5": "q5", "k7": "q7",
                                                                       "k20": "new"}
    assert dict(s.read()) == want
    assert dict(_hudi_rs(s.table.path)) == want


@pytest.mark.parametrize("value", [
    "not base64!",
    "AAAA",  # base64 of bytes that are no bitmap
    encode_positions([1])[:-8],  # truncated
    encode_positions([0, 1]),  # two positions for one record
    encode_positions([]),
    encode_positions([2 ** 63 + 1]),  # no row position
], ids=["not-base64", "no-bitmap", "truncated", "too-many", "empty", "negative"])
def test_malformed_positions_merge_by_key(duplicated, value):
    s = duplicated
    s.rewrite(s.update([("k0", "b2")], s.positions(value)))
    assert s.read() == BY_KEY
    s.rewrite(s.delete(["k0"], s.positions(value)))
    assert s.read() == [("k0", "b"), ("k1", "c")]


def test_a_positioned_soft_delete_removes_its_row(spark, tmp_path):
    schema = SCHEMA + ", _hoodie_is_deleted boolean"
    table = HudiTable(spark, str(tmp_path / "t"), OPTS)
    table.insert(spark.createDataFrame([(f"k{i}", 1, "eu", f"v{i}", False) for i in range(6)], schema).coalesce(1))
    table.upsert(spark.createDataFrame([("k1", 2, "eu", "x", True), ("k4", 2, "eu", "u4", False)], schema))
    [block] = [b for p in Path(table.path, "eu").glob(".*.log.*") for b in read_log_file(str(p))]
    assert [(r["id"], r["_hoodie_is_deleted"]) for r in block.records()] == [("k1", True), ("k4", False)]
    assert HeaderKey.RECORD_POSITIONS in block.header  # pyhudi writes positions for updates
    assert sorted((r["id"], r["val"]) for r in table.read().collect()) == [
        ("k0", "v0"), ("k2", "v2"), ("k3", "v3"), ("k4", "u4"), ("k5", "v5")]


NESTED = ("id string, ts long, region string, d decimal(12,3), big decimal(30,8), "
          "s struct<a:int, b:string, inner:struct<x:double>>, arr array<struct<n:int, t:string>>, "
          "m map<string, array<int>>, tags array<string>")


def _nested_row(i, ts):
    return (f"k{i:02d}", ts, "eu", Decimal(f"{i}.{ts:03d}"), Decimal(f"{i}12345678901234.{ts:08d}"),
            (i, f"b{i}-{ts}", (i / 3,)), [(j, f"t{j}") for j in range(i % 4)],
            {f"m{i}": [i, ts], "z": None}, [f"x{i}"] * (i % 3))


@pytest.mark.parametrize("vectorized", ["true", "false"])
def test_a_merged_read_of_nested_types_and_decimals_keeps_base_values(spark, tmp_path, vectorized):
    table = HudiTable(spark, str(tmp_path / "t"), OPTS)
    table.insert(spark.createDataFrame([_nested_row(i, 1) for i in range(50)], NESTED).coalesce(1))
    updated = [3, 20, 49]
    table.upsert(spark.createDataFrame([_nested_row(i, 2) for i in updated], NESTED))
    table.delete(spark.createDataFrame([_nested_row(7, 3)], NESTED))
    blocks = [b for p in Path(table.path, "eu").glob(".*.log.*") for b in read_log_file(str(p))]
    assert len(blocks) == 2 and all(HeaderKey.RECORD_POSITIONS in b.header for b in blocks)
    old = spark.conf.get("spark.sql.parquet.enableVectorizedReader")
    spark.conf.set("spark.sql.parquet.enableVectorizedReader", vectorized)
    try:
        snapshot = {r["id"]: r for r in table.read().drop("_hoodie_commit_time", "_hoodie_commit_seqno").collect()}
        ro = {r["id"]: r for r in table.read(**{"hoodie.datasource.query.type": "read_optimized"})
              .drop("_hoodie_commit_time", "_hoodie_commit_seqno").collect()}
    finally:
        spark.conf.set("spark.sql.parquet.enableVectorizedReader", old)
    assert sorted(snapshot) == sorted(f"k{i:02d}" for i in range(50) if i != 7)
    for key, row in snapshot.items():
        i = int(key[1:])
        if i in updated:
            assert tuple(row)[-9:] == _spark_values(spark, _nested_row(i, 2)), key
        else:
            assert row == ro[key], key
    assert snapshot["k05"]["big"] == Decimal("512345678901234.00000001")
    assert snapshot["k05"]["s"]["inner"]["x"] == 5 / 3


def _spark_values(spark, row):
    """`row` as Spark returns it (structs as Rows, maps as dicts)."""
    return tuple(spark.createDataFrame([row], NESTED).collect()[0])


def _hudi_rs(path):
    from hudi import HudiTableBuilder
    t = pa.Table.from_batches(HudiTableBuilder.from_base_uri(path).build().read())
    return sorted(zip(t.column("id").to_pylist(), t.column("val").to_pylist()))
