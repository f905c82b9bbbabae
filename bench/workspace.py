"""The run's working directory: staged source data, the tables the read and upsert workloads
start from (built once, reused across runs of the same data), and scratch space.

    <workdir>/source/{base,upsert,log_update}/*.parquet   staged inputs + source/meta.json
    <workdir>/tables/<name>/  and  tables/<name>.ready.json     prepared tables
    <workdir>/iceberg/{catalog.db,warehouse/}                 pyiceberg's SQL catalog on sqlite
    <workdir>/scratch/                                        per-run outputs, removed after each run
"""
from __future__ import annotations

import json
import os
import shutil
import tempfile
import time

from bench import datagen
from bench.datagen import DataShape

SOURCES = ("base", "upsert", "log_update")
LOOKUP_KEYS = 16
RANGE_WINDOWS = 16
RANGE_FRACTION = 0.01


def default_root(scale: str) -> str:
    return os.path.join(tempfile.gettempdir(), "pyhudi-bench", scale)


class Workspace:
    def __init__(self, root: str, shape: DataShape):
        self.root = os.path.abspath(root)
        self.shape = shape
        self.meta: dict = {}
        self._scratch_seq = 0
        for sub in ("source", "tables", "scratch", "iceberg"):
            os.makedirs(os.path.join(self.root, sub), exist_ok=True)

    # ---- staged source data ------------------------------------------------------------------
    def source(self, name: str) -> str:
        return os.path.join(self.root, "source", name)

    def source_files(self, name: str) -> list[str]:
        d = self.source(name)
        return sorted(os.path.join(d, f) for f in os.listdir(d) if f.endswith(".parquet"))

    def _meta_path(self) -> str:
        return os.path.join(self.root, "source", "meta.json")

    def prepare_sources(self, log=print) -> dict:
        """Generates and stages the data unless this workdir already holds the same data
        (same fingerprint). A new fingerprint clears the prepared tables too."""
        fp = self.shape.fingerprint()
        if os.path.exists(self._meta_path()):
            with open(self._meta_path()) as f:
                meta = json.load(f)
            if meta.get("fingerprint") == fp and all(os.path.isdir(self.source(s)) for s in SOURCES):
                self.meta = meta
                log(f"staged data found in {self.source('')} ({fp})")
                return meta
        log(f"generating data {fp} ...")
        self.reset()
        t0 = time.perf_counter()
        base = datagen.base_table(self.shape)
        upsert = datagen.upsert_batch(self.shape, base)
        log_update = datagen.log_update_batch(self.shape, base)
        for name, table in (("base", base), ("upsert", upsert), ("log_update", log_update)):
            datagen.write_staged(table, self.source(name))
        keys = datagen.lookup_keys(self.shape, base, LOOKUP_KEYS)
        windows = datagen.range_bounds(self.shape, RANGE_WINDOWS, RANGE_FRACTION)
        import pyarrow.compute as pc

        ts = base.column(datagen.CLUSTERED)
        counts = [int(pc.sum(pc.and_(pc.greater_equal(ts, lo), pc.less_equal(ts, hi))).as_py()) for lo, hi in windows]
        meta = {
            "fingerprint": fp,
            "rows": base.num_rows,
            "upsert_rows": upsert.num_rows, "upsert_updates": self.shape.upsert_updates,
            "upsert_inserts": self.shape.upsert_inserts,
            "log_update_rows": log_update.num_rows,
            "partitions": len(pc.unique(base.column(datagen.PARTITION))),
            "columns": [f"{f.name}: {f.type}" for f in base.schema],
            "lookup_keys": keys,
            "range_windows": [list(w) for w in windows],
            "range_counts": counts,
            "source_bytes": {s: sum(os.path.getsize(p) for p in self.source_files(s)) for s in SOURCES},
            "arrow_bytes": base.nbytes,
            "generation_seconds": round(time.perf_counter() - t0, 2),
        }
        with open(self._meta_path(), "w") as f:
            json.dump(meta, f, indent=1)
        self.meta = meta
        log(f"data staged in {meta['generation_seconds']} s: {base.num_rows} rows, "
            f"{upsert.num_rows}-row upsert batch, {log_update.num_rows}-row log update batch")
        return meta

    def reset(self) -> None:
        for sub in ("source", "tables", "scratch", "iceberg"):
            shutil.rmtree(os.path.join(self.root, sub), ignore_errors=True)
            os.makedirs(os.path.join(self.root, sub), exist_ok=True)

    # ---- prepared tables ---------------------------------------------------------------------
    def table(self, name: str) -> str:
        return os.path.join(self.root, "tables", name)

    def _ready_path(self, name: str) -> str:
        return os.path.join(self.root, "tables", f"{name}.ready.json")

    def ready(self, name: str, writer: str | None = None) -> dict | None:
        """The marker of a prepared table for the current data (and, when given, written by
        `writer`, e.g. a pyhudi commit); None when missing or stale."""
        try:
            with open(self._ready_path(name)) as f:
                info = json.load(f)
        except FileNotFoundError:
            return None
        if info.get("fingerprint") != self.shape.fingerprint():
            return None
        return info if writer is None or info.get("writer") == writer else None

    def mark_ready(self, name: str, **info) -> None:
        with open(self._ready_path(name), "w") as f:
            json.dump({"fingerprint": self.shape.fingerprint(), **info}, f)

    def forget(self, name: str) -> None:
        if os.path.exists(self._ready_path(name)):
            os.remove(self._ready_path(name))
        shutil.rmtree(self.table(name), ignore_errors=True)

    def adopt(self, name: str, path: str, writer: str | None = None, **info) -> bool:
        """Keeps a freshly written table (directory) as the prepared table `name`, when that one
        is missing or stale; True when it was kept."""
        if self.ready(name, writer):
            return False
        self.forget(name)
        os.replace(path, self.table(name))
        self.mark_ready(name, writer=writer, **info)
        return True

    # ---- scratch -----------------------------------------------------------------------------
    def scratch(self, stem: str) -> str:
        """A path that does not exist yet, under scratch/."""
        self._scratch_seq += 1
        path = os.path.join(self.root, "scratch", f"{stem}-{os.getpid()}-{self._scratch_seq}")
        shutil.rmtree(path, ignore_errors=True)
        return path

    def clear_scratch(self) -> None:
        shutil.rmtree(os.path.join(self.root, "scratch"), ignore_errors=True)
        os.makedirs(os.path.join(self.root, "scratch"), exist_ok=True)


def copy_table(src: str, dst: str) -> None:
    shutil.copytree(src, dst)


def remove(path: str) -> None:
    shutil.rmtree(path, ignore_errors=True)
