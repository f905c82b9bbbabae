"""Tables on S3 through both halves, on a real S3-compatible server the tests start (s3_server): pyhudi writes
`s3a://` tables (every write operation, services, the metadata table) and the connector reads them through
Hadoop's S3A, each returning what the same writes give on local disk. The server's request log says what a query
sends: no LIST of the table's data folders when the metadata table is on, and the same requests for a table of
three times the files; with the metadata table off the same query lists every partition (so the test can fail)."""
import uuid

import pytest
from pyspark.sql import functions as F

from tests import s3_tables

OPTIONS = {"hoodie.datasource.write.recordkey.field": "key", "hoodie.datasource.write.partitionpath.field": "part",
           "hoodie.datasource.write.precombine.field": "ts", "hoodie.metadata.index.column.stats.enable": "true"}


def _batch(spark, keys, ts, parts=3):
    return spark.createDataFrame([(f"k{k:05d}", k % parts, ts, float(k * ts)) for k in keys],
                                 "key string, part int, ts long, v double")


def _write(spark, path, df, operation, table_type, **extra):
    opts = {**OPTIONS, "hoodie.table.name": "t", "hoodie.datasource.write.table.type": table_type,
            "hoodie.datasource.write.operation": operation, **extra}
    df.write.format("hudi-meta").options(**opts).mode("append").save(path)


def _rows(spark, path, **read):
    df = spark.read.format("hudi-meta").options(**read).load(path)
    return sorted(tuple(r) for r in df.select("key", "part", "ts", "v").collect())


def _writes(spark, path, table_type):
    """The same writes on any storage: insert, upsert, delete, insert_overwrite, delete_partition."""
    _write(spark, path, _batch(spark, range(60), 1), "bulk_insert", table_type)
    _write(spark, path, _batch(spark, range(0, 90, 3), 2), "upsert", table_type)
    _write(spark, path, _batch(spark, range(1, 30, 5), 2), "delete", table_type)
    _write(spark, path, _batch(spark, range(200, 210), 3, parts=1), "insert_overwrite", table_type)
    _write(spark, path, _batch(spark, range(300, 303), 4), "insert", table_type)


def _s3_path(name):
    return f"s3a://{s3_tables.BUCKET}/{name}-{uuid.uuid4().hex[:8]}"


@pytest.mark.parametrize("table_type", ["COPY_ON_WRITE", "MERGE_ON_READ"])
def test_every_write_on_s3_reads_back_as_on_local_disk(spark, s3_store, tmp_path, table_type):
    s3, local = _s3_path(table_type.lower()), str(tmp_path / "t")
    for path in (s3, local):
        _writes(spark, path, table_type)
    assert _rows(spark, s3) == _rows(spark, local) and len(_rows(spark, s3)) > 40
    assert _rows(spark, s3.replace("s3a://", "s3://", 1)) == _rows(spark, local)  # s3:// as on EMR
    first = {p: spark.read.format("hudi-meta").load(p).agg(F.min("_hoodie_commit_time")).first()[0]
             for p in (s3, local)}
    assert _rows(spark, s3, **{"as.of.instant": first[s3]}) == _rows(spark, local, **{"as.of.instant": first[local]})
    after_first = {p: _rows(spark, p, **{"hoodie.datasource.query.type": "incremental",
                                         "hoodie.datasource.read.begin.instanttime": first[p]}) for p in (s3, local)}
    assert after_first[s3] == after_first[local] and after_first[s3]
    if table_type == "MERGE_ON_READ":
        ro = {"hoodie.datasource.query.type": "read_optimized"}
        assert _rows(spark, s3, **ro) == _rows(spark, local, **ro)


def test_services_on_s3_keep_every_row(spark, s3_store):
    from pyhudi import HudiTable

    path = _s3_path("services")
    _write(spark, path, _batch(spark, range(40), 1), "insert", "MERGE_ON_READ")
    # new file groups beside the first ones, for clustering to join
    _write(spark, path, _batch(spark, range(40, 80), 1), "insert", "MERGE_ON_READ",
           **{"hoodie.parquet.small.file.limit": "0"})
    for ts in (2, 3):
        _write(spark, path, _batch(spark, range(0, 40, ts), ts), "upsert", "MERGE_ON_READ")
    table = HudiTable(spark, path, {**OPTIONS, "hoodie.cleaner.commits.retained": "1"})
    before = _rows(spark, path)
    assert table.compact() and table.cluster()
    assert _rows(spark, path) == before
    assert _rows(spark, path, **{"hoodie.datasource.query.type": "read_optimized"}) == before  # all in base files
    _write(spark, path, _batch(spark, range(0, 40, 4), 4), "upsert", "MERGE_ON_READ")
    after = _rows(spark, path)
    assert table.clean() is not None and _rows(spark, path) == after
    actions = {r.action for r in spark.sql(f"CALL show_commits(path => '{path}', limit => 50)").collect()}
    assert {"commit", "replacecommit", "deltacommit"} <= actions


def _snapshot_requests(spark, server, path, **read):
    """The requests of a fresh session's first query."""
    s3_tables.drop_caches(spark, path)
    server.reset_log()
    spark.read.format("hudi-meta").options(**read).load(path).collect()
    return server.requests()


def _listed(log):
    """The folders the LIST requests asked for (the prefix of each), by the requests' query."""
    return [r for r in log if r["op"] == "LIST"]


def test_a_snapshot_query_lists_no_data_folder_with_the_metadata_table(spark, s3_store):
    small, large = _s3_path("plan-small"), _s3_path("plan-large")
    _write(spark, small, _batch(spark, range(30), 1, parts=3), "bulk_insert", "COPY_ON_WRITE")
    _write(spark, large, _batch(spark, range(90), 1, parts=9), "bulk_insert", "COPY_ON_WRITE")
    for path in (small, large):
        _write(spark, path, _batch(spark, range(0, 90, 7), 2, parts=9), "upsert", "COPY_ON_WRITE")
    logs = {p: _snapshot_requests(spark, s3_store, p) for p in (small, large)}
    for path, log in logs.items():
        prefix = path.split("/", 3)[3]
        listed = [r["prefix"] for r in _listed(log)]
        assert listed and all(p.startswith(f"{prefix}/.hoodie/") for p in listed), listed
    planning = {p: sorted((r["op"], r["key"].split("/", 1)[1]) for r in log if "/.hoodie/" in f"/{r['key']}")
                for p, log in logs.items()}
    assert len(planning[small]) == len(planning[large])  # three times the files and partitions: the same requests
    off = _snapshot_requests(spark, s3_store, large, **{"hoodie.metadata.enable": "false"})
    data_lists = [r for r in _listed(off) if "/.hoodie/" not in f"/{r['prefix']}/"]
    assert len(data_lists) >= 9  # without the metadata table every partition is listed


def test_a_query_opens_the_metadata_table_once_and_a_repeated_query_not_again(spark, s3_store):
    path = _s3_path("plan-once")
    _write(spark, path, _batch(spark, range(90), 1, parts=9), "bulk_insert", "COPY_ON_WRITE")
    s3_tables.drop_caches(spark, path)  # a fresh session's first query
    mdt = path.split("/", 3)[3] + "/.hoodie/metadata/"

    def metadata_requests():
        s3_store.reset_log()
        df = spark.read.format("hudi-meta").load(path).where("v > 60")  # data skipping reads column_stats
        assert sorted(r.key for r in df.select("key").collect()) == [f"k{k:05d}" for k in range(61, 90)]
        return [(r["op"], (r["key"] or r["prefix"])[len(mdt):]) for r in s3_store.requests()
                if (r["key"] or r["prefix"] or "").startswith(mdt)]

    first = metadata_requests()
    listed = sorted(key for op, key in first if op == "LIST")
    # one open: its timeline and each partition it reads (files for the listing, the statistics for data
    # skipping) listed once
    assert len(listed) == len(set(listed)), first
    assert {".hoodie/timeline/", "files/", "column_stats/"} <= set(listed), first
    assert set(listed) <= {".hoodie/timeline/", "files/", "column_stats/", "partition_stats/"}, first
    assert not [key for op, key in first if op == "HEAD" and not key.endswith("hoodie.properties")], first
    # the table did not change: the view's metadata table is still open, its timeline listed to know so
    assert metadata_requests() == [("LIST", ".hoodie/timeline/")]


def test_a_metadata_table_rebuilt_meanwhile_is_opened_again(spark, s3_store):
    """The view keeps its metadata table open while the data table is unchanged; a rebuild of the metadata table
    alone (delete, create: new objects under the same names, the old ones gone) must not be read through it."""
    from pyhudi.metadata import of_table

    path = _s3_path("rebuilt")
    _write(spark, path, _batch(spark, range(90), 1, parts=9), "bulk_insert", "COPY_ON_WRITE")
    before = _rows(spark, path)
    mdt = of_table(path)
    mdt.delete()
    mdt.initialize()
    s3_store.reset_log()
    assert _rows(spark, path) == before
    prefix = path.split("/", 3)[3] + "/.hoodie/metadata/files/"
    assert [r for r in _listed(s3_store.requests()) if r["prefix"] == prefix]  # opened again


def test_a_small_upsert_sends_the_same_requests_to_a_table_of_three_times_the_files(spark, s3_store):
    counts = {}
    for name, parts in (("upsert-small", 3), ("upsert-large", 9)):
        path = _s3_path(name)
        _write(spark, path, _batch(spark, range(parts * 20), 1, parts=parts), "bulk_insert", "COPY_ON_WRITE")
        keys = [k for k in range(parts * 20) if k % parts == 0][:10]  # ten keys of one partition
        s3_store.reset_log()
        _write(spark, path, _batch(spark, keys, 2, parts=parts), "upsert", "COPY_ON_WRITE")
        counts[name] = s3_store.counts()
    assert counts["upsert-small"] == counts["upsert-large"], counts
    assert 0 < sum(counts["upsert-large"].values()) < 400
