"""Runs the table-over-time benchmark and writes results.json, report.md and over_time.png.

pyhudi (services on): a merge-on-read table written with Apache Hudi's defaults: inline compaction
after 5 delta commits, cleaning and archival after every write. pyhudi (services off): the same with
hoodie.compact.inline, hoodie.clean.automatic and hoodie.archive.automatic false. delta-rs (services
on): `DeltaTable.merge` per upsert; every 10 commits `optimize.compact()`, `vacuum(0 hours)` and a
checkpoint. delta-rs (services off): merges only. The clock covers the write call (pyhudi: its inline
services included) and the scan (pyhudi: `spark.read.format("hudi-meta")`, delta-rs:
`DeltaTable(path).to_pyarrow_table()`), each summing one column and counting rows."""
from __future__ import annotations

import json
import os
import random
import shutil
import time

import pyarrow as pa
import pyarrow.compute as pc

from bench import env
from bench.results import save, write_report

RESULTS_DIR = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "results", "overtime")
DEFAULT_ROOT = os.path.join("/tmp", "pyhudi-bench", "overtime")
DEFAULT_ROWS, DEFAULT_UPSERTS, PARTITIONS = 1_000_000, 200, 10
SYSTEMS = ("pyhudi-services-on", "pyhudi-services-off", "delta-rs-services-on", "delta-rs-services-off")
OFF = {"hoodie.compact.inline": "false", "hoodie.clean.automatic": "false", "hoodie.archive.automatic": "false"}


def rows(keys: list[int], ts: int) -> pa.Table:
    return pa.table({"id": [f"k{k:08d}" for k in keys], "part": [f"p{k % PARTITIONS:02d}" for k in keys],
                     "ts": pa.array([ts] * len(keys), pa.int64()), "v": pa.array([k + ts for k in keys], pa.int64())})


def batch(n_rows: int, commit: int) -> pa.Table:
    """0.1% of the rows, keys spread over the table (the same batch for every system)."""
    rng = random.Random(commit)
    return rows(rng.sample(range(n_rows), max(1, n_rows // 1000)), commit)


def _hudi_options() -> dict[str, str]:
    return {"hoodie.table.name": "overtime", "hoodie.datasource.write.recordkey.field": "id",
            "hoodie.datasource.write.precombine.field": "ts", "hoodie.datasource.write.partitionpath.field": "part",
            "hoodie.datasource.write.table.type": "MERGE_ON_READ"}


class _Pyhudi:
    def __init__(self, spark, path: str, services: bool):
        self.spark, self.path = spark, path
        self.options = {**_hudi_options(), **({} if services else OFF)}

    def load(self, table: pa.Table) -> None:
        self.spark.createDataFrame(table.to_pandas()).write.format("hudi-meta").options(**self.options).option(
            "hoodie.datasource.write.operation", "bulk_insert").mode("overwrite").save(self.path)

    def upsert(self, table: pa.Table, commit: int) -> None:
        self.spark.createDataFrame(table.to_pandas()).write.format("hudi-meta").options(**self.options).mode(
            "append").save(self.path)

    def scan(self) -> tuple[int, int]:
        from pyspark.sql import functions as F
        r = self.spark.read.format("hudi-meta").load(self.path).agg(F.count("*"), F.sum("v")).collect()[0]
        return int(r[0]), int(r[1])


class _Delta:
    def __init__(self, path: str, services: bool):
        self.path, self.services = path, services

    def load(self, table: pa.Table) -> None:
        from deltalake import write_deltalake
        write_deltalake(self.path, table, partition_by=["part"], mode="overwrite")

    def upsert(self, table: pa.Table, commit: int) -> None:
        from deltalake import DeltaTable
        t = DeltaTable(self.path)
        (t.merge(table, "t.id = s.id AND t.part = s.part", source_alias="s", target_alias="t")
         .when_matched_update_all().when_not_matched_insert_all().execute())
        if self.services and commit % 10 == 0:
            t = DeltaTable(self.path)
            t.optimize.compact()
            t.vacuum(retention_hours=0, enforce_retention_duration=False, dry_run=False)
            t.create_checkpoint()

    def scan(self) -> tuple[int, int]:
        from deltalake import DeltaTable
        t = DeltaTable(self.path).to_pyarrow_table(columns=["v"])
        return t.num_rows, int(pc.sum(t.column("v")).as_py() or 0)


def _system(name: str, spark, path: str):
    services = name.endswith("services-on")
    return _Pyhudi(spark, path, services) if name.startswith("pyhudi") else _Delta(path, services)


def _timed(fn, *args):
    """(seconds, result) of fn(*args)."""
    start = time.perf_counter()
    out = fn(*args)
    return time.perf_counter() - start, out


def run(n_rows: int, upserts: int, every: int, systems: list[str], workdir: str, out: str) -> None:
    from bench.spark import session

    spark = session() if any(s.startswith("pyhudi") for s in systems) else None
    doc = {"rows": n_rows, "upserts": upserts, "every": every, "env": env.collect(), "systems": {}}
    initial = rows(list(range(n_rows)), 0)
    for name in systems:
        path = os.path.join(workdir, name)
        shutil.rmtree(path, ignore_errors=True)
        system = _system(name, spark, path)
        system.load(initial)
        upsert_s, scans, expected_sum = [], {}, int(pc.sum(initial.column("v")).as_py())
        current = dict.fromkeys(range(n_rows), 0)
        for c in range(1, upserts + 1):
            b = batch(n_rows, c)
            upsert_s.append(_timed(system.upsert, b, c)[0])
            for k in b.column("id").to_pylist():
                key = int(k[1:])
                expected_sum += (key + c) - (key + current[key])
                current[key] = c
            if c % every == 0:
                scans[c], got = _timed(system.scan)
                assert got == (n_rows, expected_sum), (name, c, got)  # untimed check of the result
                print(f"{name}: commit {c}: upsert {upsert_s[-1]:.2f} s, scan {scans[c]:.2f} s", flush=True)
        doc["systems"][name] = {"upsert_s": upsert_s, "scan_s": scans}
        save(os.path.join(out, "results.json"), doc)
    report(out)


def _at(values: list[float], commit: int, window: int = 5) -> float:
    """Median upsert latency of the `window` commits ending at `commit`."""
    part = sorted(values[max(0, commit - window):commit])
    return part[len(part) // 2]


def report(out: str) -> None:
    with open(os.path.join(out, "results.json")) as f:
        doc = json.load(f)
    every, last = doc["every"], doc["upserts"]
    lines = ["# Table over time", "", f"{doc['rows']:,} rows, {last} upserts of 0.1% each; median upsert "
             f"latency of the 5 commits up to each point, snapshot scan timed every {every} commits.", "",
             "| system | upsert @10 | upsert @last | ratio | scan @10 | scan @last | ratio |", "| --- " * 7 + "|"]
    for name, r in doc["systems"].items():
        scans = {int(k): v for k, v in r["scan_s"].items()}
        first, final = min(scans), max(scans)
        u10, ul = _at(r["upsert_s"], every), _at(r["upsert_s"], last)
        lines.append(f"| {name} | {u10:.2f} s | {ul:.2f} s | {ul / u10:.2f}x | {scans[first]:.2f} s | "
                     f"{scans[final]:.2f} s | {scans[final] / scans[first]:.2f}x |")
    lines += ["", "Goal (issue 13): with services on, the last upsert and the scan after it within 1.3x of the "
              "10th.", "", "![over time](over_time.png)", ""]
    _plot(doc, out)
    write_report(out, lines)


def _plot(doc: dict, out: str) -> None:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (a, b) = plt.subplots(1, 2, figsize=(12, 4.5))
    for name, r in doc["systems"].items():
        xs = list(range(1, len(r["upsert_s"]) + 1))
        a.plot(xs, r["upsert_s"], label=name, linewidth=0.8)
        scans = sorted((int(k), v) for k, v in r["scan_s"].items())
        b.plot([k for k, _ in scans], [v for _, v in scans], marker="o", label=name)
    a.set(title="upsert latency", xlabel="commit", ylabel="seconds")
    b.set(title="snapshot scan latency", xlabel="commit", ylabel="seconds")
    a.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(os.path.join(out, "over_time.png"), dpi=110)
    plt.close(fig)
