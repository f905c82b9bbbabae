"""Runs the streaming-ingest benchmark and writes results.json and report.md (with the plot).

One SparkSession for every variant. Each variant writes its own table from nothing: commit 1 inserts
`inserts` new keys, every later commit `inserts` new keys + `updates` distinct random keys inserted by
earlier commits (fewer while the table holds fewer), the same rows for every variant (seeded per commit).
Rows are the bench's datagen rows (`bench/datagen.py`: UUID key `id`, ordering field `updated_at`) with
`day` limited to PARTITIONS values, so every partition's file groups stay small and take inserts.
Each commit is one `HudiTable(spark, path, options).upsert(df)`, `time.perf_counter` around that call
only (the DataFrame is made before); the table services a commit ran inline (compaction, clean,
archival) are read off the timeline folder after it. After the last commit: the base and log files in
the partition folders (count and bytes), then `hoodie.datasource.query.type` snapshot and read_optimized
reads through hudi-meta (count + sum(amount), 1 untimed + `read_runs` timed), checked against the keys
inserted and the latest amount of each key; hudi-rs counts the snapshot too."""
from __future__ import annotations

import functools
import json
import os
import shutil
import statistics
import sys
import time

import numpy as np
import pyarrow as pa

from bench import datagen
from bench.latency.runner import _load, _settle  # the sub-benches settle and sample load alike
from bench.results import save

RESULTS_DIR = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "results", "streaming")
DEFAULT_ROOT = os.path.join("/tmp", "pyhudi-bench", "streaming")
DEFAULT_COMMITS, DEFAULT_INSERTS, DEFAULT_UPDATES = 200, 1000, 1000
PARTITIONS = 5
SEED = 17
READ_RUNS = 3
EDGE = 20              # the first and last EDGE commits' medians show growth
JVM_WARMUP_COMMITS = 5  # per variant, on a scratch table: the first writes of a JVM run 2-5x slower
INDEX_TYPE = "BLOOM"
LOG_INDEX_KEY = "pyhudi.bloom.index.log.files.enable"  # pyhudi's own key (ff121e8), not an Apache Hudi one
BLOCK_FORMAT_KEY = "hoodie.logfile.data.block.format"

BASE_OPTIONS = {
    "hoodie.table.name": "streaming",
    "hoodie.datasource.write.recordkey.field": datagen.KEY,
    "hoodie.datasource.write.precombine.field": datagen.ORDERING,
    "hoodie.datasource.write.partitionpath.field": datagen.PARTITION,
    "hoodie.datasource.write.table.type": "MERGE_ON_READ",
}

# name -> (short label, log-file indexing on, log data block format)
VARIANTS = {
    "on": ("log index on, avro blocks", True, "avro"),
    "off": ("log index off, avro blocks", False, "avro"),
    "on-parquet": ("log index on, parquet blocks", True, "parquet"),
    "off-parquet": ("log index off, parquet blocks", False, "parquet"),
    "on-mdt": ("log index on, avro blocks, log files' bloom filters in the metadata table", True, "avro"),
}
# variant -> its own options: the metadata table's bloom_filters partition, which holds a filter of each log file
# under log-file indexing, so lookups skip the log files it excludes without opening them
VARIANT_OPTIONS = {"on-mdt": {"hoodie.metadata.index.bloom.filter.enable": "true"}}


def variant_options(name: str, index_type: str = INDEX_TYPE, log_index_key: str = LOG_INDEX_KEY,
                    extra: dict[str, str] | None = None) -> dict[str, str]:
    """The write options of a variant: OFF leaves the log-index key out (its default, false); every variant
    names its log block format (with log-file indexing on, pyhudi's default is Parquet blocks since 46449c8)."""
    _, on, fmt = VARIANTS[name]
    opts = {**BASE_OPTIONS, "hoodie.index.type": index_type, BLOCK_FORMAT_KEY: fmt}
    if on:
        opts[log_index_key] = "true"
    return {**opts, **VARIANT_OPTIONS.get(name, {}), **(extra or {})}


# ---------------------------------------------------------------- data


class Stream:
    """The commits' rows, deterministic: commit c's rows depend on the seed and c only (given the earlier
    commits). Tracks every key's event_ts (its partition) and latest amount, for the checks."""

    def __init__(self, inserts: int, updates: int, partitions: int = PARTITIONS, seed: int = SEED):
        self.inserts, self.updates, self.partitions, self.seed = inserts, updates, partitions, seed
        self.commit = 0
        self._ids: list[pa.Array] = []
        self.event_ts = np.empty(0, np.int64)
        self.amount = np.empty(0, np.float64)

    @property
    def keys(self) -> int:
        return len(self.event_ts)

    def next(self) -> pa.Table:
        self.commit += 1
        rng = np.random.default_rng([self.seed, self.commit])
        k = min(self.updates, self.keys)
        idx = np.sort(rng.choice(self.keys, size=k, replace=False)) if k else np.empty(0, np.int64)
        old_ids = pa.chunked_array(self._ids, pa.string()).take(pa.array(idx)).combine_chunks() if k else \
            pa.array([], pa.string())
        span = self.partitions * datagen.DAY_MS
        new_ts = np.sort(datagen.START_MS + rng.integers(0, span, self.inserts, dtype=np.int64))
        new_ids = datagen.uuids(rng, self.inserts)
        event_ts = np.concatenate([self.event_ts[idx], new_ts])
        # greater than every earlier commit's value of the same key: updates win by ordering value
        updated_at = event_ts + self.commit * datagen.UPDATED_AT_BUMP
        values = datagen._values(rng, k + self.inserts)
        table = datagen._table(pa.concat_arrays([old_ids, new_ids]), event_ts, updated_at, values)
        amount = values["amount"].to_numpy()
        self.amount[idx] = amount[:k]
        self._ids.append(new_ids)
        self.event_ts = np.concatenate([self.event_ts, new_ts])
        self.amount = np.concatenate([self.amount, amount[k:]])
        return table

    def expected_sum(self) -> float:
        return float(self.amount.sum())


# ---------------------------------------------------------------- the table on disk


def _timeline_dir(path: str) -> str:
    t = os.path.join(path, ".hoodie", "timeline")
    return t if os.path.isdir(t) else os.path.join(path, ".hoodie")


def _completed(path: str) -> set[str]:
    """Completed instant files of the active timeline (v8: `<requested>_<completed>.<action>`)."""
    d = _timeline_dir(path)
    if not os.path.isdir(d):
        return set()
    return {f for f in os.listdir(d) if os.path.isfile(os.path.join(d, f))
            and not f.endswith((".requested", ".inflight")) and not f.startswith("hoodie.")
            and "." in f and f.split(".")[0].replace("_", "").isdigit()}


def _action(name: str) -> str:
    return name.split(".", 1)[1]


def services_of(before: set[str], after: set[str]) -> dict[str, int]:
    """What a write call left on the timeline besides its delta commit: compactions (`commit`), cleans,
    rollbacks...; `archived`: completed instants that left the active timeline."""
    out: dict[str, int] = {}
    for name in after - before:
        action = _action(name)
        if action != "deltacommit":
            out[action] = out.get(action, 0) + 1
    gone = len(before - after)
    if gone:
        out["archived"] = gone
    return out


def is_log_file(name: str) -> bool:
    return name.startswith(".") and ".log." in name


def files_on_disk(path: str) -> dict:
    """Base files (.parquet) and log files in the table's partition folders (`.hoodie` left out), with
    their bytes; `.hoodie`'s bytes (timeline + metadata table) apart."""
    out = {"base_files": 0, "base_bytes": 0, "log_files": 0, "log_bytes": 0, "other_files": 0,
           "partitions": 0, "hoodie_bytes": 0}
    for d, _dirs, files in os.walk(path):
        rel = os.path.relpath(d, path)
        if rel == ".hoodie" or rel.startswith(".hoodie" + os.sep):
            out["hoodie_bytes"] += sum(os.path.getsize(os.path.join(d, f)) for f in files)
            continue
        if any(f == ".hoodie_partition_metadata" or f.startswith(".hoodie_partition_metadata.") for f in files):
            out["partitions"] += 1
        for f in files:
            size = os.path.getsize(os.path.join(d, f))
            if f.startswith(".hoodie_partition_metadata"):
                continue
            if is_log_file(f):
                out["log_files"] += 1
                out["log_bytes"] += size
            elif f.endswith(".parquet") and not f.startswith("."):
                out["base_files"] += 1
                out["base_bytes"] += size
            elif not f.endswith(".crc"):
                out["other_files"] += 1
    out["data_files"] = out["base_files"] + out["log_files"]
    out["data_bytes"] = out["base_bytes"] + out["log_bytes"]
    out["total_bytes"] = out["data_bytes"] + out["hoodie_bytes"]
    return out


def latest_slices(path: str) -> dict | None:
    """File groups and the log files of their latest slices, by hudi-rs's file-system view."""
    try:
        from hudi import HudiTableBuilder

        slices = HudiTableBuilder.from_base_uri(path).build().get_file_slices()
    except Exception as e:  # noqa: BLE001 - not installed, or a layout it does not read
        return {"error": f"{type(e).__name__}: {e}"[:300]}
    logs = [len(s.log_files_relative_paths()) for s in slices]
    return {"file_groups": len(slices), "with_base_file": sum(1 for s in slices if s.base_file_name),
            "log_files": sum(logs), "max_log_files": max(logs, default=0)}


# ---------------------------------------------------------------- measuring




def _df(spark, table: pa.Table):
    return spark.createDataFrame(table)


def ingest(spark, path: str, options: dict[str, str], stream: Stream, commits: int, log, label: str) -> list[dict]:
    """`commits` upserts of the stream into `path`: per commit, its seconds and the services it ran."""
    from pyhudi import HudiTable

    table = HudiTable(spark, path, options)
    out = []
    every = max(1, commits // 10)
    for _ in range(commits):
        batch = stream.next()
        df = _df(spark, batch)
        before = _completed(path)
        t0 = time.perf_counter()
        instant = table.upsert(df)
        seconds = time.perf_counter() - t0
        c = {"commit": stream.commit, "seconds": seconds, "rows": batch.num_rows, "instant": instant}
        services = services_of(before, _completed(path))
        if services:
            c["services"] = services
        out.append(c)
        if stream.commit % every == 0 or stream.commit == commits:
            recent = [x["seconds"] for x in out[-every:]]
            log(f"[{label}] commit {stream.commit}/{commits}: {seconds:.2f} s (median of the last {len(recent)}: "
                f"{statistics.median(recent):.2f} s), {stream.keys:,} keys")
    return out


def _percentile(xs: list[float], q: float) -> float:
    xs = sorted(xs)
    if len(xs) == 1:
        return xs[0]
    pos = (len(xs) - 1) * q
    lo = int(pos)
    hi = min(lo + 1, len(xs) - 1)
    return xs[lo] + (xs[hi] - xs[lo]) * (pos - lo)


def commit_summary(commits: list[dict], edge: int = EDGE) -> dict:
    xs = [c["seconds"] for c in commits]
    plain = [c["seconds"] for c in commits if not c.get("services", {}).get("commit")]
    k = min(edge, len(xs))
    first, last = statistics.median(xs[:k]), statistics.median(xs[-k:])
    return {"commits": len(xs), "median": statistics.median(xs), "p90": _percentile(xs, 0.9), "max": max(xs),
            "min": min(xs), "mean": statistics.fmean(xs), "total": sum(xs), "edge": k,
            "first_median": first, "last_median": last, "growth": last / first if first else None,
            "compactions": sum(c.get("services", {}).get("commit", 0) for c in commits),
            "median_without_compaction": statistics.median(plain) if plain else None}


def timed_reads(spark, path: str, query_type: str, runs: int) -> dict:
    """count(*) and sum(amount) of a full scan through hudi-meta: 1 untimed run, then `runs` timed."""
    from pyspark.sql import functions as F

    def once():
        df = spark.read.format("hudi-meta").option("hoodie.datasource.query.type", query_type).load(path)
        row = df.agg(F.count(F.lit(1)), F.sum("amount")).collect()[0]
        return int(row[0]), float(row[1] or 0.0)

    rows, total = once()
    samples = []
    for _ in range(runs):
        _settle(spark)
        t0 = time.perf_counter()
        once()
        samples.append(time.perf_counter() - t0)
    return {"query_type": query_type, "samples": samples, "median": statistics.median(samples), "rows": rows,
            "sum_amount": total}


def hudi_rs_count(path: str) -> dict:
    try:
        from hudi import HudiTableBuilder

        t0 = time.perf_counter()
        batches = HudiTableBuilder.from_base_uri(path).build().read()
        return {"rows": sum(b.num_rows for b in batches), "seconds": time.perf_counter() - t0}
    except Exception as e:  # noqa: BLE001 - recorded, the report says so
        return {"error": f"{type(e).__name__}: {e}"[:500]}


def run_variant(spark, name: str, options: dict[str, str], params: dict, root: str, log) -> dict:
    path = os.path.join(root, name)
    shutil.rmtree(path, ignore_errors=True)
    stream = Stream(params["inserts"], params["updates"], params["partitions"], params["seed"])
    label = VARIANTS[name][0]
    _settle(spark)
    load_before = _load()
    started = time.perf_counter()
    try:
        commits = ingest(spark, path, options, stream, params["commits"], log, label)
    except Exception as e:  # noqa: BLE001 - a variant the writer refuses is reported, the others still run
        log(f"[{label}] FAILED after {stream.commit - 1} commit(s): {type(e).__name__}: {e}")
        return {"label": label, "options": options, "error": f"{type(e).__name__}: {e}"[:2000],
                "failed_at_commit": stream.commit}
    entry = {"label": label, "options": options, "path": path, "load_avg_1m": [load_before, _load()],
             "ingest_seconds": round(time.perf_counter() - started, 2), "commits": commits,
             "commit_summary": commit_summary(commits), "files": files_on_disk(path), "slices": latest_slices(path)}
    reads = {}
    for q in ("snapshot", "read_optimized"):
        try:
            reads[q] = timed_reads(spark, path, q, params["read_runs"])
        except Exception as e:  # noqa: BLE001
            reads[q] = {"query_type": q, "error": f"{type(e).__name__}: {e}"[:1000]}
    entry["reads"] = reads
    entry["hudi_rs"] = hudi_rs_count(path)
    entry["check"] = check(stream, reads["snapshot"], entry["hudi_rs"], spark, path)
    s, f = entry["commit_summary"], entry["files"]
    log(f"[{label}] {s['commits']} commits: median {s['median']:.2f} s, p90 {s['p90']:.2f} s, max {s['max']:.2f} s, "
        f"first/last {s['edge']} {s['first_median']:.2f} / {s['last_median']:.2f} s; {f['base_files']} base + "
        f"{f['log_files']} log files, {f['data_bytes'] / 2**20:.1f} MiB; snapshot read "
        f"{reads['snapshot'].get('median', float('nan')):.2f} s; check {'OK' if entry['check']['ok'] else 'FAILED'}")
    return entry


def check(stream: Stream, snap: dict, rs: dict, spark, path: str) -> dict:
    """Rows read = keys inserted, no key twice, sum(amount) = the latest amount of every key; hudi-rs's count."""
    out = {"keys_inserted": stream.keys, "expected_sum_amount": stream.expected_sum()}
    if "error" in snap:
        return {**out, "ok": False, "why": "snapshot read failed"}
    distinct = spark.read.format("hudi-meta").load(path).select(datagen.KEY).distinct().count()
    out.update(rows_read=snap["rows"], distinct_keys_read=distinct, sum_amount_read=snap["sum_amount"],
               hudi_rs_rows=rs.get("rows"))
    out["rows_ok"] = snap["rows"] == stream.keys == distinct
    out["sum_ok"] = abs(snap["sum_amount"] - out["expected_sum_amount"]) <= 1e-6 * max(1.0, out["expected_sum_amount"])
    out["hudi_rs_ok"] = None if rs.get("rows") is None else rs["rows"] == stream.keys
    out["ok"] = out["rows_ok"] and out["sum_ok"] and out["hudi_rs_ok"] is not False
    return out


def jvm_warmup(spark, names: list[str], root: str, rounds: int, params: dict, log) -> float:
    """Untimed commits of 50 + 50 rows through every variant's options on scratch tables."""
    t0 = time.perf_counter()
    for name in names:
        path = os.path.join(root, "warmup", name)
        shutil.rmtree(path, ignore_errors=True)
        stream = Stream(50, 50, params["partitions"], params["seed"] + 1)
        try:
            ingest(spark, path, params["options"][name], stream, rounds, lambda *_: None, name)
        except Exception as e:  # noqa: BLE001 - the variant itself reports it
            log(f"warm-up of {name} failed: {type(e).__name__}: {e}")
        shutil.rmtree(path, ignore_errors=True)
    return round(time.perf_counter() - t0, 2)


# ---------------------------------------------------------------- the run


def _same_data(old: dict, params: dict) -> bool:
    keys = ("commits", "inserts", "updates", "partitions", "seed", "index_type", "log_index_key", "extra_options")
    return all(old.get("params", {}).get(k) == params.get(k) for k in keys)


def _save(doc: dict, out: str) -> None:
    save(os.path.join(out, "results.json"), doc)


def run(commits: int = DEFAULT_COMMITS, inserts: int = DEFAULT_INSERTS, updates: int = DEFAULT_UPDATES,
        only: list[str] | None = None, root: str = DEFAULT_ROOT, out: str = RESULTS_DIR, *,
        index_type: str = INDEX_TYPE, log_index_key: str = LOG_INDEX_KEY, extra: dict[str, str] | None = None,
        partitions: int = PARTITIONS, read_runs: int = READ_RUNS, warmup_commits: int = JVM_WARMUP_COMMITS,
        plots: bool = True, spark=None, log=None) -> dict:
    from rich.console import Console

    from bench import env
    from bench import spark as bench_spark
    from bench.planning.runner import code_state
    from bench.streaming import report

    console = Console() if Console().is_terminal else Console(width=160)
    log = log or functools.partial(console.log, markup=False)
    names = [n for n in VARIANTS if not only or n in only]
    started = time.perf_counter()
    os.makedirs(root, exist_ok=True)
    params = {"commits": commits, "inserts": inserts, "updates": updates, "partitions": partitions, "seed": SEED,
              "index_type": index_type, "log_index_key": log_index_key, "extra_options": extra or {},
              "read_runs": read_runs, "edge": EDGE}
    params["options"] = {n: variant_options(n, index_type, log_index_key, extra) for n in VARIANTS}
    path = os.path.join(out, "results.json")
    doc = None
    if os.path.exists(path):
        with open(path) as f:
            old = json.load(f)
        if old.get("benchmark") == "streaming" and _same_data(old, params):
            doc = old  # a run of some variants keeps the others' results
    if doc is None:
        doc = {"benchmark": "streaming", "variants": {}}
    doc.update({"command": "python -m bench.streaming " + " ".join(sys.argv[1:]),
                "started_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "root": root, "params": params})
    own = spark is None
    if own:
        log("starting Spark (bench.spark.session: pyhudi.spark_session, local[2]) ...")
        spark = bench_spark.session()
    doc["env"] = env.collect(java=bench_spark.java_version(spark))
    doc["code"] = code_state()
    doc["spark_settings"] = bench_spark.effective_settings(spark)
    doc["jvm_warmup"] = {"commits_per_variant": warmup_commits,
                         "seconds": jvm_warmup(spark, names, root, warmup_commits, params, log) if warmup_commits
                         else 0.0}
    log(f"warm-up: {warmup_commits} untimed commit(s) per variant ({doc['jvm_warmup']['seconds']} s)")
    for name in names:
        entry = run_variant(spark, name, params["options"][name], params, root, log)
        entry["ran_at"] = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
        doc["variants"][name] = entry
        doc["wall_seconds"] = round(time.perf_counter() - started, 1)
        _save(doc, out)
    doc["variants"] = {n: doc["variants"][n] for n in VARIANTS if n in doc["variants"]}
    doc["finished_at"] = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    doc["targets"] = report.targets(doc)
    _save(doc, out)
    report.write_markdown(doc, out)
    if plots:
        report.write_plot(doc, out)
    console.print(report.summary_table(doc))
    console.print(f"wrote {path} and report.md; wall time {doc['wall_seconds']} s")
    if own:
        spark.stop()
    return doc
