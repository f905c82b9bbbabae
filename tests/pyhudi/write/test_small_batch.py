"""Small batches written in the driver (pyhudi.write.small_batch): a 100-record upsert or delete runs a handful of
Spark jobs instead of a dozen, and leaves the same table as the executors' path (pyhudi.write.small.batch.max.records
= 0): same records through the connector and hudi-rs, same file groups."""
from pathlib import Path

import pyarrow as pa
import pytest

from pyhudi.hudi_table import HudiTable

SCHEMA = "id string, ts long, region string, v double"
OPTS = {"hoodie.table.name": "small", "hoodie.datasource.write.recordkey.field": "id",
        "hoodie.datasource.write.precombine.field": "ts", "hoodie.datasource.write.partitionpath.field": "region"}
REGIONS = ("eu", "us", "ap")


def _rows(spark, ids, ts):
    return spark.createDataFrame([(f"k{i:05d}", ts, REGIONS[i % 3], float(i * ts)) for i in ids], SCHEMA)


def _jobs(spark) -> int:
    """The newest job's id: ids grow by one per job (the tracker keeps only the last thousand jobs)."""
    return max(spark.sparkContext.statusTracker().getJobIdsForGroup(None), default=-1)


def _hudi_rs(path) -> dict:
    from hudi import HudiTableBuilder

    t = pa.Table.from_batches(HudiTableBuilder.from_base_uri(path).build().read())
    return {k: (ts, v) for k, ts, v in zip(*(t.column(c).to_pylist() for c in ("id", "ts", "v")))}


def _groups(path) -> dict[str, int]:
    """partition -> file groups on disk."""
    return {p.name: len({f.name.lstrip(".").split("_")[0] for f in p.iterdir() if not f.name.startswith(".hoodie")})
            for p in Path(path).iterdir() if p.name in REGIONS}


@pytest.mark.parametrize("table_type", ["COPY_ON_WRITE", "MERGE_ON_READ"])
def test_small_upserts_and_deletes_run_few_jobs_and_write_what_the_executor_path_writes(spark, tmp_path, table_type):
    tables, jobs = {}, {}
    for name, limit in (("driver", "10000"), ("executors", "0")):
        path = str(tmp_path / name)
        table = HudiTable(spark, path, {**OPTS, "hoodie.datasource.write.table.type": table_type,
                                        "pyhudi.write.small.batch.max.records": limit})
        table.insert(_rows(spark, range(3000), 1))
        start = _jobs(spark)
        table.upsert(_rows(spark, [i * 37 % 3000 for i in range(90)] + list(range(3000, 3010)), 2))
        table.delete(_rows(spark, [5, 6, 7, 4000], 3))  # 4000 is not in the table
        jobs[name] = _jobs(spark) - start
        tables[name] = path
    want = {f"k{i:05d}": (1, float(i)) for i in range(3000)}
    want.update({f"k{i:05d}": (2, float(i * 2)) for i in [i * 37 % 3000 for i in range(90)] + list(range(3000, 3010))})
    for i in (5, 6, 7):
        want.pop(f"k{i:05d}", None)
    for name, path in tables.items():
        read = HudiTable(spark, path, {}).read()
        assert {r["id"]: (r["ts"], r["v"]) for r in read.collect()} == want == _hudi_rs(path), name
    assert _groups(tables["driver"]) == _groups(tables["executors"])
    assert jobs["driver"] <= 10 < jobs["executors"]  # two writes: at most five jobs each


def test_a_batch_over_the_limit_goes_to_the_executors(spark, tmp_path):
    path = str(tmp_path / "t")
    table = HudiTable(spark, path, {**OPTS, "pyhudi.write.small.batch.max.records": "50"})
    table.insert(_rows(spark, range(100), 1))
    start = _jobs(spark)
    table.upsert(_rows(spark, range(60), 2))
    assert _jobs(spark) - start > 6
    start = _jobs(spark)
    table.upsert(_rows(spark, range(40), 3))
    assert _jobs(spark) - start <= 6
    got = {r["id"]: r["ts"] for r in table.read().collect()}
    assert got == {f"k{i:05d}": 3 if i < 40 else 2 if i < 60 else 1 for i in range(100)}


def test_a_small_batch_over_partitions_of_too_many_slices_goes_to_the_executors(spark, tmp_path, monkeypatch):
    """The driver would read every touched slice's keys: past MAX_SLICES the executors tag and write the batch (the
    batch already taken to the driver is dropped, its keys read again from the input), with the same result."""
    from pyhudi.write import small_batch

    table = HudiTable(spark, str(tmp_path / "t"), OPTS)
    table.insert(_rows(spark, range(90), 1))
    monkeypatch.setattr(small_batch, "MAX_SLICES", 2)  # the batch touches three partitions of one slice each
    start = _jobs(spark)
    table.upsert(_rows(spark, [0, 0, 1, 2, 95], 2))  # k00000 twice, with equal records: one is kept
    assert _jobs(spark) - start > 6
    got = {r["id"]: r["ts"] for r in table.read().collect()}
    assert got == {f"k{i:05d}": 2 if i in (0, 1, 2, 95) else 1 for i in [*range(90), 95]}


@pytest.mark.parametrize("table_type,index,where", [("COPY_ON_WRITE", "SIMPLE", "executors"),
                                                     ("MERGE_ON_READ", "SIMPLE", "executors"),
                                                     ("COPY_ON_WRITE", "RECORD_INDEX", "executors"),
                                                     ("MERGE_ON_READ", "RECORD_INDEX", "driver")])
def test_base_files_past_the_byte_limit_send_a_small_batch_to_the_executors(spark, tmp_path, table_type, index, where):
    """pyhudi.write.small.batch.max.file.bytes bounds the base files the driver would read keys from (SIMPLE) or
    rewrite (copy-on-write); a merge-on-read batch tagged by the record index touches none (log files only), so
    it stays in the driver past the limit. Either way the records come out the same."""
    opts = {**OPTS, "hoodie.datasource.write.table.type": table_type, "hoodie.index.type": index}
    table = HudiTable(spark, str(tmp_path / "t"), opts)
    table.insert(_rows(spark, range(90), 1))
    small = HudiTable(spark, str(tmp_path / "t"), {**opts, "pyhudi.write.small.batch.max.file.bytes": "1"})
    start = _jobs(spark)
    small.upsert(_rows(spark, [0, 1, 2, 95], 2))
    assert (_jobs(spark) - start <= 6) == (where == "driver")
    got = {r["id"]: r["ts"] for r in table.read().collect()}
    assert got == {f"k{i:05d}": 2 if i in (0, 1, 2, 95) else 1 for i in [*range(90), 95]}
    assert got == {k: ts for k, (ts, _) in _hudi_rs(str(tmp_path / "t")).items()}


def test_a_small_batch_keeps_the_greatest_ordering_value_of_each_key(spark, tmp_path):
    got = {}
    for name, limit in (("driver", "10000"), ("executors", "0")):
        table = HudiTable(spark, str(tmp_path / name), {**OPTS, "pyhudi.write.small.batch.max.records": limit})
        table.insert(_rows(spark, range(10), 1))
        rows = [("k00001", 5, "us", 1.0), ("k00001", 9, "us", 2.0), ("k00001", None, "us", 3.0),
                ("k00002", 4, "ap", 4.0), ("k00002", 4, "ap", 5.0), ("k00099", 7, "eu", 6.0)]
        table.upsert(spark.createDataFrame(rows, SCHEMA))
        got[name] = {r["id"]: (r["ts"], r["v"]) for r in table.read().collect()}
    assert got["driver"]["k00001"] == got["executors"]["k00001"] == (9, 2.0)
    assert got["driver"]["k00099"] == (7, 6.0) and got["driver"]["k00002"][0] == 4
    assert set(got["driver"]) == set(got["executors"]) and len(got["driver"]) == 11
