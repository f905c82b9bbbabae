"""The record index (record_index partition of the metadata table) as pyhudi writes it: built by the first
write that enables it, kept right by inserts, updates, deletes, partition moves, replaces, compaction,
clustering and failed writes; read back by the connector's own (Java) metadata-table reader, whose
decoding was checked against Apache Hudi's files; and its layout on disk."""
import json
import uuid
from pathlib import Path

import pyarrow as pa
import pytest

from pyhudi import faults
from pyhudi.cli import main as cli
from pyhudi.hudi_table import HudiTable
from pyhudi.metadata import record_index as ri
from pyhudi.write.index import record as record_tagging

SCHEMA = "id string, ts long, region string, v int"
OPTS = {"hoodie.table.name": "ri", "hoodie.datasource.write.recordkey.field": "id",
        "hoodie.datasource.write.precombine.field": "ts", "hoodie.datasource.write.partitionpath.field": "region",
        "hoodie.metadata.record.index.enable": "true", "hoodie.clean.automatic": "false",
        "hoodie.archive.automatic": "false"}


def _rows(spark, ids, ts, region=None):
    return spark.createDataFrame([(f"k{i:04d}", ts, region or ("eu", "us")[i % 2], i) for i in ids], SCHEMA)


def _index(spark, path) -> dict[str, tuple[str, str]]:
    """key -> (partition, file id), as the connector's metadata-table reader merges record_index."""
    inspect = spark._jvm.io.hudimeta.metadata.MetadataInspect
    recs = json.loads(inspect.recordsJson(path, spark._jsc.hadoopConfiguration(), "record_index", ""))
    out = {}
    for key, rec in recs.items():
        info = json.loads(rec["payload"])["recordIndexMetadata"]
        bits = (info["fileIdHighBits"] % 2**64) << 64 | info["fileIdLowBits"] % 2**64
        out[key] = (info["partitionName"], f"{uuid.UUID(int=bits)}-{info['fileIndex']}")
    return out


def _where(spark, path) -> dict[str, tuple[str, str]]:
    """key -> (partition, file id) of every record a snapshot read returns."""
    rows = spark.read.format("hudi-meta").load(path).select(
        "_hoodie_record_key", "_hoodie_partition_path", "_hoodie_file_name").collect()
    where = {}
    for key, partition, name in rows:
        assert key not in where, f"{key} read twice"
        where[key] = (partition, name.split("_")[0])
    return where


def _assert_index_right(spark, path):
    assert _index(spark, path) == _where(spark, path)


def _partitions(path) -> list[str]:
    text = (Path(path) / ".hoodie" / "hoodie.properties").read_text()
    line = next(x for x in text.splitlines() if x.startswith("hoodie.table.metadata.partitions="))
    return line.split("=", 1)[1].split(",")


def test_copy_on_write_index_follows_every_write(spark, tmp_path):
    path = str(tmp_path / "cow")
    t = HudiTable(spark, path, OPTS)
    t.bulk_insert(_rows(spark, range(60), 1))
    assert "record_index" in _partitions(path)
    _assert_index_right(spark, path)
    t.upsert(_rows(spark, range(50, 80), 2))  # 10 updates, 20 inserts
    _assert_index_right(spark, path)
    t.delete(_rows(spark, range(0, 60, 3), 3))
    index = _index(spark, path)
    assert "k0000" not in index and "k0003" not in index and "k0001" in index
    _assert_index_right(spark, path)
    t.insert_overwrite(_rows(spark, range(100, 105), 4, region="eu"))  # eu's old keys are gone
    index = _index(spark, path)
    assert not any(p == "eu" and k < "k0100" for k, (p, _) in index.items())
    _assert_index_right(spark, path)
    t.cluster(options={"hoodie.clustering.plan.strategy.small.file.limit": str(1 << 30)})
    _assert_index_right(spark, path)
    t.delete_partition(["us"])
    assert not any(p == "us" for p, _ in _index(spark, path).values())
    _assert_index_right(spark, path)


def test_merge_on_read_index_follows_logs_and_compaction(spark, tmp_path):
    path = str(tmp_path / "mor")
    t = HudiTable(spark, path, {**OPTS, "hoodie.datasource.write.table.type": "MERGE_ON_READ",
                                "hoodie.compact.inline": "false"})
    t.insert(_rows(spark, range(40), 1))
    t.upsert(_rows(spark, range(30, 50), 2))
    t.delete(_rows(spark, range(0, 10), 3))  # delete blocks in the log files
    _assert_index_right(spark, path)
    assert "k0005" not in _index(spark, path)
    assert t.compact()
    _assert_index_right(spark, path)
    # hudi-rs reads the table whose metadata table holds our record index
    from hudi import HudiTableBuilder
    rs = pa.Table.from_batches(HudiTableBuilder.from_base_uri(path).build().read())
    assert sorted(rs.column("id").to_pylist()) == sorted(_where(spark, path))


def test_built_from_an_existing_table_sized_by_hudis_keys(spark, tmp_path):
    """A table written without the record index gets one at the first write that enables it: entries of
    the records committed before, and of that write's own."""
    path = str(tmp_path / "late")
    plain = {k: v for k, v in OPTS.items() if k != "hoodie.metadata.record.index.enable"}
    t = HudiTable(spark, path, plain)
    t.insert(_rows(spark, range(30), 1))
    assert "record_index" not in _partitions(path)
    sizing = {"hoodie.metadata.record.index.min.filegroup.count": "3",
              "hoodie.metadata.record.index.max.filegroup.count": "3"}
    t.upsert(_rows(spark, range(25, 35), 2), {**OPTS, **sizing})
    _assert_index_right(spark, path)
    groups = sorted(p.name for p in (Path(path) / ".hoodie/metadata/record_index").glob("*.hfile"))
    assert [g.split("_")[0] for g in groups] == [f"record-index-000{i}-0" for i in range(3)]
    # its initialisation instant follows the other partitions' (files ...000, column_stats ...001, ...)
    assert all(g.endswith("_00000000000000003.hfile") for g in groups), groups
    # a write that leaves it off drops it, as Apache Hudi does: no stale index is left behind
    t.upsert(_rows(spark, range(35, 40), 3), plain)
    assert "record_index" not in _partitions(path)
    assert not (Path(path) / ".hoodie/metadata/record_index").exists()


def test_payload_as_hudi_writes_it(spark, tmp_path):
    """Each entry: the data partition, the file id as two longs and an index (encoding 0), the epoch
    millis of the instant that placed the key, no position; one key per entry."""
    path = str(tmp_path / "payload")
    t = HudiTable(spark, path, OPTS)
    instant = t.insert(_rows(spark, range(4), 1))
    inspect = spark._jvm.io.hudimeta.metadata.MetadataInspect
    recs = json.loads(inspect.recordsJson(path, spark._jsc.hadoopConfiguration(), "record_index", ""))
    assert sorted(recs) == ["k0000", "k0001", "k0002", "k0003"]
    info = json.loads(recs["k0001"]["payload"])["recordIndexMetadata"]
    assert info["partitionName"] == "us" and info["fileIdEncoding"] == 0 and info["fileId"] == ""
    assert info["instantTime"] == ri.instant_millis(instant) and info["position"] is None


class _Died(Exception):
    pass


def _die():
    raise _Died()


def test_failed_write_leaves_no_entry(spark, tmp_path):
    """A write that dies after its metadata-table commit but before completing is rolled back by the next
    write: the keys it placed are not in the index."""
    path = str(tmp_path / "crash")
    t = HudiTable(spark, path, OPTS)
    t.insert(_rows(spark, range(10), 1))
    with faults.at("before_complete", _die), pytest.raises(_Died):
        t.insert(_rows(spark, range(100, 110), 2))
    t.upsert(_rows(spark, range(5, 12), 3))
    index = _index(spark, path)
    assert "k0100" not in index
    _assert_index_right(spark, path)


def test_sizing_matches_hudis_estimate():
    """HoodieTableMetadataUtil.estimateFileGroupCount: growth 2x at 48 B an entry, 1 GiB a group."""
    default = ri.Sizing()
    assert default.file_group_count(0) == 10 and default.file_group_count(5_000_000) == 10
    assert default.file_group_count(500_000_000) == 1_000_000_000 // (2**30 // 48)
    assert ri.Sizing(4, 4).file_group_count(10**9) == 4
    assert ri.Sizing(1, 10000, 48 * 100, 1.0).file_group_count(550) == 5


def test_cli_lists_looks_up_and_drops(spark, tmp_path, capsys):
    path = str(tmp_path / "cli")
    t = HudiTable(spark, path, OPTS)
    t.insert(_rows(spark, range(6), 1))
    where = _where(spark, path)
    assert cli(["index", "list", path]) == 0
    assert "record_index: built, 10 file groups" in capsys.readouterr().out
    assert cli(["index", "lookup", path, "k0004", "nope"]) == 0
    out = " ".join(capsys.readouterr().out.split())
    assert f"k0004: partition eu, file group {where['k0004'][1]}" in out and "nope: not in the table" in out
    assert cli(["index", "drop", path]) == 0
    assert "record_index" not in _partitions(path)
    assert cli(["index", "lookup", path, "k0004"]) == 2
    assert "has no record index" in " ".join(capsys.readouterr().out.split())  # rich wraps long lines


def test_record_index_tags_writes_globally(spark, tmp_path, monkeypatch):
    """hoodie.index.type=RECORD_INDEX: updates find their keys in whatever partition they live in (the batch
    names another), deletes too; with hoodie.record.index.update.partition.path a changed partition moves the
    record there. The plan reads only the partitions the batch and the index name."""
    path = str(tmp_path / "tag")
    opts = {**OPTS, "hoodie.index.type": "RECORD_INDEX"}
    t = HudiTable(spark, path, opts)
    t.insert(_rows(spark, range(20), 1))  # eu and us
    lookups = []
    real = record_tagging.locate
    # a spy: the real lookup runs
    monkeypatch.setattr(record_tagging, "locate", lambda *a: lookups.append(a[1]) or real(*a))
    t.upsert(_rows(spark, range(0, 4), 2, region="apac"))  # updates stay where the keys live
    assert lookups == [path]
    got = {r["id"]: (r["_hoodie_partition_path"], r["ts"]) for r in spark.read.format("hudi-meta").load(path).collect()}
    assert len(got) == 20 and got["k0000"] == ("eu", 2) and got["k0001"] == ("us", 2)
    assert not (Path(path) / "apac").exists()
    t.upsert(_rows(spark, range(4, 6), 3, region="apac"), {**opts, "hoodie.record.index.update.partition.path": "true"})
    got = {r["id"]: (r["_hoodie_partition_path"], r["ts"]) for r in spark.read.format("hudi-meta").load(path).collect()}
    assert len(got) == 20 and got["k0004"] == ("apac", 3) and got["k0005"] == ("apac", 3)
    _assert_index_right(spark, path)
    t.delete(_rows(spark, [4, 7], 4, region="nowhere"))  # found by the index wherever they are
    got = {r["id"] for r in spark.read.format("hudi-meta").load(path).collect()}
    assert "k0004" not in got and "k0007" not in got and len(got) == 18
    _assert_index_right(spark, path)


def test_merge_on_read_inserts_join_log_files_under_the_record_index(spark, tmp_path):
    """The record index finds keys in log files, so merge-on-read inserts into small file groups go to
    their log files (Hudi's canIndexLogFiles): no base file is rewritten; compaction folds them in."""
    path = str(tmp_path / "logs")
    t = HudiTable(spark, path, {**OPTS, "hoodie.index.type": "RECORD_INDEX", "hoodie.compact.inline": "false",
                                "hoodie.datasource.write.table.type": "MERGE_ON_READ"})
    t.insert(_rows(spark, range(20), 1))
    def data_files(pattern):
        return sorted(p.name for p in Path(path).rglob(pattern) if ".hoodie" not in p.parts)
    bases = data_files("*.parquet")
    t.upsert(_rows(spark, range(15, 25), 2))  # 5 updates, 5 new keys
    assert data_files("*.parquet") == bases
    assert len(data_files("*.log.*")) == 2  # one per partition's file group
    got = {r["id"]: r["ts"] for r in spark.read.format("hudi-meta").load(path).collect()}
    assert len(got) == 25 and got["k0024"] == 2 and got["k0000"] == 1
    _assert_index_right(spark, path)
    assert t.compact()
    _assert_index_right(spark, path)
    assert {r["id"]: r["ts"] for r in spark.read.format("hudi-meta").load(path).collect()} == got


def test_point_query_on_our_table_reads_only_the_keys_file_group(spark, tmp_path):
    """With every data file of the other file groups moved away, a query for one key still returns its
    row: planning read only the file group the record index named."""
    from pyspark.sql import functions as F

    path = str(tmp_path / "point")
    t = HudiTable(spark, path, {**OPTS, "hoodie.parquet.small.file.limit": "0"})
    for start in range(0, 40, 10):  # four file groups a partition; upserts: the keys stay unique (RepeatedKeys)
        t.upsert(_rows(spark, range(start, start + 10), 1))
    partition, file_id = _index(spark, path)["k0013"]
    away = tmp_path / "away"
    away.mkdir()
    moved = 0
    for f in Path(path).rglob("*"):
        if f.is_file() and ".hoodie" not in f.parts and (f.suffix == ".parquet" or ".log." in f.name) \
                and not f.name.startswith(file_id) and not f.name.startswith("." + file_id):
            f.rename(away / f.name)
            moved += 1
    assert moved >= 7
    df = spark.read.format("hudi-meta").load(path).filter(F.col("id") == "k0013")
    rows = df.collect()
    assert [(r["id"], r["region"], r["v"]) for r in rows] == [("k0013", partition, 13)]
    plan = df._jdf.queryExecution().executedPlan().toString()
    assert "record_index: 1 key -> 1 file group" in plan
    from py4j.protocol import Py4JJavaError
    from pyspark.errors import PySparkException
    with pytest.raises((Py4JJavaError, PySparkException)):  # a read that needs the other files fails
        spark.read.format("hudi-meta").load(path).filter(F.col("id") == "k0014").collect()


def _jobs(spark) -> int:
    return max(spark.sparkContext.statusTracker().getJobIdsForGroup(None), default=-1)


@pytest.mark.parametrize("table_type", ["COPY_ON_WRITE", "MERGE_ON_READ"])
def test_small_batches_tagged_by_the_record_index_are_written_in_the_driver(spark, tmp_path, monkeypatch, table_type):
    """A small upsert or delete with hoodie.index.type=RECORD_INDEX finds its keys by one driver-side lookup
    (no executor lookup, no key read of the partition, whatever slices it holds) and leaves what the
    executors' path leaves: the same records (connector, hudi-rs) and a record index right for every key."""
    lookups = []
    real = record_tagging.locate
    monkeypatch.setattr(record_tagging, "locate", lambda *a: lookups.append(a[1]) or real(*a))
    got, jobs = {}, {}
    for name, limit in (("driver", "10000"), ("executors", "0")):
        path = str(tmp_path / name)
        opts = {**OPTS, "hoodie.index.type": "RECORD_INDEX", "hoodie.datasource.write.table.type": table_type,
                "pyhudi.write.small.batch.max.records": limit}
        t = HudiTable(spark, path, opts)
        for start in range(0, 600, 200):  # three commits: several file groups per partition
            t.bulk_insert(_rows(spark, range(start, start + 200), 1))
        lookups.clear()
        first = _jobs(spark)
        t.upsert(_rows(spark, list(range(0, 600, 7)) + list(range(600, 620)), 2))
        t.delete(_rows(spark, [3, 5, 700], 3))  # 700 is not in the table
        jobs[name], calls = _jobs(spark) - first, len(lookups)
        assert calls == (0 if name == "driver" else 2), name
        _assert_index_right(spark, path)
        got[name] = {r["id"]: (r["ts"], r["v"]) for r in spark.read.format("hudi-meta").load(path).collect()}
        from hudi import HudiTableBuilder

        rs = pa.Table.from_batches(HudiTableBuilder.from_base_uri(path).build().read())
        assert got[name] == {k: (ts, v) for k, ts, v in zip(*(rs.column(c).to_pylist() for c in ("id", "ts", "v")))}
    assert got["driver"] == got["executors"] and len(got["driver"]) == 618
    assert got["driver"]["k0007"] == (2, 7) and got["driver"]["k0619"] == (2, 619) and "k0003" not in got["driver"]
    assert jobs["driver"] < jobs["executors"]
