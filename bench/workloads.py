"""The workloads and, for each, one case per system (or per variant of a system).

A case is measured as: `setup` once (untimed: prepared tables), then for every run `prepare`
(untimed: a fresh copy of the input table), `run` (timed), `cleanup` (untimed). After the last
run `verify` checks the result (untimed). `run` raises when a query returns the wrong rows.
"""
from __future__ import annotations

import os
import time
from dataclasses import dataclass, field
from typing import Callable

from bench import datagen
from bench.context import ICEBERG_BASE, RunContext
from bench.systems import SYSTEMS
from bench.workspace import copy_table, remove


@dataclass(frozen=True)
class Workload:
    id: str
    title: str
    what: str           # what one timed run does
    reads: bool


WORKLOADS = {w.id: w for w in [
    Workload("bulk_load", "Bulk load",
             "load the staged base data (Parquet) into a new, empty table", reads=False),
    Workload("upsert", "Upsert 1%",
             "apply the upsert batch (updates of random existing keys + new keys) to a copy of the loaded table",
             reads=False),
    Workload("point_lookup", "Point lookup by key",
             "fetch the one row of a random existing key (`id = '<uuid>'`), no partition hint, into Arrow",
             reads=True),
    Workload("range_scan", "Range scan on the clustered column",
             "fetch the rows of a 1% `event_ts` window (`event_ts BETWEEN lo AND hi`) into Arrow", reads=True),
    Workload("snapshot_scan_cow", "Full snapshot scan, copy-on-write",
             "read every row and column of the COW table (Spark: `write.format(\"noop\")`; hudi-rs: into Arrow)",
             reads=True),
    Workload("snapshot_scan_mor", "Full snapshot scan, merge-on-read (10% of rows updated in logs)",
             "read every row and column of the MOR table whose base files are overlaid by log files updating "
             "10% of the rows", reads=True),
]}

# The targets: (workload, our case label, peer case label, bound, how the ratio must compare)
TARGETS = [
    ("snapshot_scan_cow", "hudi-meta", "spark-parquet (same base files)", 1.2, "<=",
     "COW snapshot scan within 1.2x of plain Spark Parquet on the same files"),
    ("upsert", "pyhudi upsert MOR", "delta-rs merge", 1.0, "<",
     "MOR upsert of 1% faster than delta-rs merge"),
]


@dataclass
class Case:
    workload: str
    system: str
    label: str
    run: Callable[[int], dict | None]
    reps: int
    warmup: int
    prepare: Callable[[int], None] | None = None
    cleanup: Callable[[int, bool], None] | None = None
    setup: Callable[[], None] | None = None
    verify: Callable[[], str] | None = None
    settings: str = ""
    notes: list[str] = field(default_factory=list)

    @property
    def id(self) -> str:
        return f"{self.workload}/{self.label}"

    @property
    def ours(self) -> bool:
        return SYSTEMS[self.system].ours


def _expect(what: str, got: int, want: int) -> None:
    if got != want:
        raise AssertionError(f"{what}: got {got} rows, expected {want}")


def _expect_verified(what: str, got: int, want: int) -> str:
    _expect(what, got, want)
    return f"{what}: {got} rows as expected"


# ---- bulk load ------------------------------------------------------------------------------------

def bulk_load(ctx: RunContext) -> list[Case]:
    from bench.systems import hudi

    reps, warm, ws, rows = ctx.scale.write_reps, ctx.scale.warmup, ctx.ws, ctx.ws.meta["rows"]
    cases = []

    def directory_case(system, label, stem, write, keep_as, count, settings):
        state = {}

        def prepare(i):
            state["path"] = ws.scratch(stem)

        def run(i):
            write(state["path"])
            return {"rows": rows}

        def verify():
            return _expect_verified("rows in the loaded table", count(state["path"]), rows)

        def cleanup(i, last):
            from bench.context import WRITERS
            if not (last and keep_as and ws.adopt(keep_as, state["path"], WRITERS.get(keep_as))):
                remove(state["path"])

        return Case("bulk_load", system, label, run, reps, warm, prepare, cleanup, verify=verify, settings=settings)

    for op in ("bulk_insert", "insert"):
        for tt in ("COW", "MOR"):
            cases.append(directory_case(
                "pyhudi", f"pyhudi {op} {tt}", f"hudi-{op}-{tt}",
                lambda p, op=op, tt=tt: hudi.write(ctx.spark, p, ctx.source("base"), op, tt),
                f"hudi_{tt.lower()}" if op == "bulk_insert" else None, lambda p: hudi.row_count(p, ctx.spark),
                hudi.SETTINGS))

    cases.append(directory_case(
        "pyhudi", "pyhudi simple-index bulk_insert COW", "hudi-bulk-simple",
        lambda p: hudi.write(ctx.spark, p, ctx.source("base"), "bulk_insert", "COW", hudi.SIMPLE_INDEX),
        None, lambda p: hudi.row_count(p, ctx.spark), hudi.SIMPLE_SETTINGS))
    cases.append(directory_case(
        "pyhudi", "pyhudi row-writer bulk_insert COW", "hudi-bulk-row-writer",
        lambda p: hudi.write(ctx.spark, p, ctx.source("base"), "bulk_insert", "COW", hudi.ROW_WRITER),
        None, lambda p: hudi.row_count(p, ctx.spark), hudi.ROW_WRITER_SETTINGS))

    def delta_load(p):
        from bench.systems import delta
        delta.load(p, ctx.source("base"))

    def delta_count(p):
        from bench.systems import delta
        return delta.row_count(p)

    from bench.systems import delta as _d
    from bench.systems import iceberg as _i
    from bench.systems import parquet as _p
    cases.append(directory_case("delta-rs", "delta-rs write_deltalake", "delta-load", delta_load, "delta",
                                delta_count, _d.SETTINGS))
    cases.append(directory_case("spark-parquet", "spark-parquet write", "parquet-load",
                                lambda p: _p.load(ctx.spark, p, ctx.source("base")), "parquet",
                                lambda p: _p.row_count(ctx.spark, p), _p.SETTINGS))

    ice = {}

    def ice_prepare(i):
        # a name never used before: a table's location derives from its name, and the prepared table
        # (renamed from an earlier load) still lives at the location of the name it was created under
        ice["name"] = f"load_{time.strftime('%Y%m%d%H%M%S')}_{os.getpid()}_{i}"
        _i.drop(ctx.catalog, ice["name"])

    def ice_run(i):
        _i.load(ctx.catalog, ice["name"], ctx.source("base"))
        return {"rows": rows}

    def ice_verify():
        return _expect_verified("rows in the loaded table", _i.row_count(ctx.catalog, ice["name"]), rows)

    def ice_cleanup(i, last):
        if last and not ws.ready("iceberg"):  # keep it as the prepared table (a catalog rename)
            _i.drop(ctx.catalog, ICEBERG_BASE)
            ctx.catalog.rename_table(_i.ident(ice["name"]), _i.ident(ICEBERG_BASE))
            ws.mark_ready("iceberg", adopted=True)
        else:
            _i.drop(ctx.catalog, ice["name"])

    cases.append(Case("bulk_load", "pyiceberg", "pyiceberg append", ice_run, reps, warm, ice_prepare, ice_cleanup,
                      verify=ice_verify, settings=_i.SETTINGS))
    return cases


# ---- upsert ---------------------------------------------------------------------------------------

def upsert(ctx: RunContext) -> list[Case]:
    from bench.systems import delta, hudi, iceberg, parquet

    reps, warm, ws, meta = ctx.scale.write_reps, ctx.scale.warmup, ctx.ws, ctx.ws.meta
    after = meta["rows"] + meta["upsert_inserts"]
    cases = []

    def copy_case(system, label, table, stem, write, count, settings):
        state = {}

        def setup():
            state["base"] = ctx.table(table)

        def prepare(i):
            state["path"] = ws.scratch(stem)
            copy_table(state["base"], state["path"])

        def run(i):
            return {"rows": meta["upsert_rows"], **(write(state["path"]) or {})}

        def verify():
            return _expect_verified("rows after the upsert", count(state["path"]), after)

        def cleanup(i, last):
            remove(state["path"])

        return Case("upsert", system, label, run, reps, warm, prepare, cleanup, setup, verify, settings)

    for tt in ("COW", "MOR"):
        cases.append(copy_case("pyhudi", f"pyhudi upsert {tt}", f"hudi_{tt.lower()}", f"hudi-upsert-{tt}",
                               lambda p, tt=tt: hudi.write(ctx.spark, p, ctx.source("upsert"), "upsert", tt) and None,
                               lambda p: hudi.row_count(p, ctx.spark), hudi.SETTINGS))
    cases.append(copy_case("delta-rs", "delta-rs merge", "delta", "delta-merge",
                           lambda p: delta.merge(p, ctx.source("upsert")), delta.row_count, delta.SETTINGS))
    cases.append(copy_case("spark-parquet", "spark-parquet full rewrite", "parquet", "parquet-rewrite",
                           lambda p: parquet.rewrite_upsert(ctx.spark, p, ctx.source("upsert")),
                           lambda p: parquet.row_count(ctx.spark, p), parquet.SETTINGS))

    ice = {}

    def ice_setup():
        ice["base"] = ctx.table("iceberg")

    def ice_prepare(i):
        ice["name"] = f"upsert_{i}"
        iceberg.register_copy(ctx.catalog, ice["name"], ice["base"])

    def ice_run(i):
        return {"rows": meta["upsert_rows"], **iceberg.upsert(ctx.catalog, ice["name"], ctx.source("upsert"))}

    def ice_verify():
        return _expect_verified("rows after the upsert", iceberg.row_count(ctx.catalog, ice["name"]), after)

    def ice_cleanup(i, last):
        iceberg.unregister(ctx.catalog, ice["name"])

    cases.append(Case("upsert", "pyiceberg", "pyiceberg upsert", ice_run, reps, warm, ice_prepare, ice_cleanup,
                      ice_setup, ice_verify, iceberg.SETTINGS,
                      notes=["each run upserts into a second catalog entry registered at the loaded table's "
                             "metadata file, so every run starts from the same snapshot"]))
    return cases


# ---- point lookup and range scan ------------------------------------------------------------------

def _query_cases(ctx: RunContext, workload: str, predicate_of: Callable[[int], list], expected_of: Callable[[int], int]):
    from bench import spark as sparkutil
    from bench.systems import delta, hudi, iceberg, parquet

    reps, warm = ctx.scale.read_reps, ctx.scale.read_warmup
    cases = []

    def spark_filter(df, predicate):
        from pyspark.sql import functions as F
        cond = None
        for c, op, v in predicate:
            e = {"=": F.col(c) == v, ">=": F.col(c) >= v, "<=": F.col(c) <= v}[op]
            cond = e if cond is None else cond & e
        return df.filter(cond)

    def spark_case(system, label, table, load_df, settings):
        state = {}

        def setup():
            state["path"] = ctx.table(table)

        def run(i):
            df = spark_filter(load_df(state["path"]), predicate_of(i))
            rows = df.toArrow()
            _expect(label, rows.num_rows, expected_of(i))
            return {"rows": rows.num_rows, "files": sparkutil.files_opened(df)}

        return Case(workload, system, label, run, reps, warm, setup=setup, settings=settings)

    def python_case(system, label, table, query, settings):
        state = {}

        def setup():
            state["path"] = ctx.table(table)

        def run(i):
            rows, files = query(state["path"], predicate_of(i))
            _expect(label, rows.num_rows, expected_of(i))
            return {"rows": rows.num_rows, "files": files}

        return Case(workload, system, label, run, reps, warm, setup=setup, settings=settings)

    cases.append(spark_case("hudi-meta", "hudi-meta (COW)", "hudi_cow", lambda p: hudi.meta_df(ctx.spark, p),
                            "spark.read.format(\"hudi-meta\").load(path).filter(...).toArrow(); "
                            "prunes partitions from filters, Parquet row groups through Spark's reader"))
    cases.append(python_case("hudi-rs", "hudi-rs (COW)", "hudi_cow", hudi.rs_read,
                             "HudiTable.read(HudiReadOptions(filters=[...])): partition and base-file footer "
                             "statistics pruning, row filtering"))
    cases.append(python_case("delta-rs", "delta-rs scan", "delta", delta.query, delta.SETTINGS))
    cases.append(python_case("pyiceberg", "pyiceberg scan", "iceberg",
                             lambda name, pred: iceberg.query(ctx.catalog, name, pred), iceberg.SETTINGS))
    cases.append(spark_case("spark-parquet", "spark-parquet", "parquet", lambda p: parquet.read(ctx.spark, p),
                            "spark.read.parquet(path).filter(...).toArrow(); " + parquet.SETTINGS))
    return cases


def point_lookup(ctx: RunContext) -> list[Case]:
    keys = ctx.ws.meta["lookup_keys"]
    return _query_cases(ctx, "point_lookup", lambda i: [(datagen.KEY, "=", keys[i % len(keys)])], lambda i: 1)


def range_scan(ctx: RunContext) -> list[Case]:
    windows, counts = ctx.ws.meta["range_windows"], ctx.ws.meta["range_counts"]
    return _query_cases(
        ctx, "range_scan",
        lambda i: [(datagen.CLUSTERED, ">=", windows[i % len(windows)][0]),
                   (datagen.CLUSTERED, "<=", windows[i % len(windows)][1])],
        lambda i: counts[i % len(counts)])


# ---- full snapshot scans --------------------------------------------------------------------------

def _scan_cases(ctx: RunContext, workload: str, table: str, mor: bool) -> list[Case]:
    from bench.systems import hudi, parquet

    reps, warm, rows = ctx.scale.read_reps, ctx.scale.read_warmup, ctx.ws.meta["rows"]
    state: dict = {}

    def setup():
        if "path" not in state:
            state["path"] = ctx.table(table)
            state["base_files"] = hudi.base_files(state["path"])
            state["log_files"] = hudi.log_file_count(state["path"])

    def noop(df) -> None:
        df.write.format("noop").mode("overwrite").save()

    def spark_case(system, label, make_df, files, settings, notes=()):
        def run(i):
            noop(make_df())
            return {"files": files()}

        def verify():
            return _expect_verified(label, make_df().count(), rows)

        return Case(workload, system, label, run, reps, warm, setup=setup, verify=verify, settings=settings,
                    notes=list(notes))

    all_files = lambda: len(state["base_files"]) + state["log_files"]  # noqa: E731
    base_only = lambda: len(state["base_files"])  # noqa: E731
    cases = [spark_case("hudi-meta", "hudi-meta" if not mor else "hudi-meta snapshot",
                        lambda: hudi.meta_df(ctx.spark, state["path"]), all_files,
                        "spark.read.format(\"hudi-meta\").load(path), every column incl. Hudi meta columns, "
                        "written to Spark's noop sink")]
    if mor:
        cases.append(spark_case("hudi-meta", "hudi-meta read_optimized",
                                lambda: ctx.spark.read.format("hudi-meta")
                                .option("hoodie.datasource.query.type", "read_optimized").load(state["path"]),
                                base_only, "hoodie.datasource.query.type=read_optimized: base files only, no merge",
                                ["not a snapshot: it skips the log files (shown for the cost of the merge)"]))

    def rs_run(i):
        table_rows, _ = hudi.rs_read(state["path"])
        _expect("hudi-rs", table_rows.num_rows, rows)
        return {"rows": table_rows.num_rows, "files": all_files()}

    cases.append(Case(workload, "hudi-rs", "hudi-rs" if not mor else "hudi-rs snapshot", rs_run, reps, warm, setup=setup,
                      settings="HudiTable.read(): every column into Arrow record batches in memory"))
    label = "spark-parquet (same base files)" if not mor else "spark-parquet (base files only)"
    cases.append(spark_case("spark-parquet", label, lambda: parquet.read(ctx.spark, state["base_files"]), base_only,
                            "spark.read.parquet(<the table's base files>), every column, noop sink",
                            ["reads the MOR table's base files without merging the logs: a lower bound, "
                             "not an equivalent query"] if mor else []))
    return cases


def snapshot_scan_cow(ctx: RunContext) -> list[Case]:
    return _scan_cases(ctx, "snapshot_scan_cow", "hudi_cow", mor=False)


def snapshot_scan_mor(ctx: RunContext) -> list[Case]:
    return _scan_cases(ctx, "snapshot_scan_mor", "hudi_mor_logs", mor=True)


BUILDERS = {"bulk_load": bulk_load, "upsert": upsert, "point_lookup": point_lookup, "range_scan": range_scan,
            "snapshot_scan_cow": snapshot_scan_cow, "snapshot_scan_mor": snapshot_scan_mor}


def all_cases(ctx: RunContext) -> list[Case]:
    return [c for w in WORKLOADS for c in BUILDERS[w](ctx)]


def selected(case: Case, only: list[str]) -> bool:
    """`--only` tokens: a workload id, a system name, or any part of a case id
    ("upsert/pyhudi upsert MOR"), case-insensitive; a case is kept when any token matches."""
    if not only:
        return True
    cid = case.id.lower()
    return any(t.lower() in (case.workload, case.system) or t.lower() in cid for t in only)
