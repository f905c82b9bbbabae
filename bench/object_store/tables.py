"""The benchmark's tables, built on local disk (kept in the workdir and reused), then uploaded (store.py).

Two kinds:

- real: a Hudi copy-on-write table whose data files exist, built by bench/latency's builder (the load
  written directly by pyhudi's base-file writer, one bulk_insert commit, the metadata table at the writer's
  default partitions: files, column_stats, partition_stats). Its data files are uploaded too, so storage
  can be listed (hudi-meta with hoodie.metadata.enable=false, spark.read.parquet) and upserts read them.
- hoodie-only: only `.hoodie/` of a table of `shape.files` files, none written. A full-scan plan from the
  metadata table reads nothing but `.hoodie/` (the timeline, the metadata table's `files` partition), so
  for that mode the data objects need not exist. 1M real files would take an hour to write and would not fit
  in the server's memory (the report gives the measured figures behind this). The load is `commits`
  bulk_insert commits of `partitions / commits` partitions each (a table grown by several loads: its
  latest commit holds as many write stats as the 100k table's only one), and the metadata table has
  the `files` partition only (the one a full scan reads; column statistics of 1M files would take Python
  longer than the whole run). File names follow bench/latency's builder; every file is FILE_SIZE bytes.
"""
from __future__ import annotations

import json
import os
import shutil
import time
import uuid
from dataclasses import asdict, dataclass

from bench.latency import build as latency_build
from bench.planning.build import Shape

BUILD_VERSION = 1
FILE_SIZE = 3838  # bytes of one real load file of bench/latency's builder (10 rows)


@dataclass(frozen=True)
class Table:
    """A planning table: `objects` when its data files are uploaded (a real table), else hoodie-only."""
    name: str
    shape: Shape
    objects: bool
    commits: int = 1  # load commits of a hoodie-only table

    @property
    def files(self) -> int:
        return self.shape.files


@dataclass(frozen=True)
class Scale:
    """What one run measures: the planning tables, the upsert's table (real) and the planning table with 10x
    its files (real) on which the same upsert's requests are counted again."""
    name: str
    planning: tuple[Table, ...]
    upsert: Shape
    upsert_10x: str
    latencies: tuple[float, ...] = (0, 5, 30)
    reps: int = 3
    warmup_rounds: int = 3
    extrapolate: bool = True  # listing at the .hoodie-only sizes, from the largest real table's


SCALES = {
    "full": Scale("full", (Table("100k", Shape("100k", 100, 1000), True),
                           Table("1M", Shape("1M", 1000, 1000), False, commits=10)),
                  upsert=Shape("10k", 10, 1000), upsert_10x="100k"),
    # the metadata-table plans alone, at full size (.hoodie/ only: minutes, not the 100k upload's quarter hour);
    # listing and the upsert on the tiny tables, so every section of the report has its figures
    "metadata": Scale("metadata", (Table("200", Shape("t200", 10, 20), True),
                                   Table("100k", Shape("100k", 100, 1000), False),
                                   Table("1M", Shape("1M", 1000, 1000), False, commits=10)),
                      upsert=Shape("t20", 1, 20), upsert_10x="200", extrapolate=False),
    "tiny": Scale("tiny", (Table("200", Shape("t200", 10, 20), True),
                           Table("2k", Shape("t2k", 100, 20), False, commits=2)),
                  upsert=Shape("t20", 1, 20), upsert_10x="200", latencies=(0, 5), reps=1, warmup_rounds=0),
}


def real_path(root: str, shape: Shape) -> str:
    return latency_build.pristine(root, shape, "mdt-on")


def hoodie_only_path(root: str, table: Table) -> str:
    return os.path.join(root, f"{table.shape.name}-hoodie-only", "table")


def ensure_real(shape: Shape, root: str, log=print) -> dict:
    """bench/latency's mdt=on pristine table of `shape` (its mdt=off twin is a by-product of that builder:
    hard links, no extra bytes)."""
    return latency_build.ensure(shape, root, delta=False, log=log)["mdt-on"]


def _file_name(k: int, instant: str) -> tuple[str, str]:
    """(file id, base file name) of load file number k, as bench/latency's builder names them."""
    from pyhudi.table import file_names

    fid = f"{uuid.UUID(int=(k + 1) * 0x9E3779B97F4A7C15 % (1 << 128))}-0"
    return fid, str(file_names.BaseFileName(fid, "0-0-0", instant))


def load_instant(c: int) -> str:
    """Requested time of load commit c: 2025-01-01 at hour c (17 digits, as Hudi's instants)."""
    return f"20250101{c:02d}0000000"


def build_hoodie_only(table: Table, path: str, log=print) -> dict:
    """`.hoodie/` of `table` at `path` (module docstring); seconds per step."""
    from pyhudi.metadata import MetadataWriter
    from pyhudi.storage import Storage
    from pyhudi.table import instant_metadata as im
    from pyhudi.table import properties
    from pyhudi.table.timeline import Timeline

    lb, shape, times = latency_build, table.shape, {}
    if os.path.exists(path):
        shutil.rmtree(path)
    os.makedirs(path)
    storage, base = Storage.for_uri(path)
    schema = lb._create_schema()
    props = properties.v8_defaults(lb.TABLE_NAME, "COPY_ON_WRITE", [lb.KEY], [lb.PARTITION], lb.ORDERING, schema,
                                   "SIMPLE", True, False)
    storage.mkdirs(f"{base}/.hoodie/timeline/history")
    properties.save(storage, base, props)
    tl = Timeline.for_table(storage, base, props)
    listing: dict[str, list[tuple]] = {}
    per_commit = -(-shape.partitions // table.commits)
    n = shape.rows_per_file
    t0 = time.perf_counter()
    for c in range(table.commits):
        inflight = tl.transition_to_inflight(tl.create_requested("commit", requested_time=load_instant(c)))
        stats = {}
        for i in range(c * per_commit, min(shape.partitions, (c + 1) * per_commit)):
            part, entries, wstats = shape.partition_path(i), [], []
            for j in range(shape.files_per_partition):
                fid, name = _file_name(i * shape.files_per_partition + j, inflight.requested_time)
                entries.append((name, FILE_SIZE, {}))  # {}: no column statistics (no files partition needs them)
                wstats.append(im.write_stat(fileId=fid, path=f"{part}/{name}", prevCommit="null", partitionPath=part,
                                            numWrites=n, numInserts=n, numDeletes=0, numUpdateWrites=0,
                                            totalWriteErrors=0, fileSizeInBytes=FILE_SIZE, totalWriteBytes=FILE_SIZE))
            listing[part], stats[part] = entries, wstats
        tl.complete(inflight, im.encode(im.COMMIT, im.commit_metadata(stats, "BULK_INSERT", schema)))
        log(f"  [{table.name}] load commit {c + 1}/{table.commits}: {sum(len(s) for s in stats.values()):,} files")
    times["commits"] = time.perf_counter() - t0
    t0 = time.perf_counter()
    MetadataWriter(storage, base, props, partitions=["files"]).initialize(tl, listing)
    times["metadata_table"] = time.perf_counter() - t0
    return times


def ensure_hoodie_only(table: Table, root: str, log=print) -> dict:
    """The hoodie-only table, built unless a complete build of the same shape is in the workdir."""
    path = hoodie_only_path(root, table)
    manifest_path = os.path.join(os.path.dirname(path), "build.json")
    key = {"version": BUILD_VERSION, "shape": asdict(table.shape), "commits": table.commits, "file_size": FILE_SIZE}
    if os.path.exists(manifest_path):
        with open(manifest_path) as f:
            manifest = json.load(f)
        if all(manifest.get(k) == v for k, v in key.items()):
            log(f"[{table.name}] reusing the .hoodie-only table in {path}")
            return {**manifest, "reused": True}
    log(f"[{table.name}] building .hoodie/ of {table.files:,} files in {table.shape.partitions} partitions "
        f"({table.commits} load commits) under {path} (untimed) ...")
    times = build_hoodie_only(table, path, log)
    manifest = {**key, "built_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "files": table.files,
                "build_seconds": {k: round(v, 1) for k, v in times.items()}}
    with open(manifest_path, "w") as f:
        json.dump(manifest, f, indent=2)
    return {**manifest, "reused": False}


def local_files(path: str, hoodie_only: bool = False) -> list[tuple[str, str]]:
    """(local file, key relative to the table) of every file of the table at `path` (or of its .hoodie/)."""
    top = os.path.join(path, ".hoodie") if hoodie_only else path
    out = []
    for d, _, names in os.walk(top):
        for name in names:
            full = os.path.join(d, name)
            out.append((full, os.path.relpath(full, path)))
    return sorted(out, key=lambda x: x[1])
