"""One measured case: the planning of a full snapshot query, or the small upsert, with its requests.

Planning is bench/planning's (`systems.hudi_planner`, `systems.parquet_planner`): `load`, the physical plan
and the scan's file list, `time.perf_counter` around that call only, no job run. Each run's requests are the
server's log between a reset before the call and a read after it (the server logs a request before it
answers it, so none is missed).

Cold runs drop the JVM's caches first (store.drop_caches): the plan a fresh session makes, the cost the
issue asks about. Warm runs follow without dropping anything: the same query again in the same session on
the unchanged table, what bench/planning's measured runs are. The runs of a case must make the same requests
(checked: `same_requests`), else a cache was left behind or the connector's requests vary.

The upsert is bench/latency's (`systems.upsert_batch`, `systems.writer`): 100 rows into one partition, the
rows of 5 of its files updated and 50 new keys, `df.write.format("hudi-meta")` operation upsert at the
writer's defaults (SIMPLE index, metadata table on), the DataFrame made before the clock starts.
"""
from __future__ import annotations

import gc
import time

from bench.latency import systems as latency_systems
from bench.measure import summarize
from bench.object_store import store
from bench.planning import systems as planning_systems

MODES = {
    "hudi-meta-mdt": 'spark.read.format("hudi-meta").load(uri): the file listing from the metadata table '
                     "(the connector's default)",
    "hudi-meta-listing": "the same with hoodie.metadata.enable=false: the connector lists the partition folders",
    "spark-parquet": 'spark.read.option("basePath", uri).parquet(uri): Spark lists the folders itself '
                     "(InMemoryFileIndex) and reads one footer for the schema",
}
UPSERT_SYSTEM = "pyhudi-mdt-on"


def planner(spark, mode: str, uri: str):
    """(plan, details) for `mode` (MODES) on the table at `uri`."""
    if mode == "spark-parquet":
        return planning_systems.parquet_planner(spark, uri), planning_systems.parquet_details
    return planning_systems.hudi_planner(spark, uri, mode == "hudi-meta-mdt"), planning_systems.hudi_details


def settle(spark) -> None:
    gc.collect()
    spark._jvm.java.lang.System.gc()


def _plan_once(spark, server, plan, details) -> tuple[dict, list[dict]]:
    settle(spark)  # untimed: each run starts from a collected heap
    server.reset_log()
    t0 = time.perf_counter()
    out = plan(None)
    seconds = time.perf_counter() - t0
    log = server.requests()
    info = details(out)
    return {"seconds": seconds, "files": info.get("files"), "listing": info.get("listing"),
            "requests": store.summarise(log)}, log


def _series(runs: list[dict], logs: list[list[dict]], latency_ms: float) -> dict:
    seconds = [r["seconds"] for r in runs]
    totals = [r["requests"]["total"] for r in runs]
    return {"samples": seconds, "summary": summarize(seconds), "runs": runs,
            "requests": runs[0]["requests"], "requests_total_per_run": totals,
            "same_requests": all(store.signature(x) == store.signature(logs[0]) for x in logs[1:]),
            "requests_x_latency_s": [t * latency_ms / 1000 for t in totals],
            "request_log": store.compact(logs[0])}


def measure_plan(spark, server, mode: str, uri: str, latency_ms: float, reps: int, warm_reps: int) -> dict:
    """`reps` cold plans (caches dropped before each), then `warm_reps` warm ones."""
    plan, details = planner(spark, mode, uri)
    out: dict = {}
    runs, logs, dropped = [], [], []
    for _ in range(reps):
        dropped = store.drop_caches(spark, uri)
        run, log = _plan_once(spark, server, plan, details)
        runs.append(run)
        logs.append(log)
    out["cold"] = {**_series(runs, logs, latency_ms), "caches_dropped": dropped}
    if warm_reps:
        runs, logs = [], []
        for _ in range(warm_reps):
            run, log = _plan_once(spark, server, plan, details)
            runs.append(run)
            logs.append(log)
        out["warm"] = _series(runs, logs, latency_ms)
    return out


def warm_up(spark, server, uri: str, rounds: int) -> float:
    """Untimed plans of every mode on a small table: the JIT compiles the planning code before any case."""
    t0 = time.perf_counter()
    for _ in range(rounds):
        for mode in MODES:
            plan, _ = planner(spark, mode, uri)
            store.drop_caches(spark, uri)
            plan(None)
            plan(None)
    return round(time.perf_counter() - t0, 1)


# ---------------------------------------------------------------- the upsert


def upsert_once(spark, server, shape, uri: str, seq: int) -> tuple[dict, list[dict]]:
    """The upsert that becomes commit number `seq` of the table at `uri`, timed, with its requests."""
    write = latency_systems.writer(spark, UPSERT_SYSTEM, uri, latency_systems.upsert_batch(shape, seq))
    settle(spark)
    server.reset_log()
    t0 = time.perf_counter()
    write()
    seconds = time.perf_counter() - t0
    log = server.requests()
    return {"seq": seq, "seconds": seconds, "requests": store.summarise(log)}, log


def measure_upserts(spark, server, shape, uri: str, latency_ms: float, reps: int, log=print) -> dict:
    """One warm-up upsert (commit 2: the load is commit 1), then `reps` timed ones (commits 3 ...) at the
    server's current latency; then, at latency 0, the upsert partition read back (untimed)."""
    warm, _ = upsert_once(spark, server, shape, uri, 2)
    runs, logs = [], []
    for seq in range(3, 3 + reps):
        run, entries = upsert_once(spark, server, shape, uri, seq)
        runs.append(run)
        logs.append(entries)
        log(f"    upsert commit {seq}: {run['seconds']:.2f} s, {run['requests']['total']} requests "
            f"{run['requests']['by_op']}")
    res = {**_series(runs, logs, latency_ms), "warmup": warm}
    server.set_latency(0)
    res["partition_check"] = latency_systems.partition_check(spark, UPSERT_SYSTEM, uri, shape, 2 + reps)
    res["batch"] = latency_systems.batch_counts(shape)
    return res
