"""One writer process of several on one table.

    python -m bench.concurrency.worker init PATH KIND WORKLOAD
    python -m bench.concurrency.worker write RESULTS WRITER COMMITS SEED WORKLOAD PATH:KIND [PATH:KIND ...]

`write` upserts COMMITS batches into each table in turn and appends one JSON line per attempt to RESULTS:
table, writer, rows, start/end (epoch seconds), instant, and status "ok", "conflict" (HudiConflictError: `other`
is the instant it overlapped) or "error". Kinds: `cow-occ`, `mor-occ` (optimistic concurrency control), `mor-nbcc` (non-blocking, bucket index).
Workloads: `race` (three new keys of the writer in a random partition, half the time two shared keys too),
`disjoint` (each writer updates and inserts keys of its own partition), `overlap` (every writer updates random
keys of one shared partition).
"""
from __future__ import annotations

import json
import random
import sys
import time

SCHEMA = "id string, ts long, region string, val string"
SHARED_KEYS = {"race": 20, "disjoint": 400, "overlap": 400}
WORKLOADS = tuple(SHARED_KEYS)
KINDS = ("cow-occ", "mor-occ", "mor-nbcc")


def options(kind: str, name: str = "race") -> dict[str, str]:
    base = {"hoodie.table.name": name, "hoodie.datasource.write.recordkey.field": "id",
            "hoodie.datasource.write.precombine.field": "ts", "hoodie.datasource.write.partitionpath.field": "region",
            "hoodie.write.concurrency.mode": "optimistic_concurrency_control",
            "hoodie.client.heartbeat.interval_in_ms": "2000", "hoodie.datasource.write.table.type":
            "COPY_ON_WRITE" if kind == "cow-occ" else "MERGE_ON_READ", "hoodie.compact.inline.max.delta.commits": "4",
            "hoodie.keep.min.commits": "8", "hoodie.keep.max.commits": "12", "hoodie.cleaner.commits.retained": "6"}
    if kind == "mor-nbcc":
        base.update({"hoodie.write.concurrency.mode": "non_blocking_concurrency_control", "hoodie.index.type": "BUCKET",
                     "hoodie.bucket.index.num.buckets": "2"})
    return base


def region(workload: str, i: int) -> str:
    """The partition of shared key i: r0/r1 alternately (race), r<i % 4> (disjoint: one per writer), r0."""
    return {"race": f"r{i % 2}", "disjoint": f"r{i % 4}", "overlap": "r0"}[workload]


def initial_rows(workload: str = "race") -> list[tuple]:
    return [(f"s{i:03d}", 0, region(workload, i), "init") for i in range(SHARED_KEYS[workload])]


def batch(rng: random.Random, workload: str, writer: int, n: int) -> list[tuple]:
    """One commit's rows, all with one ordering value (the clock, so that a later batch wins)."""
    ts, val = time.time_ns() // 1000 * 10 + writer, f"w{writer}c{n}"  # microseconds, then the writer
    keys = SHARED_KEYS[workload]
    if workload == "race":
        part = rng.choice(("r0", "r1"))
        rows = [(f"w{writer}c{n}k{j}", ts, part, val) for j in range(3)]
        shared = rng.sample(range(keys), 2) if rng.random() < 0.5 else []
    elif workload == "disjoint":
        rows = [(f"w{writer}c{n}k{j}", ts, f"r{writer % 4}", val) for j in range(10)]
        shared = rng.sample([i for i in range(keys) if i % 4 == writer % 4], 50)
    else:
        rows, shared = [], rng.sample(range(keys), 50)
    return rows + [(f"s{i:03d}", ts, region(workload, i), val) for i in shared]


def _spark():
    from pyhudi import spark_session
    return spark_session(**{"spark.master": "local[1]", "spark.ui.enabled": "false",
                            "spark.sql.shuffle.partitions": "1", "spark.driver.memory": "1g"})


def init(path: str, kind: str, workload: str) -> None:
    from pyhudi.hudi_table import HudiTable
    spark = _spark()
    HudiTable(spark, path, options(kind)).upsert(spark.createDataFrame(initial_rows(workload), SCHEMA))
    spark.stop()


def write(results: str, writer: int, commits: int, seed: int, workload: str, tables: list[tuple[str, str]]) -> None:
    from pyhudi.hudi_table import HudiTable
    from pyhudi.write.concurrency import HudiConflictError
    spark = _spark()
    rng = random.Random(seed)
    with open(results, "a", encoding="utf-8") as out:
        for n in range(commits):
            for path, kind in tables:
                rows = batch(rng, workload, writer, n)
                line = {"table": path, "writer": writer, "n": n, "rows": rows, "start": time.time()}
                try:
                    line["instant"] = HudiTable(spark, path, options(kind)).upsert(spark.createDataFrame(rows, SCHEMA))
                    line["status"] = "ok"
                except HudiConflictError as e:
                    line.update(status="conflict", instant=e.instant, other=e.other, error=str(e))
                except Exception as e:  # noqa: BLE001 - any other failure is reported (the race test fails on it)
                    line.update(status="error", error=f"{type(e).__name__}: {e}")
                line["end"] = time.time()
                out.write(json.dumps(line) + "\n")
                out.flush()
    spark.stop()


def main(argv: list[str]) -> None:
    if argv[0] == "init":
        init(argv[1], argv[2], argv[3])
    else:
        tables = [tuple(arg.rsplit(":", 1)) for arg in argv[6:]]
        write(argv[1], int(argv[2]), int(argv[3]), int(argv[4]), argv[5], tables)


if __name__ == "__main__":
    main(sys.argv[1:])
