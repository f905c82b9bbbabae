"""Runs the planning benchmark: builds (or reuses) the tables, starts one SparkSession, warms the
JVM up, then for each size x scenario x system one untimed warm-up plan and `reps` timed ones;
then the metadata table's own lookups (connector through py4j, pyhudi in Python) and a row-count
check. Writes results.json after each size, then report.md and the plot."""
from __future__ import annotations

import gc
import json
import os
import sys
import time

from bench import results
from bench.measure import fmt_seconds, summarize
from bench.planning import build, systems

RESULTS_DIR = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "results", "planning")
DEFAULT_ROOT = os.path.join("/tmp", "pyhudi-bench", "planning")
DEFAULT_REPS = {"1k": 5, "20k": 5, "100k": 5}
ROW_COUNT_MAX_FILES = 2000  # the row check reads the planned files: only plans of at most this many files
JVM_WARMUP_PLANS = 5


def _expected_files(shape: build.Shape, scenario: str, system: str) -> int:
    exp = shape.expected()[scenario]["files"]
    if scenario == "range" and system in ("hudi-meta-listing", "spark-parquet"):
        return shape.files  # no file statistics at planning time
    return exp


def _planners(spark, paths: build.Paths, catalog) -> dict:
    return {
        "hudi-meta-mdt": (systems.hudi_planner(spark, paths.hudi, True), systems.spark_filter, systems.hudi_details),
        "hudi-meta-listing": (systems.hudi_planner(spark, paths.hudi, False), systems.spark_filter,
                              systems.hudi_details),
        "spark-parquet": (systems.parquet_planner(spark, paths.hudi), systems.spark_filter, systems.parquet_details),
        "delta-rs": (systems.delta_planner(paths.delta), systems.delta_predicate, dict),
        "pyiceberg": (systems.iceberg_planner(catalog), systems.iceberg_filter, dict),
    }


def _settle(spark) -> None:
    gc.collect()
    spark._jvm.java.lang.System.gc()


def _time(fn, arg):
    t0 = time.perf_counter()
    out = fn(arg)
    return time.perf_counter() - t0, out


def _load() -> float | None:
    try:
        return round(os.getloadavg()[0], 2)
    except OSError:
        return None


def measure_case(spark, planner, arg, details, reps: int) -> dict:
    _settle(spark)
    load_before = _load()
    warm_s, out = _time(planner, arg)
    info = details(out)
    samples, files = [], []
    for _ in range(reps):
        _settle(spark)  # each run starts from a collected heap: less run-to-run noise from GC pauses
        s, out = _time(planner, arg)
        samples.append(s)
        files.append(details(out).get("files"))
    return {"samples": samples, "warmup": warm_s, "summary": summarize(samples), "files": info.get("files"),
            "load_avg_1m": [load_before, _load()],
            "files_per_run": files, "details": {k: v for k, v in info.items() if k != "files"}}


def measure_lookups(spark, lookups: dict, reps: int) -> dict:
    out = {}
    for name, (prepare, fn) in lookups.items():
        prepare()
        fn()  # warm-up
        samples, value = [], None
        for _ in range(reps):
            prepare()
            t0 = time.perf_counter()
            value = fn()
            samples.append(time.perf_counter() - t0)
        out[name] = {"samples": samples, "summary": summarize(samples), "result": value}
    return out


def run(sizes: list[str], reps: int | None = None, rebuild: bool = False, root: str = DEFAULT_ROOT,
        out: str = RESULTS_DIR, plots: bool = True, row_counts: bool = True) -> dict:
    from rich.console import Console

    from bench import env
    from bench import spark as bench_spark
    from bench.planning import report

    console = Console()
    if not console.is_terminal:
        console = Console(width=max(console.width, 160))
    log = console.log
    started = time.perf_counter()
    os.makedirs(out, exist_ok=True)
    shapes = [build.SHAPES[s] for s in sizes]

    doc: dict = {"benchmark": "planning", "command": "python -m bench.planning " + " ".join(sys.argv[1:]),
                 "started_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
                 "root": root, "sizes": {}, "systems": {k: vars(v) for k, v in systems.SYSTEMS.items()},
                 "scenarios": systems.SCENARIOS}
    # tables first (the build uses both cores; nothing is timed yet)
    manifests = {}
    for shape in shapes:
        manifests[shape.name] = build.ensure(shape, root, rebuild=rebuild, log=log)

    log("starting Spark (bench.spark.session: pyhudi.spark_session, local[2]) ...")
    spark = bench_spark.session()
    doc["env"] = env.collect(java=bench_spark.java_version(spark))
    doc["code"] = code_state()
    doc["spark_settings"] = bench_spark.effective_settings(spark)

    # JVM warm-up on the smallest table: every Spark planner a few times, untimed
    small = build.Paths(os.path.join(root, shapes[0].name))
    warm_cat = build.iceberg_catalog(small)
    warm = _planners(spark, small, warm_cat)
    t0 = time.perf_counter()
    rounds = 1 if reps == 1 else JVM_WARMUP_PLANS  # a one-run smoke test needs no settled JIT
    for _ in range(rounds):
        for scen in systems.SCENARIOS:
            for planner, arg_of, _ in warm.values():
                planner(arg_of(shapes[0], scen))
    doc["jvm_warmup_seconds"] = round(time.perf_counter() - t0, 2)
    log(f"warm-up: {rounds} round(s) of every plan on {shapes[0].name} ({doc['jvm_warmup_seconds']} s)")

    for shape in shapes:
        n = reps or DEFAULT_REPS.get(shape.name, 3)
        paths = build.Paths(os.path.join(root, shape.name))
        catalog = build.iceberg_catalog(paths)
        planners = _planners(spark, paths, catalog)
        lo, hi = shape.range_window()
        entry = {"shape": {"partitions": shape.partitions, "files_per_partition": shape.files_per_partition,
                           "rows_per_file": shape.rows_per_file, "files": shape.files, "rows": shape.rows,
                           "one_partition": shape.one_partition(), "range": [lo, hi]},
                 "expected": shape.expected(), "build": manifests[shape.name], "reps": n, "cases": {}}
        doc["sizes"][shape.name] = entry
        for scen in systems.SCENARIOS:
            entry["cases"][scen] = {}
            for name, (planner, arg_of, details) in planners.items():
                arg = arg_of(shape, scen)
                res = measure_case(spark, planner, arg, details, n)
                res["filter"] = str(arg) if arg is not None else None
                res["files_expected"] = _expected_files(shape, scen, name)
                entry["cases"][scen][name] = res
                flag = "" if res["files"] == res["files_expected"] else f" [expected {res['files_expected']}]"
                log(f"[{shape.name}] {scen:9s} {systems.SYSTEMS[name].short:20s} median "
                    f"{fmt_seconds(res['summary']['median']):>9s} (min {fmt_seconds(res['summary']['min'])}, "
                    f"max {fmt_seconds(res['summary']['max'])}) files={res['files']}{flag}")
        # the metadata table's own lookups
        _settle(spark)
        part = shape.partition_path(shape.partitions // 2)
        look_reps = max(n, 5)
        entry["metadata_lookups"] = {
            "reps": look_reps, "partition": part,
            "jvm": measure_lookups(spark, systems.jvm_metadata_lookups(spark, paths.hudi, part), look_reps),
            "python": measure_lookups(spark, systems.python_metadata_lookups(paths.hudi, part), min(look_reps, 3)),
        }
        for side in ("jvm", "python"):
            for lname, r in entry["metadata_lookups"][side].items():
                log(f"[{shape.name}] {side:6s} {lname}: median {fmt_seconds(r['summary']['median'])} -> {r['result']}")
        if row_counts:
            t0 = time.perf_counter()
            wanted = {scen: [name for name, c in by_sys.items() if (c.get("files") or 0) <= ROW_COUNT_MAX_FILES]
                      for scen, by_sys in entry["cases"].items()}
            wanted = {scen: names for scen, names in wanted.items() if names}
            counts = systems.row_counts(spark, paths, shape, catalog, wanted)
            entry["row_counts"] = {"counts": counts, "expected": {s: shape.expected()[s]["rows"] for s in counts},
                                   "max_files": ROW_COUNT_MAX_FILES, "seconds": round(time.perf_counter() - t0, 1)}
            bad = {s: c for s, c in counts.items() if any(v != shape.expected()[s]["rows"] for v in c.values())}
            checked = sum(len(c) for c in counts.values())
            log(f"[{shape.name}] row counts {'OK' if not bad else 'MISMATCH ' + json.dumps(bad)} "
                f"({checked} scenario x system pairs; {entry['row_counts']['seconds']} s)")
        doc["wall_seconds"] = round(time.perf_counter() - started, 1)
        _save(doc, out)

    doc["finished_at"] = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    doc["wall_seconds"] = round(time.perf_counter() - started, 1)
    doc["targets"] = report.targets(doc)
    _save(doc, out)
    report.write_markdown(doc, out)
    if plots:
        report.write_plot(doc, out)
    console.print(report.summary_table(doc))
    for t in doc["targets"]:
        console.print(f"target: {t['text']}: [{'green' if t['met'] else 'red'}]"
                      f"{'met' if t['met'] else 'missed' if t['met'] is False else 'not measured'}[/] ({t['detail']})")
    console.print(f"wrote {os.path.join(out, 'results.json')} and report.md; wall time {doc['wall_seconds']} s")
    spark.stop()
    return doc


def code_state() -> dict:
    """Which connector the session loaded (the jar's source hash, written by pyhudi.build) and
    which files of pyhudi/ and connector/ differed from the commit: the code the numbers are of."""
    import subprocess

    from pyhudi import build as pyhudi_build

    here = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    out: dict = {}
    try:  # read right after the session started: the stamp of the jar it loaded (built then if stale)
        out["connector_jar_sha256"] = (pyhudi_build.JAR_DIR / pyhudi_build.STAMP_NAME).read_text().strip()
    except (OSError, AttributeError):
        out["connector_jar_sha256"] = None
    try:
        head = subprocess.run(["git", "-C", here, "rev-parse", "HEAD"], capture_output=True, text=True, timeout=10)
        dirty = subprocess.run(["git", "-C", here, "status", "--porcelain", "--", "pyhudi", "connector"],
                               capture_output=True, text=True, timeout=10)
        out["commit"] = head.stdout.strip() or None
        out["modified"] = [line[3:] for line in dirty.stdout.splitlines() if line.strip()]
    except (OSError, subprocess.SubprocessError):
        pass
    return out


def _save(doc: dict, out: str) -> None:
    results.save(os.path.join(out, "results.json"), doc)
