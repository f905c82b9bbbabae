"""A write to one partition makes a number of storage list calls and instant-file reads that does not
grow with the table: 2,000 partitions after 500 commits cost what 20 partitions after 10 commits cost.
Counted on both halves with the real write path: the JVM's local file system is swapped for one that
records every listing and open (io.hudimeta.metadata.CountingLocalFileSystem, via fs.file.impl), and
pyhudi's Storage records its listings and reads."""
from __future__ import annotations

import contextlib
import sys
from pathlib import Path

import pytest

from pyhudi.storage import Storage

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "metadata"))
from synthetic import SyntheticTable  # noqa: E402

OPTIONS = {"hoodie.table.name": "t", "hoodie.datasource.write.recordkey.field": "id",
           "hoodie.datasource.write.partitionpath.field": "city", "hoodie.datasource.write.precombine.field": "ts",
           "hoodie.datasource.write.hive_style_partitioning": "true", "hoodie.datasource.write.operation": "upsert",
           # metadata-table compaction (every 10 writes by default) rewrites what the table holds; keep it out of
           # the one write compared here, it is not part of what a write costs to plan
           "hoodie.metadata.compact.max.delta.commits": "100000",
           # the table services a write runs after its commit are theirs to count (a table's first clean
           # looks at every partition; later ones at those written since), not the write's
           "hoodie.clean.automatic": "false", "hoodie.archive.automatic": "false"}


def _table(path, partitions: int, commits: int, metadata: bool) -> SyntheticTable:
    """`partitions` partitions of one base file each (one commit), then `commits` - 1 commits of one new
    file group each, rotating over the partitions; the metadata table committed with each when on."""
    t = SyntheticTable(path)
    cities = [f"c{i:04d}" for i in range(partitions)]
    t.commit(lambda instant: [t.write_base(instant, c, [i]) for i, c in enumerate(cities)])
    mdt = None
    if metadata:
        mdt = t.mdt(partitions=["files"])
        mdt.initialize()
    for k in range(1, commits):
        t.commit(lambda instant, k=k: [t.write_base(instant, cities[k % partitions], [10_000 + k])], mdt=mdt)
    return t


@contextlib.contextmanager
def _counted(spark, monkeypatch):
    """Records the storage calls of both halves inside the block: {"jvm_list", "jvm_open", "py_list", "py_read"}."""
    jvm = spark._jvm.io.hudimeta.metadata.CountingLocalFileSystem
    conf = spark._jsc.hadoopConfiguration()
    saved = {k: conf.get(k) for k in ("fs.file.impl", "fs.file.impl.disable.cache")}
    py_list, py_read = [], []
    real_list, real_read = Storage.list, Storage.read
    monkeypatch.setattr(Storage, "list", lambda self, p: py_list.append(p) or real_list(self, p))
    monkeypatch.setattr(Storage, "read", lambda self, p: py_read.append(p) or real_read(self, p))
    conf.set("fs.file.impl", "io.hudimeta.metadata.CountingLocalFileSystem")
    conf.set("fs.file.impl.disable.cache", "true")
    calls: dict[str, list[str]] = {}
    jvm.start()
    try:
        yield calls
    finally:
        jvm.stop()
        for k, v in saved.items():
            conf.unset(k) if v is None else conf.set(k, v)
        monkeypatch.setattr(Storage, "list", real_list)
        monkeypatch.setattr(Storage, "read", real_read)
        calls.update(jvm_list=[str(x) for x in jvm.listings()], jvm_open=[str(x) for x in jvm.opens()],
                     py_list=list(py_list), py_read=list(py_read))


def _upsert(spark, t: SyntheticTable, metadata: bool, monkeypatch) -> dict[str, list[str]]:
    df = spark.createDataFrame(t.rows([7, 900_001], "c0003"))
    spark._jvm.io.hudimeta.view.TableViews.clear()  # a cold writer: the view is built by this write
    with _counted(spark, monkeypatch) as calls:
        (df.write.format("hudi-meta").options(**OPTIONS, **{"hoodie.metadata.enable": str(metadata).lower()})
         .mode("append").save(t.base))
    return calls


def _summary(calls: dict[str, list[str]], base: str) -> dict[str, int]:
    """Storage calls by kind: listings of data partitions, other listings, instant-file reads."""
    def data_partition(p: str) -> bool:
        return "/city=" in p and "/.hoodie" not in p

    def instant_file(p: str) -> bool:
        return "/.hoodie/timeline/" in p and not p.endswith("hoodie.properties")

    lists = calls["jvm_list"] + [f"list {p}" for p in calls["py_list"]]
    reads = calls["jvm_open"] + calls["py_read"]
    return {"data partition listings": sum(data_partition(c) for c in lists),
            "other listings": sum(not data_partition(c) for c in lists),
            "data instant-file reads": sum(instant_file(r) and "/metadata/" not in r for r in reads),
            "metadata-table instant-file reads": sum(instant_file(r) and "/metadata/" in r for r in reads)}


@pytest.mark.parametrize("metadata", [True, False], ids=["metadata-table", "listing"])
def test_a_write_costs_the_same_on_a_table_100x_bigger_and_50x_older(spark, tmp_path, monkeypatch, metadata):
    small = _table(tmp_path / "small", 20, 10, metadata)
    big = _table(tmp_path / "big", 2000, 500, metadata)
    s = _summary(_upsert(spark, small, metadata, monkeypatch), small.base)
    b = _summary(_upsert(spark, big, metadata, monkeypatch), big.base)
    print(f"\nstorage calls of one upsert ({'metadata table' if metadata else 'listing'}): "
          f"20 partitions / 10 commits {s}; 2,000 partitions / 500 commits {b}")
    assert b == s
    # only the written partition is listed, and only without a metadata table
    assert s["data partition listings"] <= (0 if metadata else 2)
    got = {r["id"] for r in spark.read.format("hudi-meta").load(big.base).filter("city = 'c0003'").collect()}
    assert {"k0007", "k900001"} <= got
