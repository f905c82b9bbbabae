"""Small commits (issue 17): one 100-row upsert of existing keys into a 10,000-row table of 3 partitions - pyhudi
(SIMPLE index, and RECORD_INDEX) through the driver-side small-batch write and through the executors
(pyhudi.write.small.batch.max.records=0), COW and MOR, next to delta-rs merging the same rows into the same table
and to Spark alone bringing the batch to the driver (one job: what any writer on Spark pays first); median of 7
commits after 2 warm-ups, and Spark jobs per commit. The batch reaches Spark as Python rows (an RDD whose rows
Spark's Python workers unpickle in that job) and, for the driver-side writes, as the Arrow table delta-rs is given
(a local relation: no Python worker).

    python -m bench.small_commit            # writes bench/results/small_commit/report.md (about 3 minutes)
"""
import os
import shutil
import statistics
import tempfile
import time

import pyarrow as pa

WORK = os.path.join(tempfile.gettempdir(), "pyhudi-bench", "small_commit")
OUT = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "results", "small_commit")
SCHEMA = pa.schema([("id", pa.string()), ("ts", pa.int64()), ("region", pa.string()), ("v", pa.float64())])
DDL = "id string, ts long, region string, v double"  # SCHEMA as Spark DDL
REGIONS = ("a", "b", "c")
WARMUP, RUNS = 2, 7


def _base() -> list[tuple]:
    return [(f"k{i:05d}", 1, REGIONS[i % 3], 1.0 * i) for i in range(10000)]


def _batch(r: int) -> list[tuple]:
    keys = [(i * 37 + r) % 10000 for i in range(100)]
    return [(f"k{k:05d}", 2 + r, REGIONS[k % 3], 2.0) for k in keys]


def _arrow(data: list[tuple]) -> pa.Table:
    return pa.Table.from_pylist([dict(zip(SCHEMA.names, r)) for r in data], SCHEMA)


def _input(spark, r: int, source: str):
    """Batch `r` as Spark gets it: from Python rows (an RDD Spark's Python workers unpickle) or from the Arrow
    table delta-rs is given (a local relation the JVM holds)."""
    return spark.createDataFrame(_arrow(_batch(r))) if source == "arrow" else spark.createDataFrame(_batch(r), DDL)


def _pyhudi(spark, table_type: str, limit: str, index: str = "SIMPLE", source: str = "rows") -> tuple[float, float]:
    from pyhudi.hudi_table import HudiTable

    path = os.path.join(WORK, f"{table_type}_{limit}_{index}_{source}")
    shutil.rmtree(path, ignore_errors=True)
    table = HudiTable(spark, path, {
        "hoodie.table.name": "t", "hoodie.datasource.write.recordkey.field": "id",
        "hoodie.datasource.write.precombine.field": "ts", "hoodie.datasource.write.partitionpath.field": "region",
        "hoodie.datasource.write.table.type": table_type, "hoodie.compact.inline": "false",
        "pyhudi.write.small.batch.max.records": limit, "hoodie.index.type": index,
        "hoodie.metadata.record.index.enable": str(index == "RECORD_INDEX").lower()})
    table.insert(spark.createDataFrame(_base(), DDL))
    return _timed(spark, table.upsert, source)


def _floor(spark, source: str) -> tuple[float, float]:
    """What any Spark writer pays before writing: the 100-row input brought to the driver (one job)."""
    return _timed(spark, lambda df: df.toArrow(), source)


def _timed(spark, action, source: str) -> tuple[float, float]:
    """Median time and Spark jobs of `action` on each batch as a DataFrame (made outside the timing)."""
    tracker = spark.sparkContext.statusTracker()
    times, jobs = [], []
    for r in range(WARMUP + RUNS):
        df = _input(spark, r, source)
        first = max(tracker.getJobIdsForGroup(None), default=-1)
        start = time.perf_counter()
        action(df)
        if r >= WARMUP:
            times.append(time.perf_counter() - start)
            jobs.append(max(tracker.getJobIdsForGroup(None), default=-1) - first)
    return statistics.median(times), statistics.median(jobs)


def _delta_rs() -> float:
    import deltalake

    path = os.path.join(WORK, "delta")
    shutil.rmtree(path, ignore_errors=True)
    deltalake.write_deltalake(path, _arrow(_base()), partition_by=["region"])
    times = []
    for r in range(WARMUP + RUNS):
        start = time.perf_counter()
        (deltalake.DeltaTable(path).merge(_arrow(_batch(r)), "t.id = s.id AND t.region = s.region", source_alias="s",
                                          target_alias="t")
         .when_matched_update_all().when_not_matched_insert_all().execute())
        if r >= WARMUP:
            times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> None:
    from pyhudi import spark_session

    spark = spark_session(**{"spark.master": "local[2]", "spark.ui.enabled": "false",
                             "spark.sql.shuffle.partitions": "2"})
    out = {f"pyhudi {tt} {index} {label}": _pyhudi(spark, tt, limit, index)
           for index in ("SIMPLE", "RECORD_INDEX") for tt in ("COPY_ON_WRITE", "MERGE_ON_READ")
           for label, limit in (("small-batch write in the driver", "10000"), ("executors", "0"))}
    out.update({f"pyhudi {tt} {index} small-batch write in the driver, input an Arrow table":
                _pyhudi(spark, tt, "10000", index, "arrow")
                for index in ("SIMPLE", "RECORD_INDEX") for tt in ("COPY_ON_WRITE", "MERGE_ON_READ")})
    out["Spark alone: the input collected to the driver (the floor of a Spark writer)"] = _floor(spark, "rows")
    out["Spark alone: the input collected to the driver, input an Arrow table"] = _floor(spark, "arrow")
    out["delta-rs merge"] = (_delta_rs(), 0)
    lines = ["# Small commits: one 100-row upsert into a 10,000-row table", "",
             f"Command: `python -m bench.small_commit`, {time.strftime('%Y-%m-%dT%H:%M:%SZ', time.gmtime())}; "
             f"median of {RUNS} commits after {WARMUP} warm-ups, local[2].", "",
             "| system | median | Spark jobs per commit |", "| --- | --- | --- |"]
    lines += [f"| {k} | {t * 1000:.0f} ms | {j:g} |" for k, (t, j) in out.items()]
    os.makedirs(OUT, exist_ok=True)
    with open(os.path.join(OUT, "report.md"), "w") as f:
        f.write("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
