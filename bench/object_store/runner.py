"""Runs the object-store benchmark: builds (or reuses) the tables on local disk, starts the S3 server (or
takes one), uploads every table to a bucket of its own, starts one SparkSession (or takes one), warms the JVM
up, then at each latency plans every planning case and times the upsert on a fresh copy of its table; last,
the same upsert's requests on the planning table with 10x the files. Writes results.json after each step,
then report.md and the plot."""
from __future__ import annotations

import os
import sys
import time

from bench.measure import fmt_seconds
from bench.object_store import cases, markdown, report, store, tables
from bench.planning.runner import _save, code_state

RESULTS_DIR = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "results", "object_store")
DEFAULT_ROOT = os.path.join("/tmp", "pyhudi-bench", "object_store")
SPARK_SETTINGS = {"spark.master": "local[2]", "spark.driver.memory": "6g", "spark.sql.session.timeZone": "UTC",
                  "spark.ui.enabled": "false", "spark.ui.showConsoleProgress": "false"}


def planning_cases(scale: tables.Scale) -> dict[str, dict]:
    """case id -> what it plans: every mode on a real table's bucket; the metadata table alone on a bucket
    holding only the table's .hoodie/ (every table)."""
    out = {}
    for t in scale.planning:
        if t.objects:
            for mode in cases.MODES:
                out[f"{t.name}/full/{mode}"] = {"table": t.name, "layout": "full", "mode": mode}
        out[f"{t.name}/hoodie/hudi-meta-mdt"] = {"table": t.name, "layout": "hoodie", "mode": "hudi-meta-mdt"}
    return out


def _lat(ms: float) -> str:
    return f"{ms:g}"


def _build(scale: tables.Scale, root: str, log) -> dict:
    built = {}
    for t in scale.planning:
        built[t.name] = (tables.ensure_real(t.shape, root, log) if t.objects else tables.ensure_hoodie_only(t, root, log))
    built["upsert"] = tables.ensure_real(scale.upsert, root, log)
    return built


def _upload_all(scale: tables.Scale, root: str, server, doc: dict, log) -> None:
    """Every bucket, at latency 0: each planning table (real ones with their data objects, and .hoodie/ alone
    in a second bucket) and the upsert table once per latency (each latency's upserts start from the load)."""
    server.set_latency(0)
    rss = doc["server"]["rss_mib"]
    rss["start"] = store.server_rss_mib(server)
    for t in scale.planning:
        entry = doc["tables"][t.name]
        layouts = (["full"] if t.objects else []) + ["hoodie"]
        local = tables.real_path(root, t.shape) if t.objects else tables.hoodie_only_path(root, t)
        for layout in layouts:
            bucket = store.bucket_name("os", scale.name, t.name, *([] if layout == "full" else ["hoodie"]))
            server.create_bucket(bucket)
            res = store.upload(server.endpoint, bucket, tables.local_files(local, hoodie_only=layout == "hoodie"))
            rss[f"after {t.name}/{layout}"] = store.server_rss_mib(server)
            entry["buckets"][layout] = {"bucket": bucket, "uri": store.table_uri(bucket), "upload": res}
            log(f"[{t.name}] uploaded {res['objects']:,} objects ({res['bytes'] / 2**20:.0f} MiB) to {bucket} in "
                f"{res['seconds']} s; server RSS {rss[f'after {t.name}/{layout}']} MiB")
            part = t.shape.partition_path(t.shape.partitions // 2) + "/"
            doc["server"]["list_cost"][bucket] = [store.list_cost(server.endpoint, bucket, p)
                                                  for p in ([part] if layout == "full" else []) + [".hoodie/timeline/"]]
    for ms in scale.latencies:
        bucket = store.bucket_name("os", scale.name, "upsert", scale.upsert.name, f"{_lat(ms)}ms")
        server.create_bucket(bucket)
        res = store.upload(server.endpoint, bucket, tables.local_files(tables.real_path(root, scale.upsert)))
        doc["upsert"]["buckets"][_lat(ms)] = {"bucket": bucket, "uri": store.table_uri(bucket), "upload": res}
        log(f"[upsert {scale.upsert.name}] uploaded {res['objects']:,} objects to {bucket} in {res['seconds']} s")
    rss["after uploads"] = store.server_rss_mib(server)


def _new_doc(scale: tables.Scale, root: str, reps: int, warm_reps: int, built: dict) -> dict:
    shape_of = {t.name: t for t in scale.planning}
    return {
        "benchmark": "object_store", "command": "python -m bench.object_store " + " ".join(sys.argv[1:]),
        "scale": scale.name, "started_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "root": root,
        "latencies_ms": list(scale.latencies), "reps": reps, "warm_reps": warm_reps, "modes": cases.MODES,
        "bucket_settings": store.BUCKET_KEYS,
        "tables": {name: {"files": t.files, "partitions": t.shape.partitions,
                          "files_per_partition": t.shape.files_per_partition, "objects": t.objects,
                          "load_commits": t.commits, "build": built[name], "buckets": {}}
                   for name, t in shape_of.items()},
        "server": {"rss_mib": {}, "list_cost": {}},
        "planning": {cid: {**c, "files_expected": shape_of[c["table"]].files, "by_latency": {}}
                     for cid, c in planning_cases(scale).items()},
        "upsert": {"table": {"name": scale.upsert.name, "files": scale.upsert.files,
                             "partitions": scale.upsert.partitions,
                             "files_per_partition": scale.upsert.files_per_partition, "build": built["upsert"]},
                   "tenx_table": scale.upsert_10x, "buckets": {}, "by_latency": {}},
    }


def run(scale: str = "full", reps: int | None = None, warm_reps: int | None = None, root: str = DEFAULT_ROOT,
        out: str = RESULTS_DIR, plots: bool = True, spark=None, server=None, log=None) -> dict:
    from bench import env

    sc = tables.SCALES[scale]
    reps = reps or sc.reps
    warm_reps = sc.reps if warm_reps is None else warm_reps
    log = log or _console_log()
    started = time.perf_counter()
    built = _build(sc, root, log)
    doc = _new_doc(sc, root, reps, warm_reps, built)
    own_server = server is None
    if own_server:
        from s3_server import S3Server

        server = S3Server(latency_ms=0).start()
    own_spark = spark is None
    try:
        _upload_all(sc, root, server, doc, log)
        _save(doc, out)
        if own_spark:
            import pyhudi

            log("starting Spark (pyhudi.spark_session(s3_tables=True), local[2], 6 GB driver) ...")
            spark = pyhudi.spark_session(s3_tables=True, **SPARK_SETTINGS)
            spark.sparkContext.setLogLevel("ERROR")
        doc["env"] = env.collect(java=_java(spark))
        doc["code"] = code_state()
        for entry in list(doc["tables"].values()) + [doc["upsert"]]:
            for b in entry["buckets"].values():
                store.configure(spark, server.endpoint, b["bucket"])
        small = doc["upsert"]["buckets"][_lat(sc.latencies[0])]["uri"]
        doc["jvm_warmup_seconds"] = cases.warm_up(spark, server, small, sc.warmup_rounds)
        log(f"warm-up: {sc.warmup_rounds} round(s) of every mode on {small} ({doc['jvm_warmup_seconds']} s)")
        _planning(sc, spark, server, doc, reps, warm_reps, out, log)
        _upserts(sc, spark, server, doc, reps, out, log)
    finally:
        server.set_latency(0)
        if own_server:
            server.stop()
    doc["finished_at"] = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    doc["wall_seconds"] = round(time.perf_counter() - started, 1)
    doc["extrapolated"] = report.extrapolate(doc) if sc.extrapolate else {}
    doc["targets"] = report.targets(doc)
    _save(doc, out)
    markdown.write_markdown(doc, out)
    if plots:
        report.write_plot(doc, out)
    for t in doc["targets"]:
        log(f"goal: {t['text']}: {'met' if t['met'] else 'missed' if t['met'] is False else 'not measured'} "
            f"({t['detail']})")
    if own_spark:
        spark.stop()
    return doc


def _planning(sc, spark, server, doc, reps, warm_reps, out, log) -> None:
    for ms in sc.latencies:
        server.set_latency(ms)
        for cid, case in doc["planning"].items():
            uri = doc["tables"][case["table"]]["buckets"][case["layout"]]["uri"]
            res = cases.measure_plan(spark, server, case["mode"], uri, ms, reps, warm_reps)
            case["by_latency"][_lat(ms)] = res
            c, w = res["cold"], res.get("warm")
            log(f"[{ms:g} ms] {cid:38s} cold {fmt_seconds(c['summary']['median']):>8s} "
                f"({fmt_seconds(c['summary']['min'])} - {fmt_seconds(c['summary']['max'])}) "
                f"{c['requests']['by_op']}" + (f"; warm {fmt_seconds(w['summary']['median'])} "
                                               f"{w['requests']['by_op']}" if w else ""))
        _save(doc, out)


def _upserts(sc, spark, server, doc, reps, out, log) -> None:
    up = doc["upsert"]
    for ms in sc.latencies:
        server.set_latency(ms)
        log(f"[{ms:g} ms] upsert on {up['buckets'][_lat(ms)]['uri']} ({sc.upsert.files:,} files)")
        up["by_latency"][_lat(ms)] = cases.measure_upserts(spark, server, sc.upsert, up["buckets"][_lat(ms)]["uri"],
                                                           ms, reps, log)
        _save(doc, out)
    tenx = next(t for t in sc.planning if t.name == sc.upsert_10x)
    server.set_latency(0)
    uri = doc["tables"][tenx.name]["buckets"]["full"]["uri"]
    log(f"[0 ms] the same upsert on {uri} ({tenx.files:,} files, after its planning cases)")
    up["tenx"] = {"latency_ms": 0, "files": tenx.files, "uri": uri,
                  **cases.measure_upserts(spark, server, tenx.shape, uri, 0, reps, log)}
    _save(doc, out)


def _java(spark) -> str:
    system = spark._jvm.java.lang.System
    return f"{system.getProperty('java.vendor')} {system.getProperty('java.version')}"


def _console_log():
    from rich.console import Console

    console = Console()
    if not console.is_terminal:
        console = Console(width=max(console.width, 180))
    return console.log
