"""Merge-on-read snapshots read in columnar batches (io.hudimeta.spark.merge.MergedBatches): when every requested column
is atomic, a scan with log files hands Spark batches, base rows no log record touches read from the base file's
vectors and merged rows patched in. The rows equal the row-by-row merge's and hudi-rs's, across batch bounds
(base files of more than one 4,096-row batch), with updates that lose on ordering, deletes, soft deletes and
inserts held only in log files; a requested nested column keeps the whole scan on rows."""
from pathlib import Path

import pyarrow as pa
import pytest
from hudi import HudiTableBuilder

from pyhudi.log import HeaderKey, read_log_file
from pyhudi.hudi_table import HudiTable

SCHEMA = "id string, ts long, region string, val string, amount decimal(10,2), flag boolean"
OPTS = {"hoodie.table.name": "batches", "hoodie.datasource.write.recordkey.field": "id",
        "hoodie.datasource.write.precombine.field": "ts", "hoodie.datasource.write.partitionpath.field": "region",
        "hoodie.datasource.write.table.type": "MERGE_ON_READ", "hoodie.compact.inline": "false",
        "hoodie.clean.automatic": "false", "hoodie.index.type": "BLOOM",
        "pyhudi.bloom.index.log.files.enable": "true", "hoodie.parquet.small.file.limit": str(64 << 20)}
N = 10_000


def _row(i, ts, val=None):
    from decimal import Decimal
    return (f"k{i:05d}", ts, ("eu", "us")[i % 2], val or f"v{i}", Decimal(i) / 4, i % 3 == 0)


@pytest.fixture(scope="module")
def table(spark, tmp_path_factory):
    """(table, expected rows by id)."""
    t = HudiTable(spark, str(tmp_path_factory.mktemp("batches") / "t"), OPTS)
    t.insert(spark.createDataFrame([_row(i, 1) for i in range(N)], SCHEMA).coalesce(1))
    want = {r[0]: r for r in (_row(i, 1) for i in range(N))}
    updates = [_row(i, 5, f"u{i}") for i in range(0, N, 7)]  # rows in every batch of both base files
    stale = [_row(i, 0, f"old{i}") for i in range(3, N, 997)]  # lose to the base rows on ordering
    inserts = [_row(i, 2) for i in range(N, N + 100, 2)]  # into the log file of eu's small file group
    t.upsert(spark.createDataFrame(updates + stale + inserts, SCHEMA))
    want.update({r[0]: r for r in updates + inserts})
    gone = [_row(i, 6) for i in range(5, N, 501)]
    t.delete(spark.createDataFrame(gone, SCHEMA))
    for r in gone:
        want.pop(r[0])
    blocks = {region: [b for p in Path(t.path, region).glob(".*.log.*") for b in read_log_file(str(p))]
              for region in ("eu", "us")}
    assert all(HeaderKey.RECORD_POSITIONS in b.header for b in blocks["us"])  # us merges by position
    assert not all(HeaderKey.RECORD_POSITIONS in b.header for b in blocks["eu"])  # eu (log inserts) by key
    return t, want


def _plan(df):
    return df._jdf.queryExecution().executedPlan().toString()


def _rows(df):
    return {r["id"]: (r["id"], r["ts"], r["region"], r["val"], r["amount"], r["flag"]) for r in df.collect()}


def test_a_snapshot_with_log_files_is_read_in_batches_as_the_rows_merge_reads_it(spark, table):
    t, want = table
    df = t.read().select("id", "ts", "region", "val", "amount", "flag")
    assert "ColumnarToRow" in _plan(df)
    got = _rows(df)
    assert got == want
    old = spark.conf.get("spark.sql.parquet.enableVectorizedReader")
    spark.conf.set("spark.sql.parquet.enableVectorizedReader", "false")  # the row-by-row merge
    try:
        rows = t.read().select("id", "ts", "region", "val", "amount", "flag")
        assert "ColumnarToRow" not in _plan(rows)
        assert _rows(rows) == got
    finally:
        spark.conf.set("spark.sql.parquet.enableVectorizedReader", old)
    theirs = pa.Table.from_batches(HudiTableBuilder.from_base_uri(t.path).build().read())
    assert dict(zip(theirs.column("id").to_pylist(), theirs.column("val").to_pylist())) == \
        {k: r[3] for k, r in want.items()}


def test_meta_columns_and_aggregates_read_through_batches(spark, table):
    t, want = table
    df = t.read()
    assert "ColumnarToRow" in _plan(df)
    assert df.count() == len(want)
    assert df.where("val like 'u%'").count() == sum(1 for r in want.values() if r[3].startswith("u"))
    keys = {r["_hoodie_record_key"] for r in df.select("_hoodie_record_key").collect()}
    assert keys == set(want)


def test_a_soft_delete_in_a_log_removes_its_row_in_batches(spark, tmp_path):
    schema = "id string, ts long, region string, val string, _hoodie_is_deleted boolean"
    t = HudiTable(spark, str(tmp_path / "t"), {**OPTS, "hoodie.index.type": "SIMPLE"})
    t.insert(spark.createDataFrame([(f"k{i}", 1, "eu", f"v{i}", False) for i in range(5000)], schema).coalesce(1))
    t.upsert(spark.createDataFrame([("k1", 2, "eu", "x", True), ("k4500", 2, "eu", "u", False)], schema))
    df = t.read()
    assert "ColumnarToRow" in _plan(df)
    got = {r["id"]: r["val"] for r in df.collect()}
    assert len(got) == 4999 and "k1" not in got and got["k4500"] == "u" and got["k4499"] == "v4499"


def test_a_nested_column_keeps_the_merge_on_rows(spark, tmp_path):
    t = HudiTable(spark, str(tmp_path / "t"), {**OPTS, "hoodie.index.type": "SIMPLE"})
    schema = "id string, ts long, region string, tags array<string>"
    t.insert(spark.createDataFrame([(f"k{i}", 1, "eu", [f"t{i}"]) for i in range(20)], schema))
    t.upsert(spark.createDataFrame([("k3", 2, "eu", ["new"])], schema))
    df = t.read()
    assert "ColumnarToRow" not in _plan(df)
    assert {r["id"]: r["tags"] for r in df.collect()}["k3"] == ["new"]
    atomic = t.read().select("id", "ts")
    assert "ColumnarToRow" in _plan(atomic)  # the same table, without the nested column: batches
    assert {r["id"]: r["ts"] for r in atomic.collect()}["k3"] == 2
