"""Secondary indexes (`secondary_index_<name>` partitions of the metadata table, Hudi 1.0's V1 layout) as
pyhudi builds them with the indexing action and keeps them with every write: after each write, the entries
the connector's own (Java) metadata-table reader merges equal `escape(value)$escape(key)` of every record a
snapshot read returns; the bytes and names on disk; the errors."""
import json
from pathlib import Path

import pyarrow as pa
import pytest

from pyhudi import faults
from pyhudi.cli import main as cli
from pyhudi.hfile import read_hfile
from pyhudi.hudi_table import HudiTable
from pyhudi.metadata import secondary_index as si
from pyhudi.metadata.java_hash import java_abs, java_rem, java_string_hash
from pyhudi.services import indexing
from tests.pyhudi.write.test_record_index import _partitions

SCHEMA = "id string, ts long, region string, city string, n int"
OPTS = {"hoodie.table.name": "si", "hoodie.datasource.write.recordkey.field": "id",
        "hoodie.datasource.write.precombine.field": "ts", "hoodie.datasource.write.partitionpath.field": "region",
        "hoodie.metadata.record.index.enable": "true", "hoodie.clean.automatic": "false",
        "hoodie.archive.automatic": "false"}
CITIES = ["paris", "a$b", "back\\slash", None, "oslo"]
PART = "secondary_index_city_idx"


def _rows(spark, ids, ts, city=lambda i: CITIES[i % len(CITIES)], region=None):
    return spark.createDataFrame(
        [(f"k{i:03d}", ts, region or ("eu", "us")[i % 2], city(i), i) for i in ids], SCHEMA)


def _entries(spark, path, part=PART) -> set[str]:
    """The entry keys the connector's metadata-table reader merges (present ones only)."""
    inspect = spark._jvm.io.hudimeta.metadata.MetadataInspect
    recs = json.loads(inspect.recordsJson(path, spark._jsc.hadoopConfiguration(), part, ""))
    for r in recs.values():  # type 7, {isDeleted: false}
        assert r["type"] == 7 and json.loads(r["payload"])["SecondaryIndexMetadata"] == {"isDeleted": False}
    return set(recs)


def _expected(spark, path, column="city") -> set[str]:
    rows = spark.read.format("hudi-meta").load(path).select("_hoodie_record_key", column).collect()
    return {si.entry_key(str(v), k) for k, v in rows if v is not None}


def _assert_right(spark, path):
    assert _entries(spark, path) == _expected(spark, path)


def _table(spark, path, **extra) -> HudiTable:
    t = HudiTable(spark, path, {**OPTS, **extra})
    t.bulk_insert(_rows(spark, range(40), 1))
    indexing.create(spark, path, PART, column="city")
    return t


def test_entries_follow_every_copy_on_write_write(spark, tmp_path):
    path = str(tmp_path / "cow")
    t = _table(spark, path)
    assert PART in _partitions(path)
    _assert_right(spark, path)
    assert si.entry_key("a$b", "k001") == "a\\$b$k001" and "a\\$b$k001" in _entries(spark, path)
    t.upsert(_rows(spark, range(30, 50), 2, city=lambda i: f"new{i % 3}"))  # 10 values change, 10 inserts
    _assert_right(spark, path)
    assert "paris$k030" not in _entries(spark, path)
    t.upsert(_rows(spark, range(30, 35), 0, city=lambda i: "stale"))  # older ts: the stored records win
    assert not any(e.startswith("stale$") for e in _entries(spark, path))
    _assert_right(spark, path)
    t.delete(_rows(spark, range(0, 40, 4), 3))
    _assert_right(spark, path)
    t.delete(_rows(spark, [1, 2], 3).select("id", "region"))  # keys only
    assert not {e for e in _entries(spark, path) if e.endswith(("$k001", "$k002"))}
    _assert_right(spark, path)
    t.insert_overwrite(_rows(spark, range(100, 104), 4, region="eu"))  # eu's old records and entries go
    _assert_right(spark, path)
    t.cluster(options={"hoodie.clustering.plan.strategy.small.file.limit": str(1 << 30)})
    _assert_right(spark, path)
    t.delete_partition(["us"])
    _assert_right(spark, path)


def test_entries_follow_merge_on_read_logs_and_compaction(spark, tmp_path, monkeypatch):
    from pyhudi.write import secondary_index
    monkeypatch.setattr(secondary_index, "POINT_READ_MAX_KEYS", 4)  # the updates' partitions are read instead
    path = str(tmp_path / "mor")
    t = _table(spark, path, **{"hoodie.datasource.write.table.type": "MERGE_ON_READ",
                               "hoodie.compact.inline": "false", "hoodie.metadata.compact.max.delta.commits": "1"})
    t.upsert(_rows(spark, range(20, 50), 2, city=lambda i: "lyon"))
    t.delete(_rows(spark, range(0, 6), 3))
    t.delete(_rows(spark, [6, 7], 3).select("id", "region"))  # keys only
    _assert_right(spark, path)
    # the metadata table's compaction merged the index's log files into new base files
    assert len(list((Path(path) / ".hoodie" / "metadata" / PART).glob("*.hfile"))) > 10
    assert t.compact()
    _assert_right(spark, path)
    from hudi import HudiTableBuilder
    rs = pa.Table.from_batches(HudiTableBuilder.from_base_uri(path).build().read())
    assert sorted(rs.column("id").to_pylist()) == sorted(
        r[0] for r in spark.read.format("hudi-meta").load(path).select("id").collect())


def test_layout_as_hudi_writes_it(spark, tmp_path):
    path = str(tmp_path / "layout")
    _table(spark, path)
    pdir = Path(path) / ".hoodie" / "metadata" / PART
    bases = sorted(p.name for p in pdir.glob("*.hfile"))
    assert len(bases) == 10 and all(b.startswith(f"secondary-index-city-idx-{i:04d}-0_") for i, b in enumerate(bases))
    for i, base in enumerate(bases):  # every entry sits in the group its whole key hashes to (V1)
        keys = [k.decode("utf-8") for k, _ in read_hfile((pdir / base).read_bytes())]
        assert keys and all(abs(java_rem(java_abs(java_string_hash(k)), 10)) == i for k in keys)
    defs = json.loads((Path(path) / ".hoodie" / ".index_defs" / "index.json").read_text())
    assert defs["indexDefinitions"][PART] == {"indexName": PART, "indexType": "secondary_index",
                                              "indexFunction": "identity", "sourceFields": ["city"],
                                              "indexOptions": {}}
    props = (Path(path) / ".hoodie" / "hoodie.properties").read_text()
    assert "hoodie.table.index.defs.path=.hoodie/.index_defs/index.json" in props


def test_writes_drop_what_they_cannot_keep(spark, tmp_path):
    path = str(tmp_path / "drop")
    t = _table(spark, path)
    t.upsert(_rows(spark, range(3), 2), options={"hoodie.metadata.index.secondary.enable": "false"})
    assert PART not in _partitions(path) and "record_index" in _partitions(path)
    assert not (Path(path) / ".hoodie" / "metadata" / PART).exists()
    indexing.create(spark, path, PART)  # the definition names the column
    _assert_right(spark, path)
    t.upsert(_rows(spark, range(3), 3), options={"hoodie.metadata.record.index.enable": "false"})
    assert PART not in _partitions(path) and "record_index" not in _partitions(path)


def test_errors_name_the_problem(spark, tmp_path):
    path = str(tmp_path / "errors")
    HudiTable(spark, path, {**OPTS, "hoodie.metadata.record.index.enable": "false"}).bulk_insert(
        spark.createDataFrame([("k900", 1, "eu", "x", 1, 0.5)], SCHEMA + ", f double"))
    with pytest.raises(indexing.IndexingError, match="needs the record index"):
        indexing.create(spark, path, PART, column="city")
    indexing.create(spark, path)
    with pytest.raises(indexing.IndexingError, match="no column 'town'"):
        indexing.create(spark, path, PART, column="town")
    with pytest.raises(indexing.IndexingError, match="cannot cover 'f' of type double"):
        indexing.create(spark, path, "secondary_index_f_idx", column="f")
    assert not [p for p in _partitions(path) if p.startswith("secondary_index_")]


def test_cli_creates_looks_up_and_drops(spark, tmp_path, capsys, monkeypatch):
    import pyhudi.cli.common as cli_common
    monkeypatch.setattr(cli_common, "spark", lambda: spark)
    path = str(tmp_path / "cli")
    HudiTable(spark, path, OPTS).bulk_insert(_rows(spark, range(10), 1))
    assert cli(["index", "create", path, "--type", "secondary", "--column", "city"]) == 0
    assert cli(["index", "list", path]) == 0
    assert f"{PART}: built, 10 file groups, on column city" in capsys.readouterr().out
    assert cli(["index", "lookup", "--name", "city_idx", path, "a$b", "nowhere"]) == 0
    out = capsys.readouterr().out
    assert "a$b: k001, k006" in out and "nowhere: no record" in out
    assert cli(["index", "drop", path, "--name", "city_idx"]) == 0
    assert PART not in _partitions(path)
    assert PART not in json.loads((Path(path) / ".hoodie" / ".index_defs" / "index.json").read_text())[
        "indexDefinitions"]


def test_built_while_a_writer_goes_on(spark, tmp_path):
    path = str(tmp_path / "online")
    t = HudiTable(spark, path, {**OPTS, "hoodie.datasource.write.table.type": "MERGE_ON_READ",
                                "hoodie.compact.inline": "false"})
    t.insert(_rows(spark, range(30), 1))
    writes, started = [], []

    def meanwhile():  # between the snapshot build and the hand-over: the index is listed inflight
        if started:  # the writes below pass this crash point too
            return
        started.append(True)
        assert PART not in _partitions(path)
        writes.append(t.upsert(_rows(spark, range(25, 35), 2, city=lambda i: "rome")))
        writes.append(t.delete(_rows(spark, range(0, 4), 3)))
    with faults.at("after_files", meanwhile):
        indexing.create(spark, path, PART, column="city")
    assert len(writes) == 2 and PART in _partitions(path)
    assert {e for e in _entries(spark, path) if e.startswith("rome$")} == {f"rome$k{i:03d}" for i in range(25, 35)}
    _assert_right(spark, path)
    t.upsert(_rows(spark, range(30, 33), 4, city=lambda i: "oslo"))  # later writes keep it
    _assert_right(spark, path)


def test_sql_create_and_drop_index(spark, tmp_path):
    from tests.connector.spark.test_sql_dml import _location
    spark.sql("DROP TABLE IF EXISTS si_sql")
    spark.sql(f"CREATE TABLE si_sql (id string, ts long, city string) USING `hudi-meta` LOCATION '{tmp_path}/t' "
              "TBLPROPERTIES (primaryKey = 'id', preCombineField = 'ts', 'hoodie.metadata.record.index.enable' = "
              "'true', 'hoodie.clean.automatic' = 'false', 'hoodie.archive.automatic' = 'false')")
    try:
        spark.sql("INSERT INTO si_sql VALUES ('a', 1, 'paris'), ('b', 1, 'oslo'), ('c', 1, 'paris')")
        path = _location(spark, "si_sql")
        spark.sql("CREATE INDEX idx_city ON si_sql (city)")
        assert "secondary_index_idx_city" in _partitions(path)
        spark.sql("CREATE INDEX IF NOT EXISTS idx_city ON si_sql (city)")  # already there: nothing happens
        with pytest.raises(Exception, match="idx_city"):
            spark.sql("CREATE INDEX idx_city ON si_sql (city)")
        with pytest.raises(Exception, match="USING bitmap is not supported"):
            spark.sql("CREATE INDEX idx_x ON si_sql USING bitmap (city)")
        spark.sql("UPDATE si_sql SET city = 'rome', ts = 2 WHERE id = 'a'")
        spark.sql("INSERT INTO si_sql VALUES ('d', 1, 'oslo')")
        assert _entries(spark, path, "secondary_index_idx_city") == {"rome$a", "oslo$b", "paris$c", "oslo$d"}
        spark.sql("DROP INDEX idx_city ON si_sql")
        assert "secondary_index_idx_city" not in _partitions(path) and "record_index" in _partitions(path)
        with pytest.raises(Exception, match="idx_city"):
            spark.sql("DROP INDEX idx_city ON si_sql")
    finally:
        spark.sql("DROP TABLE IF EXISTS si_sql")


def test_apache_hudis_own_secondary_index_kept_by_our_writes(spark, fixture_tables, tmp_path):
    """Hudi 1.0 wrote the v8 trips table with `secondary_index_rider_idx`; upserts through pyhudi (record index
    kept) move the entries of the riders they change."""
    import shutil
    path = str(tmp_path / "v8")
    shutil.copytree(fixture_tables["quickstart_trips_table_mor_avro__v8_trips_8i3u1d"], path)
    part = "secondary_index_rider_idx"
    before = _entries(spark, path, part)
    assert before == _expected(spark, path, "rider") and before
    snap = spark.read.format("hudi-meta").load(path)
    first = snap.orderBy("uuid").limit(2).drop(*[c for c in snap.columns if c.startswith("_hoodie")])
    changed = first.selectExpr("ts + 1 AS ts", "uuid", "concat(rider, '-moved') AS rider", "driver", "fare", "city")
    HudiTable(spark, path, {"hoodie.metadata.record.index.enable": "true", "hoodie.compact.inline": "false",
                            "hoodie.clean.automatic": "false", "hoodie.archive.automatic": "false"}).upsert(changed)
    after = _entries(spark, path, part)
    assert after == _expected(spark, path, "rider") and len(after) == len(before)
    assert sum(e.split("$")[0].endswith("-moved") for e in after) == 2


def test_reads_of_our_table_prune_by_its_secondary_index(spark, tmp_path):
    import re

    from pyspark.sql import functions as F
    path = str(tmp_path / "read")
    t = _table(spark, path)
    t.upsert(_rows(spark, [7], 2, city=lambda i: "lyon"))  # the index's log file holds lyon$k007
    described = re.compile(r"record_index: (\d+) keys? \(secondary_index_city_idx: 1 value\) -> (\d+) file groups?")
    for value, ids in (("lyon", ["k007"]), ("a$b", [f"k{i:03d}" for i in range(1, 40, 5)]), ("nowhere", [])):
        df = spark.read.format("hudi-meta").load(path).where(F.col("city") == value)
        assert sorted(r.id for r in df.select("id").collect()) == ids
        m = described.search(df._jdf.queryExecution().executedPlan().toString())
        assert m and int(m[1]) == len(ids) and (int(m[2]) > 0) == bool(ids), value


def test_an_index_built_while_a_write_ran_gets_that_writes_entries(spark, tmp_path, monkeypatch):
    """A write that looked before an index was defined, and commits after its build completed, writes its
    entries at the commit (it neither leaves the index stale nor drops it)."""
    from pyhudi.write import secondary_index
    path = str(tmp_path / "late")
    t = _table(spark, path)
    real, calls = secondary_index.maintained, []

    def unseen_at_first(*args):
        calls.append(1)
        return [] if len(calls) == 1 else real(*args)
    monkeypatch.setattr(secondary_index, "maintained", unseen_at_first)
    t.upsert(_rows(spark, range(5), 2, city=lambda i: "late"))
    assert len(calls) >= 2 and PART in _partitions(path)
    _assert_right(spark, path)
    assert {e for e in _entries(spark, path) if e.startswith("late$")} == {f"late$k{i:03d}" for i in range(5)}
