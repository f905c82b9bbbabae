"""Where a Spark-based plan spends its time: Java Flight Recorder on the driver JVM while the
plan of one case runs a few times, then the methods with the largest share of samples.

    python -m bench.planning profile [--size 100k] [--system hudi-meta-mdt] [--scenario full] [--runs 5]

Needs the JDK's `jcmd` and `jfr` on PATH and the tables of `--size` (built by `run`). Prints the
plan times, the GC pauses during the recording, and the inclusive share of samples of the
connector's methods (io.hudimeta) and of the Spark/Hadoop steps around them.
"""
from __future__ import annotations

import collections
import json
import os
import shutil
import subprocess
import tempfile
import time

from bench.planning import build, systems

INTERESTING = ("io/hudimeta/", "org/apache/hadoop/fs/Path.", "InMemoryFileIndex", "HadoopFSUtils",
               "ParquetUtils", "DataSource.resolveRelation", "inferSchema")


def _samples(jfr_file: str) -> list[list[str]]:
    raw = subprocess.run(["jfr", "print", "--json", "--stack-depth", "256", "--events", "jdk.ExecutionSample",
                          jfr_file], capture_output=True, text=True, check=True).stdout
    out = []
    for e in json.loads(raw)["recording"]["events"]:
        trace = e["values"].get("stackTrace") or {}
        out.append([f"{f['method']['type']['name']}.{f['method']['name']}" for f in trace.get("frames", [])])
    return out


def _gc_pause_ms(jfr_file: str) -> float:
    raw = subprocess.run(["jfr", "print", "--json", "--events", "jdk.GarbageCollection", jfr_file],
                         capture_output=True, text=True, check=True).stdout
    total = 0.0
    for e in json.loads(raw)["recording"]["events"]:
        v = e["values"].get("sumOfPauses")
        if isinstance(v, str) and v.startswith("PT") and v.endswith("S"):
            total += float(v[2:-1]) * 1000
        elif isinstance(v, (int, float)):
            total += v / 1e6
    return total


def profile(size: str, system: str, scenario: str, runs: int, root: str, top: int = 40) -> dict:
    from bench import spark as bench_spark

    for tool in ("jcmd", "jfr"):
        if shutil.which(tool) is None:
            raise SystemExit(f"{tool} not found: profiling needs the JDK tools on PATH")
    shape = build.SHAPES[size]
    paths = build.Paths(os.path.join(root, size))
    if not os.path.exists(paths.manifest):
        raise SystemExit(f"no tables in {paths.root}: run `python -m bench.planning run --sizes {size}` first")
    spark = bench_spark.session()
    if system == "spark-parquet":
        planner = systems.parquet_planner(spark, paths.hudi)
    elif system in ("hudi-meta-mdt", "hudi-meta-listing"):
        planner = systems.hudi_planner(spark, paths.hudi, system == "hudi-meta-mdt")
    else:
        raise SystemExit("profile covers the Spark-based systems: hudi-meta-mdt, hudi-meta-listing, spark-parquet")
    cond = systems.spark_filter(shape, scenario)
    for _ in range(3):
        planner(cond)
    pid = str(spark._jvm.java.lang.ProcessHandle.current().pid())
    out = os.path.join(tempfile.mkdtemp(prefix="planning-jfr-"), f"{size}-{system}-{scenario}.jfr")
    subprocess.run(["jcmd", pid, "JFR.start", "name=planning", "settings=profile", f"filename={out}"],
                   check=True, capture_output=True)
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        planner(cond)
        times.append(time.perf_counter() - t0)
    subprocess.run(["jcmd", pid, "JFR.stop", "name=planning"], check=True, capture_output=True)
    samples = _samples(out)
    incl: collections.Counter = collections.Counter()
    for frames in samples:
        for name in set(frames):
            incl[name] += 1
    planning = [f for f in samples if any(n.startswith("io/hudimeta/") or "FileSourceScan" in n
                                          or "QueryExecution" in n for n in f)]
    rows = [(n, c / max(1, len(samples))) for n, c in incl.most_common() if any(k in n for k in INTERESTING)][:top]
    return {"times": times, "recording": out, "samples": len(samples), "planning_samples": len(planning),
            "gc_pause_ms": _gc_pause_ms(out), "top": rows}


def print_profile(res: dict, console) -> None:
    from rich.table import Table

    total = sum(res["times"])
    console.print(f"plan times: {', '.join(f'{t * 1000:.0f} ms' for t in res['times'])}; "
                  f"GC pauses {res['gc_pause_ms']:.0f} ms of {total * 1000:.0f} ms; "
                  f"{res['samples']} execution samples; recording {res['recording']}")
    table = Table(title="inclusive share of execution samples (connector, Hadoop Path, Spark file index)")
    table.add_column("share", justify="right")
    table.add_column("method")
    for name, share in res["top"]:
        table.add_row(f"{share * 100:.1f}%", name.replace("/", "."))
    console.print(table)
