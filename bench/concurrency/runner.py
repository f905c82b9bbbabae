"""Runs the concurrent-writers benchmark and writes results.json and report.md.

For each kind of table (cow-occ, mor-occ, mor-nbcc), workload (disjoint partitions, overlapping keys) and
number of writers (1, 2, 4): a fresh table, then that many writer processes (bench.concurrency.worker, each its
own Spark session, local[1]) each upserting `commits` batches. Measured over the attempts, so Spark start-up is
left out: successful commits per minute between the first attempt's start and the last one's end, and the
conflict rate (attempts that raised HudiConflictError / attempts). Each writer's first upsert (a cold JVM) is
left out too."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time

from bench import env
from bench.results import save, write_report

RESULTS_DIR = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "results", "concurrency")
DEFAULT_ROOT = os.path.join("/tmp", "pyhudi-bench", "concurrency")
WORKLOADS = ("disjoint", "overlap")
PROJECT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _worker(*args: str) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "bench.concurrency.worker", *args], cwd=PROJECT,
                            env={**os.environ, "PYTHONPATH": PROJECT}, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True)


def _finish(procs: list[subprocess.Popen]) -> None:
    for p in procs:
        _, err = p.communicate()
        if p.returncode:
            raise RuntimeError(f"a writer process failed: {err[-2000:]}")


def case(root: str, kind: str, workload: str, writers: int, commits: int) -> dict:
    """One table, `writers` processes: the attempts' outcome and timing."""
    path, results = os.path.join(root, f"{kind}-{workload}-{writers}"), os.path.join(root, "results.jsonl")
    shutil.rmtree(path, ignore_errors=True)
    if os.path.exists(results):
        os.remove(results)
    _finish([_worker("init", path, kind, workload)])
    _finish([_worker("write", results, str(w), str(commits), str(w), workload, f"{path}:{kind}")
             for w in range(writers)])
    with open(results, encoding="utf-8") as f:
        lines = [json.loads(line) for line in f]
    errors = [ln["error"] for ln in lines if ln["status"] == "error"]
    if errors:
        raise RuntimeError(f"{kind} {workload} x{writers}: {errors[0]}")
    lines = [ln for ln in lines if ln["n"] > 0]  # each writer's first upsert warms its JVM up
    ok = sum(ln["status"] == "ok" for ln in lines)
    span = max(ln["end"] for ln in lines) - min(ln["start"] for ln in lines)
    return {"kind": kind, "workload": workload, "writers": writers, "attempts": len(lines), "commits": ok,
            "conflicts": len(lines) - ok, "seconds": round(span, 2), "commits_per_minute": round(ok * 60 / span, 2),
            "conflict_rate": round((len(lines) - ok) / len(lines), 3), "ran_at": time.strftime("%Y-%m-%d %H:%M")}


def run(kinds: list[str], writer_counts: list[int], commits: int, root: str, out: str) -> None:
    os.makedirs(root, exist_ok=True)
    machine = env.collect()
    doc = {"env": {k: machine[k] for k in ("python", "cpu", "cores", "memory_gib", "pyhudi_commit")},
           "commits_per_writer": commits, "cases": []}
    for kind in kinds:
        for workload in WORKLOADS:
            for n in writer_counts:
                doc["cases"].append(case(root, kind, workload, n, commits))
                save(os.path.join(out, "results.json"), doc)
                print(json.dumps(doc["cases"][-1]), flush=True)
    report(out)


def report(out: str) -> None:
    with open(os.path.join(out, "results.json")) as f:
        doc = json.load(f)
    lines = ["# Concurrent writers", "", __doc__.split("\n\n", 1)[1].replace("\n", " "), "",
             f"Each writer: {doc['commits_per_writer']} upserts. Command: `python -m bench.concurrency run`.", "",
             "| table | workload | writers | commits / min | conflict rate | commits | attempts | seconds |",
             "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |"]
    for c in doc["cases"]:
        lines.append(f"| {c['kind']} | {c['workload']} | {c['writers']} | {c['commits_per_minute']} | "
                     f"{c['conflict_rate']:.1%} | {c['commits']} | {c['attempts']} | {c['seconds']} |")
    lines += ["", f"Machine: {doc['env']}", ""]
    print(write_report(out, lines))

