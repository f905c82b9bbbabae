"""Reads pruned by the record-level index: `key = v` / `key IN (...)` plan only the file groups the
record index places the keys in. It answers first, as in Hudi's file index: only the partitions holding the
keys are listed and no stats are read.

The proof is a copy of a fixture table from which every data file of the other file groups has been
moved away: the metadata table still lists them, so a read that opened any of them would fail. The
rows must equal hudi-rs's snapshot of the fixture, and the scan's description and SQL metrics must
report the record_index step.
"""
from __future__ import annotations

import json
import re
import shutil
import sys
from pathlib import Path

import pytest
from pyspark.sql import functions as F

from conftest import FIXTURES
from tests.connector.spark.test_data_skipping import scan_node

from tests.canonical import canon

V8_MDT = "quickstart_trips_table_mor_avro__v8_trips_8i3u1d"
V9_MOR_META = "sample_table_mor_avro__v9_txns_simple_meta"
V9_COW_META = "sample_table_cow__v9_txns_simple_meta"
KEY_FIELD = {V8_MDT: "uuid", V9_MOR_META: "txn_id", V9_COW_META: "txn_id"}
DS = "hoodie.enable.data.skipping"
MAX_KEYS = "hudi-meta.record.index.max.lookup.keys"
METRICS = ["partitionsAfterPathPruning", "partitionsAfterPartitionStats", "fileSlicesBeforeSkipping",
           "fileSlicesAfterSkipping", "filesAfterSkipping", "recordIndexKeys", "fileSlicesAfterRecordIndex",
           "filesAfterRecordIndex"]
RECORD_INDEX = re.compile(r"record_index: (off\([^)]*\)|(\d+) keys? -> (\d+) file groups?, "
                          r"(\d+) of (\d+) file slices pruned)")
LOG_FILE = re.compile(r"\.(.+?)_\d+\.log\.\d+(?:_\d+-\d+-\d+)?")


# the Hudi 1.1 tables' later INSERT INTO commits may have written a key twice: the index is read there as Apache
# Hudi reads it (test_a_key_written_twice_is_not_pruned_away checks the default)
TRUSTED = {"hudi-meta.record.index.trusted": "true"}


def read(spark, path, **options):
    return spark.read.format("hudi-meta").options(**{**TRUSTED, **options}).load(str(path))


def locations(spark, path) -> dict:
    """key -> [partition, file id] of every live key, from the record index."""
    keys = [r[0] for r in read(spark, path).select("_hoodie_record_key").collect()]
    found = json.loads(spark._jvm.io.hudimeta.index.RecordIndex.lookupJson(str(path), {}, json.dumps(keys)))
    return {k: [v["partition"], v["fileId"]] for k, v in found.items()}


def run(df):
    """Rows (canonical form), the scan's metrics and its record_index description: (outcome, keys, file
    groups, slices pruned, slices) with the counts None when off."""
    rows = canon(df.toArrow())["rows"]
    node = scan_node(df)
    metrics = {m: node.metrics().apply(m).value() for m in METRICS}
    described = RECORD_INDEX.search(df._jdf.queryExecution().executedPlan().toString())
    assert described, df._jdf.queryExecution().executedPlan().toString()
    return rows, metrics, described.groups()


def expected_rows(name, key_field, keys) -> list:
    exp = json.loads((FIXTURES / "expected" / f"{name}.snapshot.json").read_text())
    i = exp["columns"].index(key_field)
    return sorted((r for r in exp["rows"] if r[i] in keys), key=lambda r: ["" if v is None else v for v in r])


def file_id(name: str) -> str | None:
    m = LOG_FILE.fullmatch(name)
    if m:
        return m[1]
    return name.split("_", 1)[0] if name.endswith(".parquet") else None


def keep_only(fixture_tables, name, groups, tmp_path) -> Path:
    """A copy of the fixture without the data files of any file group but `groups` ([partition, fileId])."""
    base = tmp_path / name
    shutil.copytree(fixture_tables[name], base)
    kept = {tuple(g) for g in groups}
    moved = tmp_path / "moved"
    moved.mkdir()
    count = 0
    for f in base.rglob("*"):
        rel = f.relative_to(base)
        if not f.is_file() or rel.parts[0] == ".hoodie" or file_id(f.name) is None:
            continue
        partition = str(rel.parent) if str(rel.parent) != "." else ""
        if (partition, file_id(f.name)) not in kept:
            f.rename(moved / f"{count}_{f.name}")
            count += 1
    assert count > 0
    return base


@pytest.mark.parametrize("name", [V9_MOR_META, V8_MDT])
def test_point_query_reads_only_the_file_group_of_the_key(spark, fixture_tables, tmp_path, name):
    key_field = KEY_FIELD[name]
    where = locations(spark, fixture_tables[name])
    key = min(where)
    copy = keep_only(fixture_tables, name, [where[key]], tmp_path)
    with pytest.raises(Exception, match="FileNotFoundException"):
        read(spark, copy).count()  # control: a full read meets the files moved away
    for column in (key_field, "_hoodie_record_key"):
        rows, metrics, described = run(read(spark, copy).where(F.col(column) == key))
        assert rows == expected_rows(name, key_field, {key}) != []
        assert metrics["recordIndexKeys"] == 1 and metrics["fileSlicesAfterRecordIndex"] == 1
        assert metrics["partitionsAfterPartitionStats"] == 1 < metrics["partitionsAfterPathPruning"]  # one listed
        assert metrics["fileSlicesAfterSkipping"] == metrics["fileSlicesBeforeSkipping"]  # no column_stats read
        assert described[1:] == ("1", "1", str(metrics["fileSlicesAfterSkipping"] - 1),
                                 str(metrics["fileSlicesAfterSkipping"]))


def test_in_with_keys_of_two_file_groups(spark, fixture_tables, tmp_path):
    name = V9_MOR_META
    where = locations(spark, fixture_tables[name])
    first = min(where)
    second = min(k for k in where if where[k] != where[first])
    copy = keep_only(fixture_tables, name, [where[first], where[second]], tmp_path)
    query = read(spark, copy).where(F.col("txn_id").isin(first, second) & (F.col("amount") > -1))
    rows, metrics, described = run(query)
    assert rows == expected_rows(name, "txn_id", {first, second})
    assert metrics["recordIndexKeys"] == 2 and metrics["fileSlicesAfterRecordIndex"] == 2
    assert described[1:3] == ("2", "2")


def test_unknown_key_reads_no_file(spark, fixture_tables, tmp_path):
    copy = keep_only(fixture_tables, V9_MOR_META, [], tmp_path)  # every data file moved away
    for key in ("TXN-008x", "TXN-010x", "TXN-001x"):  # inside the files' key ranges: column_stats would keep files
        rows, metrics, described = run(read(spark, copy).where(F.col("txn_id") == key))
        assert rows == []
        assert metrics["partitionsAfterPartitionStats"] == 0 and metrics["fileSlicesAfterSkipping"] == 0
        assert metrics["fileSlicesAfterRecordIndex"] == 0 and metrics["filesAfterRecordIndex"] == 0
        assert described[1:] == ("1", "0", "0", "0")


def test_conjuncts_intersect_their_keys(spark, fixture_tables):
    path = fixture_tables[V9_MOR_META]
    both = F.col("txn_id").isin("TXN-008", "TXN-001") & (F.col("_hoodie_record_key") == "TXN-008")
    query = read(spark, path).where(both)
    rows, metrics, _ = run(query)
    assert rows == expected_rows(V9_MOR_META, "txn_id", {"TXN-008"})
    assert metrics["recordIndexKeys"] == 1 and metrics["fileSlicesAfterRecordIndex"] == 1


@pytest.mark.parametrize("options, why", [
    ({DS: "false"}, f"off({DS}=false)"),
    ({"hoodie.metadata.enable": "false"}, "off(storage-listing)"),
    ({MAX_KEYS: "1"}, f"off(2 keys > {MAX_KEYS}=1)"),
    ({"as.of.instant": "29991231000000000"}, "off(not-latest-snapshot)"),
    ({"hoodie.datasource.query.type": "read_optimized"}, "off(not-latest-snapshot)"),
])
def test_no_record_index_pruning_when_not_allowed(spark, fixture_tables, options, why):
    path = fixture_tables[V9_COW_META]
    where = locations(spark, path)
    keys = sorted(where)[:2]
    query = read(spark, path, **options).where(F.col("txn_id").isin(*keys))
    rows, metrics, described = run(query)
    assert rows == expected_rows(V9_COW_META, "txn_id", set(keys))
    assert described[0] == why
    assert metrics["recordIndexKeys"] == 0
    assert metrics["fileSlicesAfterRecordIndex"] == metrics["fileSlicesAfterSkipping"]
    assert metrics["filesAfterRecordIndex"] == metrics["filesAfterSkipping"]


def test_filters_that_do_not_pin_the_key(spark, fixture_tables):
    path = fixture_tables[V9_COW_META]
    for condition in (F.col("txn_id") > "TXN-005", (F.col("txn_id") == "TXN-001") | (F.col("amount") > 0),
                      F.col("currency") == "USD"):  # no index covers currency
        _, metrics, described = run(read(spark, path).where(condition))
        assert described[0] == "off(no-key-filter)"
        assert metrics["fileSlicesAfterRecordIndex"] == metrics["fileSlicesAfterSkipping"]


def test_table_without_record_index(spark, fixture_tables):
    _, _, described = run(read(spark, fixture_tables["sample_table_cow__v9_txns_simple_nometa"])
                          .where(F.col("txn_id") == "TXN-001"))
    assert described[0] == "off(storage-listing)"


def test_bad_cap_is_refused(spark, fixture_tables):
    with pytest.raises(Exception, match=f"{MAX_KEYS}=-1 is not valid"):
        read(spark, fixture_tables[V9_COW_META], **{MAX_KEYS: "-1"}).where(F.col("txn_id") == "x").collect()


@pytest.mark.parametrize("name", ["sample_table_cow__v9_timebasedkeygen_nonhivestyle",
                                  "sample_table_cow__v9_timebasedkeygen_unixtimestamp"])
def test_a_key_written_twice_is_not_pruned_away(spark, fixture_tables, name):
    """Apache Hudi 1.1's INSERT INTO wrote TXN-001 into two file groups; its record index names one. A filter on
    the key returns both rows, as the full snapshot holds them: the record index is not used, and the plan says
    why. Trusted, it prunes to the one place it names (what Apache Hudi 1.2 returns, tests/apache_hudi)."""
    path = fixture_tables[name]
    plain = spark.read.format("hudi-meta").load(path)
    held = plain.where(F.col("txn_id") == "TXN-001").count()
    assert held == 2 == sum(r["txn_id"] == "TXN-001" for r in plain.select("txn_id").collect())
    rows, _, described = run(plain.where(F.col("txn_id") == "TXN-001"))
    assert len(rows) == 2 and re.fullmatch(r"off\(keys-may-repeat: \d{17} insert; .*\)", described[0]), described
    assert read(spark, path).where(F.col("txn_id") == "TXN-001").count() == 1


def test_our_tables_are_pruned_until_an_insert_may_repeat_a_key(spark, tmp_path):
    """A first bulk_insert and upserts keep keys unique (pruned); a later insert may write one again (not)."""
    from pyhudi import HudiTable

    path = str(tmp_path / "t")
    table = HudiTable(spark, path, {"hoodie.table.name": "repeats", "hoodie.datasource.write.recordkey.field": "id",
                                    "hoodie.index.type": "RECORD_INDEX", "hoodie.parquet.small.file.limit": "0"})
    rows = lambda keys, v: spark.createDataFrame([(f"k{k}", v) for k in keys], "id string, v int")  # noqa: E731
    table.bulk_insert(rows(range(10), 1))
    table.upsert(rows(range(5, 15), 2))
    query = lambda: spark.read.format("hudi-meta").load(path).where(F.col("id") == "k7")  # noqa: E731
    assert run(query())[2][1] == "1" and [r.v for r in query().collect()] == [2]
    table.insert(rows([7], 3))
    rows_now, _, described = run(query())
    assert len(rows_now) == 2 and described[0].startswith("off(keys-may-repeat:") and " insert;" in described[0]
