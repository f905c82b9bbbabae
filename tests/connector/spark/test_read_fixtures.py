"""Reads of real Apache Hudi tables through format("hudi-meta"), compared with hudi-rs."""
import json
import sys

import pyarrow as pa
import pytest

from conftest import FIXTURES, TABLE_NAMES

from tests.canonical import canon

EXPECTED = FIXTURES / "expected"
MOR_TXNS = "sample_table_mor_avro__v9_txns_simple_meta"


def _expected(name, kind):
    path = EXPECTED / f"{name}.{kind}.json"
    if not path.exists():
        return None
    data = json.loads(path.read_text())
    return {"columns": data["columns"], "rows": data["rows"]}


def _canon(df):
    got = canon(df.toArrow())
    # hudi-rs returns no batches (hence no columns) for a table without rows
    return got if got["rows"] else {"columns": [], "rows": []}


def _read(spark, path, **options):
    return spark.read.format("hudi-meta").options(**options).load(path)


CASES = [(n, k) for n in TABLE_NAMES for k in ("snapshot", "read_optimized") if (EXPECTED / f"{n}.{k}.json").exists()]


@pytest.mark.parametrize("name,kind", CASES)
def test_fixture_reads_equal_hudi_rs(spark, fixture_tables, name, kind):
    df = _read(spark, fixture_tables[name], **{"hoodie.datasource.query.type": kind})
    assert _canon(df) == _expected(name, kind)


def test_cow_scan_is_vectorized(spark, fixture_tables):
    df = _read(spark, fixture_tables["sample_table_cow__v9_txns_simple_nometa"])
    plan = df._jdf.queryExecution().executedPlan().toString()
    assert "ColumnarToRow" in plan, plan


def test_spark_sql(spark, fixture_tables):
    for name in ("sample_table_cow__v8_complexkeygen_hivestyle", MOR_TXNS):
        table = name.replace("-", "_")
        spark.sql(f"DROP TABLE IF EXISTS {table}")
        spark.sql(f"CREATE TABLE {table} USING `hudi-meta` LOCATION '{fixture_tables[name]}'")
        assert _canon(spark.sql(f"SELECT * FROM {table}")) == _expected(name, "snapshot")
        spark.sql(f"DROP TABLE {table}")
    _read(spark, fixture_tables[MOR_TXNS]).createOrReplaceTempView("txns")
    assert _canon(spark.sql("SELECT * FROM txns")) == _expected(MOR_TXNS, "snapshot")


def _hudi_rs(path, as_of):
    from hudi import HudiReadOptions, HudiTableBuilder

    table = HudiTableBuilder.from_base_uri(path).build()
    batches = table.read(HudiReadOptions().with_as_of_timestamp(as_of))
    return canon(pa.Table.from_batches(batches)) if batches else {"columns": [], "rows": []}


def _completed_commits(path):
    from hudi import HudiTableBuilder

    tl = HudiTableBuilder.from_base_uri(path).build().get_timeline()
    times = {i.timestamp for g in (tl.get_completed_commits, tl.get_completed_deltacommits,
                                   tl.get_completed_replacecommits) for i in g()}
    return sorted(times)


def test_time_travel_to_every_instant_equals_hudi_rs(spark, fixture_tables):
    path = fixture_tables[MOR_TXNS]
    instants = _completed_commits(path)
    assert len(instants) >= 5
    for t in instants:
        ours = _canon(_read(spark, path, **{"as.of.instant": t}))
        assert ours == _hudi_rs(path, t), t


def test_time_travel_sql_and_formats(spark, fixture_tables):
    path = fixture_tables[MOR_TXNS]
    t = _completed_commits(path)[2]
    expected = _hudi_rs(path, t)
    dashed = f"{t[:4]}-{t[4:6]}-{t[6:8]} {t[8:10]}:{t[10:12]}:{t[12:14]}.{t[14:]}"
    assert _canon(_read(spark, path, **{"as.of.instant": dashed})) == expected
    spark.sql(f"CREATE OR REPLACE TEMPORARY VIEW tt USING `hudi-meta` OPTIONS (path '{path}', `as.of.instant` '{t}')")
    assert _canon(spark.sql("SELECT * FROM tt")) == expected


def test_incremental_returns_records_committed_in_between(spark, fixture_tables):
    path = fixture_tables[MOR_TXNS]
    full = _read(spark, path).toArrow().to_pylist()
    instants = _completed_commits(path)
    begin, end = instants[1], instants[4]
    # completion times bound incremental queries on layout-2 tables
    tl = spark._jvm.io.hudimeta.table.Timeline.load(
        spark._jvm.org.apache.hadoop.fs.Path(path).getFileSystem(spark._jsc.hadoopConfiguration()),
        spark._jvm.org.apache.hadoop.fs.Path(path),
        spark._jvm.io.hudimeta.table.TableConfig.load(
            spark._jvm.org.apache.hadoop.fs.Path(path).getFileSystem(spark._jsc.hadoopConfiguration()),
            spark._jvm.org.apache.hadoop.fs.Path(path)))
    begin_c, end_c = tl.completionTime(begin), tl.completionTime(end)
    in_range = {i.requestedTime() for i in tl.commitsBetween(begin_c, end_c)}
    assert in_range and begin not in in_range
    snapshot_at_end = _read(spark, path, **{"as.of.instant": end}).toArrow().to_pylist()
    want = sorted(r["txn_id"] for r in snapshot_at_end if r["_hoodie_commit_time"] in in_range)
    inc = _read(spark, path, **{"hoodie.datasource.query.type": "incremental",
                                "hoodie.datasource.read.begin.instanttime": begin_c,
                                "hoodie.datasource.read.end.instanttime": end_c}).toArrow().to_pylist()
    assert sorted(r["txn_id"] for r in inc) == want
    assert all(r["_hoodie_commit_time"] in in_range for r in inc)
    assert len(inc) < len(full)


@pytest.mark.parametrize("begin", ["0", "000", "00000000000000"])
def test_incremental_from_the_start_as_hudi_users_write_it(spark, fixture_tables, begin):
    """begin.instanttime 0 / 000 / Hudi's INIT_INSTANT_TS: every commit, so the latest version of every record."""
    path = fixture_tables[MOR_TXNS]
    inc = _read(spark, path, **{"hoodie.datasource.query.type": "incremental",
                                "hoodie.datasource.read.begin.instanttime": begin})
    assert _canon(inc) == _canon(_read(spark, path)) and inc.count() > 0


def test_projection_and_partition_filter(spark, fixture_tables):
    path = fixture_tables["sample_table_cow__v9_txns_simple_nometa"]
    df = _read(spark, path).where("region = 'us'").select("txn_id", "region")
    rows = df.collect()
    all_us = [r for r in _read(spark, path).collect() if r["region"] == "us"]
    assert sorted(r.txn_id for r in rows) == sorted(r.txn_id for r in all_us) and rows
    assert "partitions=1/" in df._jdf.queryExecution().executedPlan().toString()


def test_bad_input_errors(spark, fixture_tables, tmp_path):
    import shutil

    with pytest.raises(Exception, match="no Hudi table at"):
        _read(spark, str(tmp_path)).collect()
    with pytest.raises(Exception, match="is not valid; valid values"):
        _read(spark, fixture_tables[MOR_TXNS], **{"hoodie.datasource.query.type": "snapshott"}).collect()
    broken = tmp_path / "broken"
    shutil.copytree(fixture_tables["sample_table_cow__v8_nonpartitioned"], broken)
    props = broken / ".hoodie" / "hoodie.properties"
    props.write_text(props.read_text().replace("hoodie.table.checksum=", "hoodie.table.checksum=9"))
    with pytest.raises(Exception, match="checksum"):
        _read(spark, str(broken)).collect()
    missing = tmp_path / "missing"
    shutil.copytree(fixture_tables["sample_table_cow__v8_nonpartitioned"], missing)
    for f in missing.glob("*.parquet"):
        f.unlink()
    with pytest.raises(Exception, match="written by commit .* is missing from .*lost data"):
        _read(spark, str(missing)).collect()


@pytest.mark.parametrize("name", ["sample_table_mor_avro__v9_txns_simple_meta", "sample_table_cow__v9_txns_simple_meta",
                                  "quickstart_trips_table_mor_avro__v8_trips_8i3u1d"])
def test_metadata_listing_lists_no_data_partition(spark, fixture_tables, name):
    jvm = spark._jvm
    path = fixture_tables[name]
    local = jvm.org.apache.hadoop.fs.Path(path).getFileSystem(spark._jsc.hadoopConfiguration())
    counting = jvm.io.hudimeta.metadata.CountingFileSystem(local)
    stats = jvm.io.hudimeta.spark.plan.PlanInspect.plan(counting, {"path": path})
    assert stats.startswith("listing=metadata"), stats
    listed = [str(x).split(" ", 1)[1] for x in counting.listings()]
    partitions = {p for p in _read(spark, path).toArrow().column("_hoodie_partition_path").to_pylist()}
    data_dirs = {f"file:{path}/{p}".rstrip("/") for p in partitions} | {f"file:{path}"}
    assert not data_dirs & set(listed), listed
    assert all("/.hoodie" in x for x in listed), listed
    # the same plan by listing storage does list the data partitions: the count is meaningful
    counting.reset()
    off = jvm.io.hudimeta.spark.plan.PlanInspect.plan(counting, {"path": path, "hoodie.metadata.enable": "false"})
    assert off.startswith("listing=storage")
    assert data_dirs & {str(x).split(" ", 1)[1] for x in counting.listings()}
    assert off.split(" ", 1)[1] == stats.split(" ", 1)[1]


def test_sql_version_and_timestamp_as_of(spark, fixture_tables):
    path = fixture_tables[MOR_TXNS]
    spark.sql("DROP TABLE IF EXISTS txns_tt")
    spark.sql(f"CREATE TABLE txns_tt USING `hudi-meta` LOCATION '{path}'")
    try:
        for t in _completed_commits(path)[:4]:
            expected = _hudi_rs(path, t)
            assert _canon(spark.sql(f"SELECT * FROM txns_tt VERSION AS OF '{t}'")) == expected, t
            stamp = f"{t[:4]}-{t[4:6]}-{t[6:8]} {t[8:10]}:{t[10:12]}:{t[12:14]}.{t[14:]}"
            assert _canon(spark.sql(f"SELECT * FROM txns_tt TIMESTAMP AS OF '{stamp}'")) == expected, t
        assert _canon(spark.sql("SELECT * FROM txns_tt")) == _expected(MOR_TXNS, "snapshot")
    finally:
        spark.sql("DROP TABLE txns_tt")
