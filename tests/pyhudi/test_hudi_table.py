"""df.write.format("hudi-meta") with the real write client, other operations, schema evolution,
and bad input: a clear error and the table left exactly as it was."""
from pathlib import Path

import pytest

from pyhudi.hudi_table import HudiTable
from tests.table_checks import fingerprint, unchanged_after

SCHEMA = "id string, ts long, region string, val string"
OPTS = {"hoodie.table.name": "api", "hoodie.datasource.write.recordkey.field": "id",
        "hoodie.datasource.write.precombine.field": "ts", "hoodie.datasource.write.partitionpath.field": "region",
        "hoodie.datasource.write.hive_style_partitioning": "true"}


def _rows(spark, n, ts=1, start=0, region=None):
    return spark.createDataFrame([(f"k{i}", ts, region or ("eu", "us")[i % 2], f"v{i}-{ts}")
                                  for i in range(start, start + n)], SCHEMA)


def _ids(df):
    return sorted(r["id"] for r in df.select("id").collect())


@pytest.mark.parametrize("small_batch", ["100000", "3"], ids=["in-the-driver", "by-the-executors"])
def test_bad_rows_are_refused_before_the_instant_naming_column_and_rows(spark, tmp_path, small_batch):
    """An empty record key (Hudi's key generators refuse it, as a null), a null in a column the table declares
    NOT NULL, and a missing NOT NULL column: refused before an instant is requested, whichever way the batch
    is written, the error naming the columns and showing the rows; the table as it was."""
    from pyspark.sql import types as T

    path = str(tmp_path / "t")
    strict = T.StructType([T.StructField("id", T.StringType()), T.StructField("ts", T.LongType()),
                           T.StructField("region", T.StringType()), T.StructField("val", T.StringType(), False)])
    HudiTable(spark, path, OPTS).insert(spark.createDataFrame([("k0", 1, "eu", "v0")], strict))
    t = HudiTable(spark, path, {**OPTS, "pyhudi.write.small.batch.max.records": small_batch})
    good = [("k1", 2, "eu", "v1"), ("k2", 2, "us", "v2"), ("k3", 2, "us", "v3"), ("k4", 2, "eu", "v4")]
    empty_key = spark.createDataFrame(good + [("", 2, "eu", "x")], SCHEMA)
    unchanged_after(path, lambda: t.upsert(empty_key), r"null record key or an empty one \(id\).*'id': ''")
    null_value = spark.createDataFrame(good + [("k9", 2, "eu", None)], SCHEMA)
    unchanged_after(path, lambda: t.upsert(null_value), r"non-nullable column \(val\).*'id': 'k9'.*'val': None")
    no_val = spark.createDataFrame([("k9", 2, "eu")], "id string, ts long, region string")
    unchanged_after(path, lambda: t.upsert(no_val), r"column\(s\) val of the table may not be null and are not in")
    t.upsert(spark.createDataFrame(good, SCHEMA))  # the good rows alone are written
    assert len(_ids(spark.read.format("hudi-meta").load(path))) == 5


def test_dataframe_writer_save_modes(spark, tmp_path):
    path = str(tmp_path / "t")
    _rows(spark, 10).write.format("hudi-meta").options(**OPTS).save(path)  # default errorifexists, new table
    assert len(_ids(spark.read.format("hudi-meta").load(path))) == 10
    with pytest.raises(Exception, match="already exists"):
        _rows(spark, 5).write.format("hudi-meta").options(**OPTS).save(path)
    _rows(spark, 5, start=100).write.format("hudi-meta").options(**OPTS).mode("ignore").save(path)
    assert len(_ids(spark.read.format("hudi-meta").load(path))) == 10
    _rows(spark, 5, ts=2, start=8).write.format("hudi-meta").options(**OPTS).mode("append").save(path)
    got = {r["id"]: r["val"] for r in spark.read.format("hudi-meta").load(path).collect()}
    assert len(got) == 13 and got["k9"] == "v9-2" and got["k0"] == "v0-1"
    _rows(spark, 3, start=50).write.format("hudi-meta").options(**OPTS).mode("overwrite").save(path)
    assert _ids(spark.read.format("hudi-meta").load(path)) == ["k50", "k51", "k52"]


def test_insert_overwrite_table_delete_partition_and_evolution(spark, tmp_path):
    path = str(tmp_path / "t")
    t = HudiTable(spark, path, OPTS)
    t.insert(_rows(spark, 20))
    t.delete_partition(["region=eu"])
    assert {r["region"] for r in t.read().collect()} == {"us"}
    wider = spark.createDataFrame([("k1", 5, "us", "x", 3.5)], SCHEMA + ", extra double")
    t.upsert(wider)
    rows = {r["id"]: r for r in t.read().collect()}
    assert rows["k1"]["extra"] == 3.5 and rows["k3"]["extra"] is None and len(rows) == 10
    t.insert_overwrite_table(_rows(spark, 4, ts=9, start=200))
    assert _ids(t.read()) == ["k200", "k201", "k202", "k203"]


def test_bloom_filter_and_key_range_in_base_file_footer(spark, tmp_path):
    from pyhudi.basefile import parquet as base_file

    path = str(tmp_path / "t")
    HudiTable(spark, path, OPTS).insert(_rows(spark, 30))
    files = list(Path(path).rglob("*.parquet"))
    assert files
    for f in files:
        keys = base_file.read_footer_keys(str(f))
        import pyarrow.parquet as pq
        ids = pq.read_table(f, columns=["_hoodie_record_key"]).column(0).to_pylist()
        assert keys.min_record_key == min(ids) and keys.max_record_key == max(ids)
        assert all(keys.bloom_filter.might_contain(k) for k in ids)


def test_bad_input_is_rejected_and_the_table_is_unchanged(spark, tmp_path):
    path = str(tmp_path / "t")
    t = HudiTable(spark, path, OPTS)
    t.insert(_rows(spark, 10))
    null_key = spark.createDataFrame([(None, 1, "eu", "x")], SCHEMA)
    unchanged_after(path, lambda: t.upsert(null_key), "null record key")
    # a batch too big for the driver: its null keys are found by the job that counts its partitions
    big = HudiTable(spark, path, {**OPTS, "pyhudi.write.small.batch.max.records": "3"})
    unchanged_after(path, lambda: big.upsert(_rows(spark, 5).unionByName(null_key)), "null record key")
    no_ordering = spark.createDataFrame([("k1", "eu", "x")], "id string, region string, val string")
    unchanged_after(path, lambda: t.upsert(no_ordering), "ordering field ts .* is not a column")
    unchanged_after(path, lambda: HudiTable(spark, path, {**OPTS, "hoodie.datasource.write.precombine.feild": "ts"})
                     .upsert(_rows(spark, 1)), "did you mean hoodie.datasource.write.precombine.field")
    incompatible = spark.createDataFrame([("k1", 1, "eu", 5)], "id string, ts long, region string, val int")
    incompatible = incompatible.withColumn("ts", incompatible["ts"].cast("string"))
    unchanged_after(path, lambda: t.upsert(incompatible), "column ts is long in the table but string")
    unchanged_after(path, lambda: t.upsert(_rows(spark, 1).drop("region")), "region .* not in the input")
    unchanged_after(path, lambda: HudiTable(spark, path, {**OPTS, "hoodie.datasource.write.operation": "x"})
                     ._write("upsertt", _rows(spark, 1), None), "valid values: upsert")
    assert len(_ids(t.read())) == 10


def test_non_hudi_directory_and_new_table_errors(spark, tmp_path):
    plain = tmp_path / "plain"
    plain.mkdir()
    (plain / "data.csv").write_text("a,b\n")
    unchanged_after(str(plain), lambda: HudiTable(spark, str(plain), OPTS).insert(_rows(spark, 1)),
                     "holds no Hudi table")
    fresh = str(tmp_path / "fresh")
    with pytest.raises(Exception, match="null record key"):
        HudiTable(spark, fresh, OPTS).insert(spark.createDataFrame([(None, 1, "eu", "x")], SCHEMA))
    assert fingerprint(fresh) is None  # nothing created for a rejected first write


def test_timestamp_keygen_and_url_encoded_partitions(spark, tmp_path):
    import pyarrow as pa
    from hudi import HudiTableBuilder

    path = str(tmp_path / "ts")
    opts = {"hoodie.table.name": "ts", "hoodie.datasource.write.recordkey.field": "id",
            "hoodie.datasource.write.partitionpath.field": "epoch",
            "hoodie.datasource.write.keygenerator.class": "org.apache.hudi.keygen.TimestampBasedKeyGenerator",
            "hoodie.keygen.timebased.timestamp.type": "UNIX_TIMESTAMP",
            "hoodie.keygen.timebased.output.dateformat": "yyyy/MM/dd"}
    df = spark.createDataFrame([("a", 1705311000), ("b", 1705411000)], "id string, epoch long")
    HudiTable(spark, path, opts).insert(df)
    assert sorted(p.name for p in Path(path, "2024", "01").iterdir()) == ["15", "16"]
    got = {r["id"]: r["_hoodie_partition_path"] for r in spark.read.format("hudi-meta").load(path).collect()}
    assert got == {"a": "2024/01/15", "b": "2024/01/16"}
    rs = pa.Table.from_batches(HudiTableBuilder.from_base_uri(path).build().read())
    assert sorted(rs.column("id").to_pylist()) == ["a", "b"]

    enc = str(tmp_path / "enc")
    HudiTable(spark, enc, {"hoodie.table.name": "enc", "hoodie.datasource.write.recordkey.field": "id",
                           "hoodie.datasource.write.partitionpath.field": "city",
                           "hoodie.datasource.write.partitionpath.urlencode": "true"}).insert(
        spark.createDataFrame([("a", "São Paulo/Centro")], "id string, city string"))
    assert [p.name for p in Path(enc).iterdir() if not p.name.startswith(".")] == ["São Paulo%2FCentro"]
    assert [r["city"] for r in spark.read.format("hudi-meta").load(enc).collect()] == ["São Paulo/Centro"]


@pytest.mark.parametrize("table_type", ["COPY_ON_WRITE", "MERGE_ON_READ"])
def test_soft_deletes_with_hoodie_is_deleted(spark, tmp_path, table_type):
    from hudi import HudiTableBuilder

    path = str(tmp_path / table_type)
    schema = SCHEMA + ", _hoodie_is_deleted boolean"
    t = HudiTable(spark, path, {**OPTS, "hoodie.datasource.write.table.type": table_type})
    t.insert(spark.createDataFrame([(f"k{i}", 1, ("eu", "us")[i % 2], "v", False) for i in range(10)], schema))
    # k1 deleted (newer), k2 not deleted (the delete loses on the ordering field)
    t.upsert(spark.createDataFrame([("k1", 5, "us", "v", True), ("k2", 0, "eu", "v", True)], schema))
    assert _ids(t.read()) == sorted(f"k{i}" for i in range(10) if i != 1)
    rs = HudiTableBuilder.from_base_uri(path).build().read()
    assert sorted(k for b in rs for k in b.column("id").to_pylist()) == _ids(t.read())


def test_delete_on_a_new_table_deletes_nothing(spark, tmp_path):
    path = str(tmp_path / "t")
    t = HudiTable(spark, path, OPTS)
    t.delete(_rows(spark, 3))
    assert _ids(t.read()) == []
    t.insert(_rows(spark, 3))
    t.delete(_rows(spark, 2, start=50))  # keys that are not there
    assert _ids(t.read()) == ["k0", "k1", "k2"]


def test_delete_partition_on_a_path_with_no_table_is_refused_and_creates_none(spark, tmp_path):
    path = tmp_path / "none"
    with pytest.raises(ValueError, match="holds no Hudi table: delete_partition drops partitions of an existing"):
        HudiTable(spark, str(path), OPTS).delete_partition(["region=eu"])
    assert not path.exists()


def test_each_commit_logs_one_line_of_what_it_did(spark, tmp_path, caplog):
    import logging
    import re

    path = str(tmp_path / "t")
    t = HudiTable(spark, path, OPTS)
    t.insert(_rows(spark, 4))
    with caplog.at_level(logging.INFO, logger="pyhudi"):
        instant = t.upsert(_rows(spark, 3, ts=2, start=2))  # k2, k3 updated; k4 inserted
        t.delete(_rows(spark, 1))
    lines = [r.getMessage() for r in caplog.records if r.name == "pyhudi.write.client"]
    assert len(lines) == 2, lines
    assert re.fullmatch(rf"upsert {instant}: 1 inserted, 2 updated, 0 deleted, \d+ files, \d+\.\d s", lines[0])
    assert re.fullmatch(r"delete \d{17}: 0 inserted, 0 updated, 1 deleted, \d+ files, \d+\.\d s", lines[1])
