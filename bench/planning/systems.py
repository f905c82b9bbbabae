"""What "planning" is for each system: one call, timed with time.perf_counter around it, that
returns the number of data files the plan keeps (checked against the expected count).

Spark-based systems (hudi-meta, spark.read.parquet): create the DataFrame (`load`), add the filter,
build the physical plan (`df._jdf.queryExecution().executedPlan()`: analysis, optimisation with
filter push-down, physical planning) and then force the scan node's file list without running a
job: `BatchScanExec.inputPartitions()` for hudi-meta (its `planInputPartitions`: listing, partition
pruning, data skipping) and `FileSourceScanExec.selectedPartitions()` for Parquet (the partition
pruning over the InMemoryFileIndex, which listed every directory when `load` created it). Files
planned: hudi-meta's `files=N` in the scan description; Parquet's `totalNumberOfFiles()` of the
selected partitions. Whole-stage code generation is not part of it (nothing is executed).

delta-rs: `DeltaTable(path)` (loads the log) then `file_uris(file_pruning_predicate=...)`: the add
actions left after partition-value pruning and, for data columns, min/max file statistics.

pyiceberg: `catalog.load_table(...)` then `table.scan(row_filter=...).plan_files()` (manifest list,
manifests pruned by partition summaries, entries by partition values and column metrics). The
SqlCatalog object is made once, like the SparkSession.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Callable

from bench.planning import build

_HUDI_FILES = re.compile(r"\bfiles=(\d+)")
_HUDI_LISTING = re.compile(r"\blisting=(\w+)")

SCENARIOS = {
    "full": "full scan (no filter)",
    "partition": "one partition (p = <middle partition>)",
    "range": "range on v (10 files' worth of rows, v is clustered)",
}


@dataclass(frozen=True)
class System:
    name: str
    short: str
    what: str
    ours: bool = False


SYSTEMS = {
    "hudi-meta-mdt": System("hudi-meta-mdt", "hudi-meta (MDT)",
                            'spark.read.format("hudi-meta").load(path): file listing from the metadata table, '
                            "partition_stats + column_stats data skipping", ours=True),
    "hudi-meta-listing": System("hudi-meta-listing", "hudi-meta (listing)",
                                'the same with option hoodie.metadata.enable=false: lists the partition directories; '
                                "no data skipping (it needs the metadata table)", ours=True),
    "spark-parquet": System("spark-parquet", "spark.read.parquet",
                            'spark.read.option("basePath", path).parquet(path): InMemoryFileIndex listing + hive '
                            "partition discovery, partition pruning; no file-level statistics at planning"),
    "delta-rs": System("delta-rs", "delta-rs",
                       "DeltaTable(path).file_uris(file_pruning_predicate=...): partition values + min/max stats "
                       "of the add actions"),
    "pyiceberg": System("pyiceberg", "pyiceberg",
                        "catalog.load_table(...).scan(row_filter=...).plan_files(): manifests pruned by partition "
                        "summaries, entries by partition values and column metrics"),
}


def spark_filter(shape: build.Shape, scenario: str) -> str | None:
    if scenario == "full":
        return None
    if scenario == "partition":
        return f"{build.PARTITION_COLUMN} = '{shape.one_partition()}'"
    lo, hi = shape.range_window()
    return f"{build.RANGE_COLUMN} BETWEEN {lo} AND {hi}"


def delta_predicate(shape: build.Shape, scenario: str) -> str | None:
    if scenario == "full":
        return None
    if scenario == "partition":
        return f"{build.DELTA_PARTITION_COLUMN} = '{shape.one_partition()}'"
    lo, hi = shape.range_window()
    return f"{build.RANGE_COLUMN} >= {lo} AND {build.RANGE_COLUMN} <= {hi}"


def iceberg_filter(shape: build.Shape, scenario: str):
    from pyiceberg.expressions import AlwaysTrue, And, EqualTo, GreaterThanOrEqual, LessThanOrEqual

    if scenario == "full":
        return AlwaysTrue()
    if scenario == "partition":
        return EqualTo(build.PARTITION_COLUMN, shape.one_partition())
    lo, hi = shape.range_window()
    return And(GreaterThanOrEqual(build.RANGE_COLUMN, lo), LessThanOrEqual(build.RANGE_COLUMN, hi))


# ---------------------------------------------------------------- Spark plans


def _walk(node):
    stack = [node]
    while stack:
        n = stack.pop()
        yield n
        if n.getClass().getSimpleName() == "AdaptiveSparkPlanExec":
            stack.append(n.executedPlan())
            continue
        children = n.children()
        stack.extend(children.apply(i) for i in range(children.size()))


def _scan_node(plan, kind: str):
    for n in _walk(plan):
        if n.getClass().getSimpleName() == kind:
            return n
    raise RuntimeError(f"no {kind} in the plan:\n{plan.toString()}")


def hudi_planner(spark, path: str, metadata: bool) -> Callable[[str | None], dict]:
    def plan(cond: str | None) -> dict:
        reader = spark.read.format("hudi-meta")
        if not metadata:
            reader = reader.option("hoodie.metadata.enable", "false")
        df = reader.load(path)
        if cond:
            df = df.where(cond)
        scan = _scan_node(df._jdf.queryExecution().executedPlan(), "BatchScanExec")
        scan.inputPartitions()  # HudiScan.planInputPartitions: the plan
        return {"_scan": scan}
    return plan


def hudi_details(out: dict) -> dict:
    desc = out.pop("_scan").scan().description()  # the planned scan's own counts (no second plan)
    m, src = _HUDI_FILES.search(desc), _HUDI_LISTING.search(desc)
    return {"files": int(m.group(1)) if m else None, "listing": src.group(1) if src else None,
            "description": desc.split("hudi-meta ", 2)[-1].strip()}


def parquet_planner(spark, path: str) -> Callable[[str | None], dict]:
    def plan(cond: str | None) -> dict:
        df = spark.read.option("basePath", path).parquet(path)
        if cond:
            df = df.where(cond)
        scan = _scan_node(df._jdf.queryExecution().executedPlan(), "FileSourceScanExec")
        listing = scan.selectedPartitions()  # partition pruning over the listed directories
        return {"_listing": listing}
    return plan


def parquet_details(out: dict) -> dict:
    listing = out.pop("_listing")
    return {"files": int(listing.totalNumberOfFiles()), "partitions": int(listing.partitionCount())}


def delta_planner(path: str) -> Callable[[str | None], dict]:
    from deltalake import DeltaTable

    def plan(pred: str | None) -> dict:
        dt = DeltaTable(path)
        files = dt.file_uris(file_pruning_predicate=pred) if pred else dt.file_uris()
        return {"files": len(files)}
    return plan


def iceberg_planner(catalog) -> Callable[[object], dict]:
    def plan(row_filter) -> dict:
        table = catalog.load_table(build.ICEBERG_IDENT)
        tasks = list(table.scan(row_filter=row_filter).plan_files())
        return {"files": sum(1 + len(t.delete_files) for t in tasks)}
    return plan


# ---------------------------------------------------------------- row counts (sanity, untimed)


def row_counts(spark, paths: build.Paths, shape: build.Shape, catalog, wanted: dict[str, list[str]]) -> dict:
    """Rows each system returns for each scenario (the plans must not lose rows), for the
    systems `wanted` names per scenario."""
    import pyarrow as pa
    from deltalake import DeltaTable

    out: dict[str, dict[str, int]] = {}
    for scen, names in wanted.items():
        cond = spark_filter(shape, scen)
        res = {}
        for name in names:
            if name in ("hudi-meta-mdt", "hudi-meta-listing", "spark-parquet"):
                if name == "spark-parquet":
                    df = spark.read.option("basePath", paths.hudi).parquet(paths.hudi)
                else:
                    reader = spark.read.format("hudi-meta")
                    if name == "hudi-meta-listing":
                        reader = reader.option("hoodie.metadata.enable", "false")
                    df = reader.load(paths.hudi)
                res[name] = (df.where(cond) if cond else df).count()
            elif name == "delta-rs":
                dt = DeltaTable(paths.delta)
                pred = delta_predicate(shape, scen)
                res[name] = pa.RecordBatchReader.from_stream(
                    dt.scan(columns=["id"], predicate=pred) if pred else dt.scan(columns=["id"])).read_all().num_rows
            elif name == "pyiceberg":
                res[name] = catalog.load_table(build.ICEBERG_IDENT).scan(
                    row_filter=iceberg_filter(shape, scen), selected_fields=("id",)).to_arrow().num_rows
        out[scen] = res
    return out


# ---------------------------------------------------------------- the metadata table's own lookups


def jvm_metadata_lookups(spark, path: str, partition: str) -> dict[str, Callable[[], object]]:
    """The connector's metadata-table reads through py4j (public classes of io.hudimeta), each a
    callable to time: open, getAllPartitions, getAllFilesInPartition, all files; and the same
    answers from a storage listing (StorageListing)."""
    jvm = spark._jvm
    jpath = jvm.org.apache.hadoop.fs.Path(path)
    fs = jpath.getFileSystem(spark._jsc.hadoopConfiguration())
    TableConfig, Timeline = jvm.io.hudimeta.table.TableConfig, jvm.io.hudimeta.table.Timeline
    MetadataTable, MetadataFileListing = jvm.io.hudimeta.metadata.MetadataTable, jvm.io.hudimeta.metadata.MetadataFileListing
    StorageListing = jvm.io.hudimeta.table.StorageListing
    one = jvm.java.util.ArrayList()
    one.add(partition)
    state: dict = {}

    def open_mdt():
        config = TableConfig.load(fs, jpath)
        mdt = MetadataTable.open(fs, jpath, config, Timeline.load(fs, jpath, config)).get()
        state["listing"] = MetadataFileListing(mdt)
        return state["listing"]

    def drop():
        old = state.pop("listing", None)
        if old is not None:
            old.close()

    def fresh():
        drop()
        return open_mdt()

    def check_files(m) -> int:
        return sum(m.get(k).size() for k in m.keySet())

    return {
        # (prepare, measured): prepare runs untimed before each measured call
        "open (TableConfig.load + Timeline.load + MetadataTable.open)": (drop, lambda: open_mdt() and None),
        "getAllPartitions (MetadataFileListing.partitions, MDT open)": (fresh, lambda: state["listing"].partitions().size()),
        "getAllFilesInPartition (MetadataFileListing.files, 1 partition)": (
            fresh, lambda: check_files(state["listing"].files(one))),
        "all files (MetadataFileListing.all)": (fresh, lambda: check_files(state["listing"].all())),
        "storage: getAllPartitions (StorageListing.list + partitions)": (
            lambda: None, lambda: StorageListing.list(fs, jpath).partitions().size()),
        "storage: all files (StorageListing.list + all)": (
            lambda: None, lambda: check_files(StorageListing.list(fs, jpath).all())),
    }


def python_metadata_lookups(path: str, partition: str) -> dict[str, tuple[Callable, Callable]]:
    """pyhudi's reader of the metadata table (MetadataWriter.read_partition / files_listing, what
    `pyhudi metadata perf` times) and its storage listing (listing_from_storage)."""
    from pyhudi import metadata as mr
    from pyhudi.metadata import MetadataWriter, listing_from_storage
    from pyhudi.storage import Storage
    from pyhudi.table import properties

    storage, base = Storage.for_uri(path)

    def writer():
        return MetadataWriter(storage, base, properties.load(storage, base))

    def parts():
        rec = writer().read_partition(mr.FILES, keys=[mr.ALL_PARTITIONS_KEY]).get(mr.ALL_PARTITIONS_KEY)
        return len(rec.live_files())

    def files_one():
        rec = writer().read_partition(mr.FILES, keys=[mr.files_key(partition)]).get(mr.files_key(partition))
        return len(rec.live_files())

    return {
        "getAllPartitions (read_partition files [__all_partitions__])": (lambda: None, parts),
        "getAllFilesInPartition (read_partition files [1 partition])": (lambda: None, files_one),
        "all files (files_listing)": (lambda: None, lambda: sum(len(f) for f in writer().files_listing().values())),
        "storage: all files (listing_from_storage)": (
            lambda: None, lambda: sum(len(f) for f in listing_from_storage(storage, base).values())),
    }
