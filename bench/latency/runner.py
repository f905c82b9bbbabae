"""Runs the latency benchmark: builds (or reuses) the pristine tables, makes the working copies
again, starts one SparkSession, warms the JVM up on a scratch table, then for each size x commit
count x system brings the table to that many commits, runs 1 untimed upsert and `reps` timed ones
and checks the upsert partition; after the last commit count, the whole table's row count.
Writes results.json after each commit count, then report.md and the plot."""
from __future__ import annotations

import functools
import gc
import os
import sys
import time

from bench.latency import build, systems
from bench.measure import fmt_seconds, summarize
from bench.planning.build import Shape
from bench.planning.runner import _save, code_state

RESULTS_DIR = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "results", "latency")
DEFAULT_ROOT = os.path.join("/tmp", "pyhudi-bench", "latency")
DEFAULT_SIZES = ("1k", "20k", "100k")
DEFAULT_COMMITS = (10, 100, 500)
DEFAULT_REPS = 3
JVM_WARMUP_UPSERTS = 5  # per pyhudi system, on a scratch tiny table: the first writes of a JVM run 2-5x slower


def select(only: list[str] | None) -> list[str]:
    """System names matching `only` (names or short names, any case); all when None."""
    if not only:
        return list(systems.SYSTEMS)
    wanted = {w.strip().lower() for w in only if w.strip()}
    return [n for n, s in systems.SYSTEMS.items() if n.lower() in wanted or s.short.lower() in wanted]


def _delta_installed() -> bool:
    import importlib.util

    return importlib.util.find_spec("deltalake") is not None


def _settle(spark) -> None:
    gc.collect()
    if spark is not None:
        spark._jvm.java.lang.System.gc()


def _load() -> float | None:
    try:
        return round(os.getloadavg()[0], 2)
    except OSError:
        return None


def _write(spark, system: str, kind: str, path: str, shape: Shape) -> tuple[float, int]:
    """One upsert (the batch of the next commit number), timed: (seconds, commits before it)."""
    before = build.commits(kind, path)
    fn = systems.writer(spark, system, path, systems.upsert_batch(shape, before + 1))
    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0, before


def _bring_to(root: str, kind: str, path: str, shape: Shape, target: int, snapshots: bool, log) -> dict:
    """Prior commits until the table has `target`: from a kept snapshot when allowed and there is one, else
    added (and kept as a snapshot for the next run)."""
    restored = build.restore_snapshot(root, shape, kind, target, path) if snapshots else None
    if restored:
        log(f"  [{shape.name} {kind}] {target} commits: from {restored['snapshot']} ({restored['seconds']} s)")
        return {"added": 0, **restored}
    prior = build.add_commits(kind, path, shape, target, log)
    if prior["added"]:
        build.save_snapshot(root, shape, kind, target, path)
    return prior


def measure_case(spark, system: str, path: str, shape: Shape, target: int, reps: int, log,
                 root: str = DEFAULT_ROOT, snapshots: bool = True) -> dict:
    kind = systems.SYSTEMS[system].kind
    prior = _bring_to(root, kind, path, shape, target, snapshots, log)
    _settle(spark)
    load_before = _load()
    warm_s, _ = _write(spark, system, kind, path, shape)
    samples, before = [], []
    for _ in range(reps):
        _settle(spark)  # each run starts from a collected heap: less run-to-run noise from GC pauses
        s, n = _write(spark, system, kind, path, shape)
        samples.append(s)
        before.append(n)
    check = systems.partition_check(spark, system, path, shape, before[-1] + 1)
    return {"target_commits": target, "commits_before_runs": before, "samples": samples, "warmup": warm_s,
            "summary": summarize(samples), "prior": prior, "load_avg_1m": [load_before, _load()],
            "partition_check": check}


def jvm_warmup(spark, names: list[str], root: str, rounds: int, log) -> float:
    """Untimed upserts through every pyhudi system on a scratch tiny table."""
    shape = build.SHAPES["tiny"]
    warm_root = os.path.join(root, "warmup")
    build.ensure(shape, warm_root, delta=False, log=lambda *_: None, spark=spark if "pyhudi-ri" in names else None)
    t0 = time.perf_counter()
    for name in names:
        kind = systems.SYSTEMS[name].kind
        path = build.reset(warm_root, shape, kind)
        for _ in range(rounds):
            _write(spark, name, kind, path, shape)
    return round(time.perf_counter() - t0, 2)


def _new_doc(sizes, commits, reps, root, names, skipped) -> dict:
    return {"benchmark": "latency", "command": "python -m bench.latency " + " ".join(sys.argv[1:]),
            "started_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "root": root,
            "params": {"sizes": sizes, "commits": commits, "reps": reps},
            "systems": {k: vars(v) for k, v in systems.SYSTEMS.items() if k in names},
            "skipped": skipped, "delta_predicate": systems.DELTA_PREDICATE, "sizes": {}}


def _log_case(log, shape, name, c) -> None:
    sm, chk = c["summary"], c["partition_check"]
    log(f"[{shape.name}] {systems.SYSTEMS[name].short:15s} commits {c['commits_before_runs'][0]:>4d}: median "
        f"{fmt_seconds(sm['median']):>9s} (min {fmt_seconds(sm['min'])}, max {fmt_seconds(sm['max'])}; warm-up "
        f"{fmt_seconds(c['warmup'])}) partition check {'OK' if chk['ok'] else 'MISMATCH ' + str(chk)}")


def run_size(spark, shape: Shape, names: list[str], commits: list[int], reps: int, root: str, entry: dict,
             save, log, snapshots: bool = True) -> None:
    """Every case of one size; the whole-table row counts at the end."""
    paths = {n: build.reset(root, shape, systems.SYSTEMS[n].kind) for n in names}
    for target in commits:
        for name in names:
            c = measure_case(spark, name, paths[name], shape, target, reps, log, root, snapshots)
            entry["cases"].setdefault(name, {})[str(target)] = c
            _log_case(log, shape, name, c)
        save()
    entry["row_counts"] = {}
    for name in names:
        n = build.commits(systems.SYSTEMS[name].kind, paths[name])
        got, want = systems.row_count(spark, name, paths[name]), systems.expected_rows(shape, n)
        entry["row_counts"][name] = {"commits": n, "rows": got, "expected": want, "ok": got == want}
        log(f"[{shape.name}] {systems.SYSTEMS[name].short:15s} row count after {n} commits: {got:,} "
            + ("OK" if got == want else f"MISMATCH, expected {want:,}"))


def run(sizes: list[str], commits: list[int], reps: int = DEFAULT_REPS, rebuild: bool = False,
        root: str = DEFAULT_ROOT, out: str = RESULTS_DIR, only: list[str] | None = None, plots: bool = True,
        spark=None, warmup_rounds: int | None = None, log=None, snapshots: bool = True) -> dict:
    from rich.console import Console

    from bench import env
    from bench import spark as bench_spark
    from bench.latency import report

    console = Console() if Console().is_terminal else Console(width=160)
    log = log or functools.partial(console.log, markup=False)  # "[tiny]" is not a style
    started = time.perf_counter()
    os.makedirs(out, exist_ok=True)
    names, skipped = select(only), {}
    if "delta-rs" in names and not _delta_installed():
        names.remove("delta-rs")
        skipped["delta-rs"] = "deltalake is not installed (pip install -r bench/requirements.txt)"
        log("delta-rs: skipped, deltalake is not installed")
    shapes, commits = [build.SHAPES[s] for s in sizes], sorted(set(commits))
    doc = _new_doc(sizes, commits, reps, root, names, skipped)
    hudi = [n for n in names if systems.SYSTEMS[n].ours]
    own = spark is None and bool(hudi)
    if own:
        log("starting Spark (bench.spark.session: pyhudi.spark_session, local[2]) ...")
        spark = bench_spark.session()
    ri = spark if "pyhudi-ri" in names else None  # builds the record-index table
    manifests = {s.name: build.ensure(s, root, rebuild, delta="delta-rs" in names, log=log, spark=ri)
                 for s in shapes}
    doc["env"] = env.collect(java=bench_spark.java_version(spark) if spark is not None else None)
    doc["code"] = code_state()
    doc["spark_settings"] = bench_spark.effective_settings(spark) if spark is not None else {}
    rounds = JVM_WARMUP_UPSERTS if warmup_rounds is None else warmup_rounds
    doc["jvm_warmup"] = {"upserts_per_system": rounds, "seconds": jvm_warmup(spark, hudi, root, rounds, log)}
    log(f"warm-up: {rounds} untimed upsert(s) per pyhudi system on a tiny table ({doc['jvm_warmup']['seconds']} s)")

    def save() -> None:
        doc["wall_seconds"] = round(time.perf_counter() - started, 1)
        _save(doc, out)

    for shape in shapes:
        entry = {"shape": {"partitions": shape.partitions, "files_per_partition": shape.files_per_partition,
                           "rows_per_file": shape.rows_per_file, "files": shape.files, "rows": shape.rows},
                 "batch": systems.batch_counts(shape), "build": manifests[shape.name], "reps": reps, "cases": {}}
        doc["sizes"][shape.name] = entry
        run_size(spark, shape, names, commits, reps, root, entry, save, log, snapshots)
        save()

    doc["finished_at"] = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    doc["targets"] = report.targets(doc)
    save()
    report.write_markdown(doc, out)
    if plots:
        report.write_plot(doc, out)
    console.print(report.summary_table(doc))
    for t in doc["targets"]:
        state = {True: "[green]met[/]", False: "[red]missed[/]", None: "not measured"}[t["met"]]
        console.print(f"target: {t['text']}: {state} ({t['detail']})")
    console.print(f"wrote {os.path.join(out, 'results.json')} and report.md; wall time {doc['wall_seconds']} s")
    if own:
        spark.stop()
    return doc
