"""Runs the selected cases with progress shown, saving results.json after every case, then writes
the report, the plots and prints the summary table."""
from __future__ import annotations

import datetime as dt
import os
import sys
import time
import traceback

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from bench import env, measure, results
from bench.context import RunContext
from bench.scales import SCALES
from bench.systems import SYSTEMS, available
from bench.workloads import WORKLOADS, Case, all_cases, selected
from bench.workspace import Workspace, default_root

SPARK_SYSTEMS = ("pyhudi", "hudi-meta", "spark-parquet")
RESULTS_ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "results")


def _now() -> str:
    return dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def run(scale: str = "small", only: list[str] | None = None, resume: bool = False, workdir: str | None = None,
        out: str | None = None, plots: bool = True, spark=None, console: Console | None = None,
        spark_settings: dict[str, str] | None = None) -> dict:
    """Runs the benchmark; returns the results document. `spark` reuses an existing session
    (the smoke test's); otherwise one session is started for the whole run."""
    if console is None:
        console = Console()
        if not console.is_terminal:
            console = Console(width=max(console.width, 150))
    sc = SCALES[scale]
    out = out or os.path.join(RESULTS_ROOT, scale)
    ws = Workspace(workdir or default_root(scale), sc.shape)
    installed = available()
    ctx = RunContext(sc, ws, installed, log=lambda m: console.print(f"[dim]{m}[/]"),
                     spark_settings=spark_settings or {})
    if spark is not None:
        ctx._spark = spark
    console.rule(f"pyhudi bench: scale {scale} ({sc.description})")
    console.print(f"workdir {ws.root}; results {out}")
    missing = [n for n, ok in installed.items() if not ok]
    if missing:
        console.print(f"[yellow]not installed, skipped: {', '.join(missing)} "
                      f"(pip install -r bench/requirements.txt)[/]")
    meta = ws.prepare_sources(ctx.log)
    results_path = os.path.join(out, "results.json")
    doc = results.load(results_path, sc.shape.fingerprint())
    run_record = {"started": _now(), "argv": sys.argv[1:], "only": only or [], "resume": resume}
    doc["runs"].append(run_record)

    cases = [c for c in all_cases(ctx) if selected(c, only or [])]
    todo, skipped = [], []
    for c in cases:
        if not installed[c.system]:
            doc["cases"][c.id] = _entry(c, sc, status="skipped", error=f"{SYSTEMS[c.system].package} not installed")
            skipped.append(c)
        elif resume and doc["cases"].get(c.id, {}).get("status") == "ok":
            skipped.append(c)
        else:
            todo.append(c)
    if resume and len(skipped):
        console.print(f"resuming: {len(skipped)} case(s) already measured or not installed, {len(todo)} to run")
    if not cases:
        console.print(f"[red]--only {' '.join(only or [])} selects no case; workloads: {', '.join(WORKLOADS)}; "
                      f"systems: {', '.join(SYSTEMS)}[/]")

    if any(c.system in SPARK_SYSTEMS for c in todo):
        ctx.spark  # noqa: B018 - start the session before any timer does
    total_runs = sum(c.warmup + c.reps for c in todo)
    with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                  console=console, transient=False) as progress:
        ctx.log = lambda m: progress.console.print(f"[dim]{m}[/]")
        if any(c.system in SPARK_SYSTEMS for c in todo) and sc.session_warmup:
            warm_up_session(ctx, sc.session_warmup, progress)
        overall = progress.add_task("all cases", total=total_runs)
        for c in todo:
            entry = _measure(c, sc, ctx, progress, overall)
            doc["cases"][c.id] = entry
            _fill_common(doc, sc, meta, ctx)
            results.save(results_path, doc)
            _print_case(progress.console, entry)
        ws.clear_scratch()
    run_record["finished"] = _now()
    _fill_common(doc, sc, meta, ctx)
    results.save(results_path, doc)

    from bench import report

    report.write_markdown(doc, out)
    if plots:
        try:
            from bench import plots as plotting
        except ImportError as e:
            console.print(f"[yellow]no plots: {e} (pip install -r bench/requirements.txt)[/]")
        else:
            for path in plotting.write_all(doc, out):
                console.print(f"plot {os.path.relpath(path)}")
    console.print(report.summary_table(doc))
    console.print(f"report {os.path.join(out, 'report.md')}")
    return doc


def _fill_common(doc: dict, sc, meta: dict, ctx: RunContext) -> None:
    from bench import spark as sparkutil
    from bench.systems import delta, hudi, iceberg, parquet

    doc["scale"] = sc.name
    doc["scale_settings"] = {"description": sc.description, "warmup": sc.warmup, "write_reps": sc.write_reps,
                             "read_warmup": sc.read_warmup, "read_reps": sc.read_reps,
                             "session_warmup": sc.session_warmup}
    doc["data"] = {k: v for k, v in meta.items() if k not in ("lookup_keys",)}
    doc["data"]["shape"] = vars(sc.shape)
    if ctx._spark is not None:
        doc.setdefault("settings", {})["spark"] = sparkutil.effective_settings(ctx._spark)
        doc["environment"] = env.collect(sparkutil.java_version(ctx._spark))
    elif "environment" not in doc:
        doc["environment"] = env.collect()
    doc.setdefault("settings", {})["systems"] = {
        "pyhudi / hudi-meta / hudi-rs": hudi.SETTINGS, "delta-rs": delta.SETTINGS,
        "pyiceberg": iceberg.SETTINGS, "spark-parquet": parquet.SETTINGS}


def _entry(c: Case, sc, **kw) -> dict:
    return {"workload": c.workload, "system": c.system, "label": c.label, "ours": c.ours, "settings": c.settings,
            "notes": c.notes, "warmup": c.warmup, "ran_at": _now(), "pyhudi_commit": env.pyhudi_commit(), **kw}


def _measure(c: Case, sc, ctx: RunContext, progress: Progress, overall) -> dict:
    runs = c.warmup + c.reps
    task = progress.add_task(f"  {c.id}", total=runs)
    samples, infos, t_case, done = [], [], time.perf_counter(), 0
    load_before = _loadavg()
    try:
        if c.setup:
            progress.update(task, description=f"  {c.id}: setup")
            c.setup()
        for i in range(runs):
            warm = i < c.warmup
            progress.update(task, description=f"  {c.id}: {'warm-up' if warm else f'run {i - c.warmup + 1}/{c.reps}'}")
            if c.prepare:
                c.prepare(i)
            t0 = time.perf_counter()
            info = c.run(i) or {}
            elapsed = time.perf_counter() - t0
            last = i == runs - 1
            verified = None
            if last and c.verify:
                verified = c.verify()
            if c.cleanup:
                c.cleanup(i, last)
            if not warm:
                samples.append(elapsed)
                infos.append(info)
            progress.advance(task)
            progress.advance(overall)
            done += 1
    except Exception as e:  # noqa: BLE001 - a failing case is reported, the run goes on
        progress.advance(overall, runs - done)
        progress.remove_task(task)
        return _entry(c, sc, status="error", error=f"{type(e).__name__}: {e}",
                      traceback=traceback.format_exc(limit=12), samples=samples,
                      seconds_total=round(time.perf_counter() - t_case, 2))
    progress.remove_task(task)
    return _entry(c, sc, status="ok", samples=samples, summary=measure.summarize(samples), info=_merge(infos),
                  verified=verified, seconds_total=round(time.perf_counter() - t_case, 2),
                  load_average=[load_before, _loadavg()])


def _loadavg() -> float | None:
    """The machine's 1-minute load average: above the core count, something else competed for the CPU."""
    try:
        return round(os.getloadavg()[0], 2)
    except OSError:
        return None


def _merge(infos: list[dict]) -> dict:
    """Per-run facts (rows returned, files opened): one value when all runs agree, else the list."""
    out = {}
    for k in sorted({k for i in infos for k in i}):
        vals = [i.get(k) for i in infos]
        out[k] = vals[0] if all(v == vals[0] for v in vals) else vals
    return out


def _print_case(console: Console, e: dict) -> None:
    if e["status"] == "ok":
        s = e["summary"]
        files = e.get("info", {}).get("files")
        extra = f", files {files}" if files is not None else ""
        console.print(f"[green]ok[/] {e['workload']}/{e['label']}: median {measure.fmt_seconds(s['median'])} "
                      f"(min {measure.fmt_seconds(s['min'])}, max {measure.fmt_seconds(s['max'])}){extra}")
    else:
        console.print(f"[red]{e['status']}[/] {e['workload']}/{e['label']}: {e.get('error')}")


def warm_up_session(ctx: RunContext, rounds: int, progress: Progress) -> None:
    """Untimed rounds of tiny pyhudi writes, hudi-meta reads and Spark Parquet writes and reads,
    so that no case pays for the JVM's first compilation of the code paths they share."""
    from pyspark.sql import functions as F

    from bench import datagen
    from bench.systems import hudi, parquet
    from bench.workspace import remove

    shape = SCALES["tiny"].shape
    root = ctx.ws.scratch("session-warmup")
    base = datagen.base_table(shape)
    datagen.write_staged(base, os.path.join(root, "base"))
    datagen.write_staged(datagen.upsert_batch(shape, base), os.path.join(root, "upsert"))
    key = base.column(datagen.KEY)[0].as_py()
    spark = ctx.spark
    task = progress.add_task("  warming up the session (untimed)", total=rounds)
    for r in range(rounds):
        for tt in ("COW", "MOR"):
            path = os.path.join(root, f"hudi-{tt}-{r}")
            hudi.write(spark, path, os.path.join(root, "base"), "bulk_insert", tt)
            hudi.write(spark, path, os.path.join(root, "upsert"), "upsert", tt)
            hudi.meta_df(spark, path).write.format("noop").mode("overwrite").save()
            hudi.meta_df(spark, path).filter(F.col(datagen.KEY) == key).toArrow()
        path = os.path.join(root, f"parquet-{r}")
        parquet.load(spark, path, os.path.join(root, "base"))
        parquet.read(spark, path).filter(F.col(datagen.KEY) == key).toArrow()
        parquet.read(spark, path).write.format("noop").mode("overwrite").save()
        progress.advance(task)
    progress.remove_task(task)
    remove(root)
