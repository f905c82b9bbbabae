"""Runs the record-index benchmark and writes results.json and report.md (see __main__ for the cases).

Tables: a merge-on-read pyhudi table bulk-inserted without the record index (SIMPLE upserts run on copies
of it); a copy of it given its record index by `pyhudi.write.record_index.build` (timed: the `build`
case), on which lookups, point queries and RECORD_INDEX upserts run; a table written with the bucket
index (2 buckets a partition: 100 file groups); a delta-rs table partitioned alike. Every upsert run
starts from a fresh copy (copied before the clock starts) and applies the same batch."""
from __future__ import annotations

import json
import os
import random
import re
import shutil
import statistics
import time
import uuid

import pyarrow as pa
import pyarrow.parquet as pq

from bench import env
from bench.results import save, write_report

RESULTS_DIR = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "results", "record_index")
DEFAULT_ROOT = os.path.join("/tmp", "pyhudi-bench", "record_index")
DEFAULT_ROWS, PARTITIONS, LOOKUP_KEYS = 5_000_000, 50, 100_000
# hoodie.hfile.block.cache.size for the cached lookups: the 5M-key index is about 780 blocks of up to 1 MB inflated
CACHE_BLOCKS = 1024
CASES = ("build", "lookup", "point", "upsert")
READ_RUNS, WRITE_RUNS = 7, 3
SOFT_CACHE = "pyhudi.hfile.block.cache.soft.enabled"
WARM_LOOKUPS = 20  # lookups run before the warm lookup case is timed
HUDI = {"hoodie.table.name": "ri_bench", "hoodie.datasource.write.recordkey.field": "id",
        "hoodie.datasource.write.precombine.field": "ts", "hoodie.datasource.write.partitionpath.field": "day",
        "hoodie.datasource.write.table.type": "MERGE_ON_READ", "hoodie.compact.inline": "false",
        "hoodie.clean.automatic": "false", "hoodie.archive.automatic": "false"}
INDEXES = {"RECORD_INDEX": {"hoodie.index.type": "RECORD_INDEX"}, "SIMPLE": {"hoodie.index.type": "SIMPLE"},
           "BUCKET": {"hoodie.index.type": "BUCKET", "hoodie.bucket.index.num.buckets": "2"}}


def _key(rng: random.Random) -> str:
    return str(uuid.UUID(int=rng.getrandbits(128), version=4))


def rows(keys: list[str], idx, ts: int) -> pa.Table:
    """Rows of `keys`, the i-th of `idx` in day i % PARTITIONS."""
    n = len(keys)
    return pa.table({"id": keys, "day": [f"d{i % PARTITIONS:02d}" for i in idx],
                     "ts": pa.array([ts] * n, pa.int64()), "amount": pa.array([i * 0.5 for i in idx]),
                     "description": [f"record {i:010d} " + "x" * 32 for i in idx]})


def data(n_rows: int) -> tuple[pa.Table, pa.Table, list[str]]:
    """(the table's rows, the 1% upsert batch: 80% updates of random rows, 20% new, lookup keys)."""
    rng = random.Random(14)
    keys = [_key(rng) for _ in range(n_rows)]
    base = rows(keys, range(n_rows), 1)
    n_batch = max(10, n_rows // 100)
    updated = sorted(rng.sample(range(n_rows), n_batch * 4 // 5))
    upd = rows([keys[i] for i in updated], updated, 2)
    new = rows([_key(rng) for _ in range(n_batch - len(updated))], range(n_rows, n_rows + n_batch - len(updated)), 2)
    lookups = [keys[i] for i in rng.sample(range(n_rows), min(LOOKUP_KEYS, n_rows))]
    return base, pa.concat_tables([upd, new]), lookups


def _timed(fn, *args) -> float:
    start = time.perf_counter()
    fn(*args)
    return time.perf_counter() - start


def _runs(fn, runs: int, warm: int = 1) -> list[float]:
    for _ in range(warm):
        fn()
    return [_timed(fn) for _ in range(runs)]


def _file_groups(mdt_partition: str) -> int:
    """File groups of a metadata-table partition, from its file names (`record-index-0003-0_...`)."""
    return len({m.group(0) for f in os.listdir(mdt_partition) if (m := re.search(r"[a-z-]+-\d{4}-\d+", f))})


def _size(path: str) -> int:
    return sum(os.path.getsize(os.path.join(d, f)) for d, _, fs in os.walk(path) for f in fs)


class Bench:
    def __init__(self, spark, n_rows: int, workdir: str):
        self.spark, self.n_rows, self.workdir = spark, n_rows, workdir
        self.base, self.batch, self.lookups = data(n_rows)
        self.results: dict = {}
        self._staged: set[str] = set()

    def path(self, name: str) -> str:
        return os.path.join(self.workdir, name)

    def _df(self, table: pa.Table):
        """`table` staged as one Parquet file and read by Spark, as data arrives for a load: a DataFrame made from
        pandas would have a task per 10,000 rows, each writing its own file in every partition (bulk_insert's
        default sort mode NONE), 25,000 files for the 5M-row table."""
        staged = self.path(f"staged-{id(table)}.parquet")
        if staged not in self._staged:  # once per table: the writes timed do not include staging
            pq.write_table(table, staged)
            self._staged.add(staged)
        return self.spark.read.parquet(staged)

    def _hudi_write(self, path: str, table: pa.Table, operation: str, extra: dict) -> None:
        (self._df(table).write.format("hudi-meta").options(**HUDI, **extra)
         .option("hoodie.datasource.write.operation", operation).mode("append").save(path))

    def prepare(self) -> None:
        """The loaded tables, kept in the workdir for later runs of the same size."""
        marker = os.path.join(self.workdir, f"loaded-{self.n_rows}")
        if os.path.exists(marker):
            return
        shutil.rmtree(self.workdir, ignore_errors=True)
        os.makedirs(self.workdir)
        self._hudi_write(self.path("hudi"), self.base, "bulk_insert", INDEXES["SIMPLE"])
        self._hudi_write(self.path("hudi-bucket"), self.base, "bulk_insert", INDEXES["BUCKET"])
        from deltalake import write_deltalake
        write_deltalake(self.path("delta"), self.base, partition_by=["day"])
        open(marker, "w").close()

    # ---- cases -----------------------------------------------------------------------------------
    def build(self) -> None:
        from pyhudi.metadata import MetadataWriter
        from pyhudi.metadata.layout import SUPPORTED_PARTITIONS
        from pyhudi.metadata.record_index import Sizing
        from pyhudi.storage import Storage
        from pyhudi.table import properties
        from pyhudi.write import record_index

        target = self.path("hudi-ri")
        shutil.rmtree(target, ignore_errors=True)
        shutil.copytree(self.path("hudi"), target)
        storage, base = Storage.for_uri(target)
        mdt = MetadataWriter(storage, base, properties.load(storage, base), partitions=SUPPORTED_PARTITIONS)
        seconds = _timed(record_index.build, self.spark, target, mdt, Sizing())
        size = _size(os.path.join(target, ".hoodie", "metadata", "record_index"))
        self.results["build"] = {"seconds": seconds, "bytes": size, "bytes_per_key": size / self.n_rows}
        print(f"build: {seconds:.1f} s, {size / self.n_rows:.1f} B/key", flush=True)

    def lookup(self) -> None:
        """100k keys located on executors, with the process-wide HFile block cache sized to hold the whole index
        (blocks of one lookup serve the next) and with it off (every lookup reads and inflates the index)."""
        from pyhudi.write.index import record as record_index

        keys = self.spark.createDataFrame([(k,) for k in self.lookups], "_hudi_bk string").cache()
        keys.count()
        path = self.path("hudi-ri")
        options = {"uncached": {"hoodie.hfile.block.cache.enabled": "false"},
                   "cached": {"hoodie.hfile.block.cache.enabled": "true",
                              "hoodie.hfile.block.cache.size": str(CACHE_BLOCKS)}}

        def once(name: str) -> None:
            found = record_index.locate(self.spark, path, options[name], keys).count()
            assert found == len(self.lookups), (found, len(self.lookups))
        runs = {}
        for name in options:
            runs[name] = _runs(lambda n=name: once(n), READ_RUNS)
            print(f"lookup of {len(self.lookups)} keys, {name}: median {statistics.median(runs[name]):.3f} s",
                  flush=True)
        # a process that has looked keys up before (a writer that keeps running): the JIT has compiled the
        # lookup's paths, which the first runs above still interpret in part
        runs["warm"] = _runs(lambda: once("cached"), READ_RUNS, warm=WARM_LOOKUPS)
        print(f"lookup of {len(self.lookups)} keys, cached, after {WARM_LOOKUPS} lookups: median "
              f"{statistics.median(runs['warm']):.3f} s", flush=True)
        # what Spark alone costs here for the lookup's shape: the keys shuffled into as many tasks as the lookup
        # uses (a file group each, up to the cores) and counted, nothing looked up (no index work can remove it)
        groups = _file_groups(os.path.join(path, ".hoodie", "metadata", "record_index"))
        tasks = min(groups, self.spark.sparkContext.defaultParallelism)
        runs["spark_floor"] = _runs(lambda: keys.repartition(tasks, "_hudi_bk").count(), READ_RUNS,
                                    warm=WARM_LOOKUPS)
        print(f"the same keys shuffled into {tasks} tasks and counted: median "
              f"{statistics.median(runs['spark_floor']):.3f} s", flush=True)
        # the later cases run with the default cache (100 blocks), emptied
        record_index.locate(self.spark, path, {"hoodie.hfile.block.cache.size": "100"}, keys.limit(1)).count()
        self.spark._jvm.io.hudimeta.hfile.BlockCache.shared().clear()
        keys.unpersist()
        self.results["lookup"] = {"keys": len(self.lookups), "seconds": runs["cached"],
                                  "seconds_uncached": runs["uncached"], "cache_blocks": CACHE_BLOCKS,
                                  "seconds_warm": runs["warm"], "warm_lookups": WARM_LOOKUPS,
                                  "seconds_spark_floor": runs["spark_floor"], "file_groups": groups, "tasks": tasks}

    def point(self) -> None:
        from deltalake import DeltaTable
        from pyspark.sql import functions as F

        keys = iter(self.lookups * 2)

        def hudi(options: dict) -> None:
            got = (self.spark.read.format("hudi-meta").options(**options).load(self.path("hudi-ri"))
                   .filter(F.col("id") == next(keys)).toArrow())
            assert got.num_rows == 1

        def delta() -> None:
            assert DeltaTable(self.path("delta")).to_pyarrow_table(filters=[("id", "=", next(keys))]).num_rows == 1

        self.results["point"] = {
            "hudi-meta (record_index)": _runs(lambda: hudi({}), READ_RUNS, 2),
            "hudi-meta (no record index)": _runs(lambda: hudi({"hoodie.enable.data.skipping": "false"}), READ_RUNS),
            "delta-rs": _runs(delta, READ_RUNS),
            # a session that keeps serving queries (a notebook, a SQL server): Spark's planning and scheduling
            # paths compiled by the JIT; delta-rs, native code, is timed again alongside
            f"hudi-meta (record_index), after {WARM_LOOKUPS} queries": _runs(lambda: hudi({}), READ_RUNS, WARM_LOOKUPS),
            f"delta-rs, after {WARM_LOOKUPS} queries": _runs(delta, READ_RUNS, WARM_LOOKUPS)}
        for name, times in self.results["point"].items():
            print(f"point lookup, {name}: median {statistics.median(times):.3f} s", flush=True)

    def upsert(self) -> None:
        out, first = {}, {}
        for index, source in (("RECORD_INDEX", "hudi-ri"), ("SIMPLE", "hudi"), ("BUCKET", "hudi-bucket")):
            first[f"pyhudi MOR {index}"], out[f"pyhudi MOR {index}"] = self._copies(
                source, lambda p, i=index: self._hudi_write(p, self.batch, "upsert", INDEXES[i]))
        # Hudi's strict count: 100 blocks of the ~780 the index has, so every upsert inflates the index again
        strict = {**INDEXES["RECORD_INDEX"], SOFT_CACHE: "false"}
        name = "pyhudi MOR RECORD_INDEX, soft tier off (100 blocks held)"
        first[name], out[name] = self._copies("hudi-ri", lambda p: self._hudi_write(p, self.batch, "upsert", strict))
        self._cache_options({SOFT_CACHE: "true"})
        self.spark._jvm.io.hudimeta.hfile.BlockCache.shared().clear()
        first["delta-rs merge"], out["delta-rs merge"] = self._copies("delta", self._delta_merge)
        self.results["upsert"] = {**out, "first": first}
        for name, times in out.items():
            print(f"upsert 1%, {name}: median {statistics.median(times):.2f} s (first in the process "
                  f"{first[name]:.2f} s)", flush=True)

    def _cache_options(self, options: dict) -> None:
        """Sets the JVM's HFile block cache options (a read applies the ones it is given)."""
        self.spark.read.format("hudi-meta").options(**options).load(self.path("hudi-ri")).schema  # noqa: B018

    def _delta_merge(self, path: str) -> None:
        from deltalake import DeltaTable
        (DeltaTable(path).merge(self.batch, "t.id = s.id AND t.day = s.day", source_alias="s", target_alias="t")
         .when_matched_update_all().when_not_matched_insert_all().execute())

    def _copies(self, source: str, write) -> tuple[float, list[float]]:
        """Seconds of `write` on fresh copies of `source`: the first (a warm-up), then WRITE_RUNS."""
        times = []
        for _ in range(WRITE_RUNS + 1):
            target = self.path(f"{source}-upsert")
            shutil.rmtree(target, ignore_errors=True)
            shutil.copytree(self.path(source), target)
            times.append(_timed(write, target))
        return times[0], times[1:]


def run(n_rows: int, cases: list[str], workdir: str, out: str) -> None:
    from bench.spark import session

    bench = Bench(session(), n_rows, workdir)
    bench.prepare()
    path = os.path.join(out, "results.json")
    doc = {"rows": n_rows, "env": env.collect(), "cases": {}}
    if os.path.exists(path):
        with open(path) as f:
            old = json.load(f)
        if old.get("rows") == n_rows:
            doc["cases"] = old.get("cases", {})
    if "build" not in cases and not os.path.exists(bench.path("hudi-ri")):
        cases = ["build"] + cases  # the other cases read the indexed table
    for case in CASES:
        if case in cases:
            getattr(bench, case)()
            doc["cases"][case] = bench.results[case]
            save(path, doc)
    report(out)


def _median(values) -> float:
    return statistics.median(values)


def report(out: str) -> None:
    with open(os.path.join(out, "results.json")) as f:
        doc = json.load(f)
    cases = doc["cases"]
    lines = ["# Record index", "", f"{doc['rows']:,} rows in {PARTITIONS} partitions, UUID keys; medians of "
             f"{READ_RUNS} reads / {WRITE_RUNS} writes after warm-up, one process, Spark local[2].", "",
             "| measure | value | goal | verdict |", "| --- | --- | --- | --- |"]
    if "build" in cases:
        b = cases["build"]
        lines.append(f"| record index size on disk | {b['bytes_per_key']:.1f} B/key ({b['bytes'] / 2**20:.1f} MiB) | "
                     f"<= 40 B/key | {'met' if b['bytes_per_key'] <= 40 else 'missed'} |")
        lines.append(f"| index build for the existing table | {b['seconds']:.1f} s | - | reported |")
    if "lookup" in cases:
        lk = cases["lookup"]
        s = _median(lk["seconds"])
        notes = (f"; block cache off: {_median(lk['seconds_uncached']) * 1000:.0f} ms"
                 if "seconds_uncached" in lk else "")
        if "seconds_spark_floor" in lk:
            notes += (f"; the same keys shuffled into {lk.get('tasks', lk['file_groups'])} tasks and counted, "
                      f"no lookup: {_median(lk['seconds_spark_floor']) * 1000:.0f} ms")
        lines.append(f"| batched lookup of {lk['keys']:,} keys, first runs | {s * 1000:.0f} ms "
                     f"(hoodie.hfile.block.cache.size={lk.get('cache_blocks', '-')}{notes}) | <= 300 ms | "
                     f"{'met' if s <= 0.3 else 'missed'} |")
        if "seconds_warm" in lk:
            w = _median(lk["seconds_warm"])
            lines.append(f"| batched lookup of {lk['keys']:,} keys, after {lk['warm_lookups']} lookups | "
                         f"{w * 1000:.0f} ms | <= 300 ms | {'met' if w <= 0.3 else 'missed'} |")
    if "point" in cases:
        p = {k: _median(v) for k, v in cases["point"].items()}
        ri, delta = p["hudi-meta (record_index)"], p["delta-rs"]
        ok = ri <= 0.2 and delta / ri >= 3
        lines.append(f"| point lookup by key | {ri:.3f} s (no record index {p['hudi-meta (no record index)']:.3f} s; "
                     f"delta-rs {delta:.3f} s: {delta / ri:.1f}x) | <= 0.2 s and >= 3x faster than delta-rs | "
                     f"{'met' if ok else 'missed'} |")
        warm = next((k for k in p if k.startswith("hudi-meta (record_index), after")), None)
        if warm:
            wr, wd = p[warm], p[warm.replace("hudi-meta (record_index)", "delta-rs")]
            lines.append(f"| point lookup by key, {warm.split(', ', 1)[1]} | {wr:.3f} s (delta-rs {wd:.3f} s: "
                         f"{wd / wr:.1f}x) | <= 0.2 s and >= 3x faster than delta-rs | "
                         f"{'met' if wr <= 0.2 and wd / wr >= 3 else 'missed'} |")
    if "upsert" in cases:
        first = cases["upsert"].get("first", {})
        u = {k: _median(v) for k, v in cases["upsert"].items() if k != "first"}
        delta = u["delta-rs merge"]
        others = ", ".join(f"{k} {v:.2f} s" for k, v in u.items() if "RECORD_INDEX" not in k)
        for name in (k for k in u if "RECORD_INDEX" in k):
            ri = u[name]
            cold = (f"; the first in the process {first[name]:.2f} s, delta-rs's {first['delta-rs merge']:.2f} s"
                    if name in first else "")
            lines.append(f"| 1% upsert, {name.removeprefix('pyhudi MOR ')} | {ri:.2f} s ({others}{cold}) | faster "
                         f"than delta-rs merge | {'met' if ri < delta else 'missed'} ({ri / delta:.2f}x) |")
    lines += ["", "Rerun: `python -m bench.record_index run` (add `--rows 1000000` for a quicker run).", ""]
    write_report(out, lines)
