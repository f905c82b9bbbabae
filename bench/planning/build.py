"""The planning benchmark's tables: one set of tiny Parquet files, registered four ways.

    <root>/<size>/hudi/       a committed Hudi v8 copy-on-write table (pyhudi's formats) with its
                              metadata table (files, column_stats, partition_stats); also the
                              directory `spark.read.parquet` lists (hive-style `p=...` dirs)
    <root>/<size>/delta/      hard links to the same Parquet files + `_delta_log` from
                              `deltalake.convert_to_deltalake` (delta-rs writes its log into the
                              directory it converts, so it gets a sibling tree: same inodes, same
                              bytes). The directories are named `pp=part042` rather than `p=part042`:
                              delta-rs refuses a hive partition column that the files also hold
                              ("Duplicate field name"), and Hudi files keep `p` (the connector does
                              not support hoodie.datasource.write.drop.partition.columns). So the
                              Delta table is partitioned by `pp`, equal to `p` in every row
    <root>/<size>/iceberg/    pyiceberg SqlCatalog on sqlite; the table's data files are the Hudi
                              table's own Parquet files, registered by `Table.add_files`
    <root>/<size>/build.json  the shape, build times and the builder version (reused when they match)

Writing 100,000 files through Spark would take hours, so the files are written directly, as
`tests/test_planning_scale.py` does: Parquet files with the five `_hoodie_*` meta columns first
(`hoodie.populate.meta.fields` is true, the default) and Hudi file names, a
`.hoodie_partition_metadata` per partition, one completed bulk_insert commit whose metadata lists
every file's write stat, then `MetadataWriter.initialize` builds the metadata table from the
listing, with each file's column statistics taken from the footer of the file as it was written
(no footer is read twice).

Data: `partitions` partitions `p=part000 ...`, `files_per_partition` files in each, ROWS_PER_FILE
rows per file. Columns `id` (record key, string), `p` (partition, string), `v` (long, clustered:
file number k holds v = 10k .. 10k+9, so partition i holds one contiguous range), `x` (double),
`s` (string, 20 distinct values).
"""
from __future__ import annotations

import io
import json
import os
import shutil
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict, dataclass

import pyarrow as pa
import pyarrow.parquet as pq

BUILD_VERSION = 1
ROWS_PER_FILE = 10
PARTITION_COLUMN = "p"
DELTA_PARTITION_COLUMN = "pp"  # see the module comment
RANGE_COLUMN = "v"
TABLE_NAME = "planning"
ICEBERG_NAMESPACE = "planning"
MDT_PARTITIONS = ("files", "column_stats", "partition_stats")
COMMIT_TIME = "20250101000000000"  # fixed data instant: the same bytes on every rebuild


@dataclass(frozen=True)
class Shape:
    name: str
    partitions: int
    files_per_partition: int
    rows_per_file: int = ROWS_PER_FILE

    @property
    def files(self) -> int:
        return self.partitions * self.files_per_partition

    @property
    def rows(self) -> int:
        return self.files * self.rows_per_file

    def partition_value(self, i: int) -> str:
        return f"part{i:03d}"

    def partition_path(self, i: int) -> str:
        return f"{PARTITION_COLUMN}={self.partition_value(i)}"

    # ---- the three scans -------------------------------------------------------------------
    def one_partition(self) -> str:
        """The partition of the one-partition scan: the middle one."""
        return self.partition_value(self.partitions // 2)

    def range_window(self, files: int = 10) -> tuple[int, int]:
        """v BETWEEN lo AND hi covering `files` files' rows in the middle of the table, offset by
        half a file so that it cuts files at both ends: files + 1 files hold matching rows."""
        first = self.files // 2 + self.files_per_partition // 3  # inside one partition
        lo = first * self.rows_per_file + self.rows_per_file // 2
        return lo, lo + files * self.rows_per_file - 1

    def expected(self) -> dict:
        lo, hi = self.range_window()
        return {"full": {"rows": self.rows, "files": self.files},
                "partition": {"rows": self.files_per_partition * self.rows_per_file,
                              "files": self.files_per_partition},
                "range": {"rows": hi - lo + 1, "files": (hi // self.rows_per_file) - (lo // self.rows_per_file) + 1}}


SHAPES = {
    "1k": Shape("1k", 100, 10),
    "20k": Shape("20k", 100, 200),
    "100k": Shape("100k", 100, 1000),
}


def arrow_schema() -> pa.Schema:
    from pyhudi.avro import schema as avro_schema

    meta = [pa.field(n, pa.string()) for n in avro_schema.META_FIELDS]
    return pa.schema(meta + [pa.field("id", pa.string()), pa.field(PARTITION_COLUMN, pa.string()),
                             pa.field(RANGE_COLUMN, pa.int64()), pa.field("x", pa.float64()),
                             pa.field("s", pa.string())])


def data_schema() -> pa.Schema:
    from pyhudi.avro import schema as avro_schema

    return pa.schema([f for f in arrow_schema() if f.name not in avro_schema.META_FIELDS])


# ---------------------------------------------------------------- directories


@dataclass
class Paths:
    root: str

    @property
    def hudi(self) -> str:
        return os.path.join(self.root, "hudi")

    @property
    def delta(self) -> str:
        return os.path.join(self.root, "delta")

    @property
    def iceberg(self) -> str:
        return os.path.join(self.root, "iceberg")

    @property
    def manifest(self) -> str:
        return os.path.join(self.root, "build.json")


def iceberg_catalog(paths: Paths):
    from pyiceberg.catalog.sql import SqlCatalog

    os.makedirs(os.path.join(paths.iceberg, "warehouse"), exist_ok=True)
    cat = SqlCatalog("planning", uri=f"sqlite:///{os.path.join(paths.iceberg, 'catalog.db')}",
                     warehouse=f"file://{os.path.join(paths.iceberg, 'warehouse')}")
    cat.create_namespace_if_not_exists(ICEBERG_NAMESPACE)
    return cat


ICEBERG_IDENT = (ICEBERG_NAMESPACE, TABLE_NAME)


# ---------------------------------------------------------------- writing the files


def _partition_files(args: tuple) -> tuple[int, list[tuple], list[dict]]:
    """Writes the files of partition `i` (run in a worker process): (i, listing entries
    (name, size, column stats JSON), write stats)."""
    base, shape_d, i, commit_time = args
    import uuid

    from pyhudi import metadata as mr
    from pyhudi.basefile import parquet as base_file
    from pyhudi.table import file_names as filenames
    from pyhudi.table import instant_metadata as im

    shape = Shape(**shape_d)
    schema = arrow_schema()
    part = shape.partition_path(i)
    pdir = os.path.join(base, part)
    os.makedirs(pdir, exist_ok=True)
    with open(os.path.join(pdir, filenames.PARTITION_METADATA), "w") as f:
        f.write(filenames.partition_metadata_text(commit_time, 1))
    n = shape.rows_per_file
    listing, stats = [], []
    pval = shape.partition_value(i)
    for j in range(shape.files_per_partition):
        k = i * shape.files_per_partition + j  # global file number
        fid = f"{uuid.UUID(int=(k + 1) * 0x9E3779B97F4A7C15 % (1 << 128))}-0"
        name = str(filenames.BaseFileName(fid, "0-0-0", commit_time))
        ids = [f"k{k:07d}r{r:02d}" for r in range(n)]
        v = [k * n + r for r in range(n)]
        data = pa.table({"id": ids, PARTITION_COLUMN: [pval] * n, RANGE_COLUMN: pa.array(v, pa.int64()),
                         "x": pa.array([((k * 7919 + r * 104729) % 100000) / 100.0 for r in range(n)], pa.float64()),
                         "s": [f"s{(k + r) % 20:02d}" for r in range(n)]})
        table = base_file.add_meta_columns(data, commit_time=commit_time, partition_path=part, file_name=name,
                                           record_keys=data.column("id"), partition_id=i).cast(schema)
        buf = io.BytesIO()
        pq.write_table(table, buf, compression="snappy")
        raw = buf.getvalue()
        with open(os.path.join(pdir, name), "wb") as f:
            f.write(raw)
        md = pq.ParquetFile(pa.BufferReader(raw)).metadata
        listing.append((name, len(raw), mr.column_stats_json(schema, md)))
        stats.append(im.write_stat(fileId=fid, path=f"{part}/{name}", prevCommit="null", partitionPath=part,
                                   numWrites=n, numInserts=n, numDeletes=0, numUpdateWrites=0, totalWriteErrors=0,
                                   fileSizeInBytes=len(raw), totalWriteBytes=len(raw)))
    return i, listing, stats


def build_hudi(shape: Shape, paths: Paths, log=print, workers: int = 2) -> dict:
    """The Hudi table and its metadata table; seconds per step."""
    from pyhudi.avro import schema as avro_schema
    from pyhudi.metadata import MetadataWriter
    from pyhudi.storage import Storage
    from pyhudi.table import instant_metadata as im
    from pyhudi.table import properties
    from pyhudi.table.timeline import Timeline

    times = {}
    if os.path.exists(paths.hudi):
        shutil.rmtree(paths.hudi)
    os.makedirs(paths.hudi)
    storage, base = Storage.for_uri(paths.hudi)
    schema = avro_schema.to_json(avro_schema.arrow_to_avro(data_schema(), TABLE_NAME, avro_schema.CREATE))
    props = properties.v8_defaults(TABLE_NAME, "COPY_ON_WRITE", ["id"], [PARTITION_COLUMN], None, schema,
                                   "SIMPLE", True, False)
    properties.save(storage, base, props)
    tl = Timeline.for_table(storage, base, props)
    inflight = tl.transition_to_inflight(tl.create_requested("commit", requested_time=COMMIT_TIME))
    t = inflight.requested_time

    t0 = time.perf_counter()
    listing, stats = {}, {}
    jobs = [(base, asdict(shape), i, t) for i in range(shape.partitions)]
    with ProcessPoolExecutor(max_workers=workers) as pool:
        for done, (i, entries, wstats) in enumerate(pool.map(_partition_files, jobs, chunksize=1), 1):
            part = shape.partition_path(i)
            listing[part], stats[part] = entries, wstats
            if done % max(1, shape.partitions // 10) == 0:
                log(f"  data files: {done}/{shape.partitions} partitions written")
    times["data_files"] = time.perf_counter() - t0

    t0 = time.perf_counter()
    tl.complete(inflight, im.encode(im.COMMIT, im.commit_metadata(stats, "BULK_INSERT", schema)))
    times["commit"] = time.perf_counter() - t0

    t0 = time.perf_counter()
    MetadataWriter(storage, base, props, partitions=list(MDT_PARTITIONS)).initialize(tl, listing)
    times["metadata_table"] = time.perf_counter() - t0
    return times


def hudi_data_files(shape: Shape, paths: Paths) -> list[tuple[str, str]]:
    """(partition path, file name) of every data file of the Hudi table, from a listing."""
    out = []
    for i in range(shape.partitions):
        part = shape.partition_path(i)
        for name in sorted(os.listdir(os.path.join(paths.hudi, part))):
            if name.endswith(".parquet"):
                out.append((part, name))
    return out


def delta_partition_path(shape: Shape, i: int) -> str:
    return f"{DELTA_PARTITION_COLUMN}={shape.partition_value(i)}"


def build_delta(shape: Shape, paths: Paths, files: list[tuple[str, str]]) -> dict:
    """Hard links of the Hudi table's Parquet files in a sibling tree, converted in place by
    delta-rs (`convert_to_deltalake`, hive-style partition schema pp: string, file statistics
    collected from the footers)."""
    from deltalake import Field, Schema, convert_to_deltalake

    times = {}
    if os.path.exists(paths.delta):
        shutil.rmtree(paths.delta)
    t0 = time.perf_counter()
    for i in range(shape.partitions):
        os.makedirs(os.path.join(paths.delta, delta_partition_path(shape, i)))
    for part, name in files:
        i = int(part.split("=", 1)[1].removeprefix("part"))
        os.link(os.path.join(paths.hudi, part, name), os.path.join(paths.delta, delta_partition_path(shape, i), name))
    times["links"] = time.perf_counter() - t0
    t0 = time.perf_counter()
    convert_to_deltalake(paths.delta, partition_by=Schema([Field(DELTA_PARTITION_COLUMN, "string")]),
                         partition_strategy="hive", name=TABLE_NAME)
    times["convert_to_deltalake"] = time.perf_counter() - t0
    return times


def build_iceberg(shape: Shape, paths: Paths, files: list[tuple[str, str]], log=print) -> dict:
    """A pyiceberg table (format v2, partition spec identity(p)) whose data files are the Hudi
    table's Parquet files, registered with `Table.add_files` (partition values and column metrics
    read from each file's footer by pyiceberg)."""
    times = {}
    if os.path.exists(paths.iceberg):
        shutil.rmtree(paths.iceberg)
    cat = iceberg_catalog(paths)
    table = cat.create_table(ICEBERG_IDENT, schema=arrow_schema())
    with table.update_spec() as spec:
        spec.add_identity(PARTITION_COLUMN)
    t0 = time.perf_counter()
    table = cat.load_table(ICEBERG_IDENT)
    table.add_files([os.path.join(paths.hudi, part, name) for part, name in files], check_duplicate_files=False)
    times["add_files"] = time.perf_counter() - t0
    return times


# ---------------------------------------------------------------- reuse


def _manifest_key(shape: Shape) -> dict:
    from bench import env

    return {"version": BUILD_VERSION, "shape": asdict(shape), "pyhudi_commit": env.pyhudi_commit()}


def ensure(shape: Shape, root: str, rebuild: bool = False, log=print) -> dict:
    """The tables of `shape` under `root/<size>`, built unless a complete build of the same shape
    (and builder version) is there; returns the build manifest."""
    paths = Paths(os.path.join(root, shape.name))
    key = _manifest_key(shape)
    if not rebuild and os.path.exists(paths.manifest):
        with open(paths.manifest) as f:
            manifest = json.load(f)
        if manifest.get("version") == key["version"] and manifest.get("shape") == key["shape"]:
            log(f"[{shape.name}] reusing the tables in {paths.root} (built {manifest.get('built_at')}; "
                "--rebuild to build them again)")
            manifest["reused"] = True
            return manifest
    if os.path.exists(paths.root):
        shutil.rmtree(paths.root)
    os.makedirs(paths.root)
    log(f"[{shape.name}] building {shape.files:,} files in {shape.partitions} partitions under {paths.root} "
        "(untimed) ...")
    times = {}
    t0 = time.perf_counter()
    times.update({f"hudi_{k}": v for k, v in build_hudi(shape, paths, log).items()})
    log(f"  hudi table + metadata table: {sum(times.values()):.1f} s")
    files = hudi_data_files(shape, paths)
    if len(files) != shape.files:
        raise RuntimeError(f"{len(files)} data files written, expected {shape.files}")
    times.update({f"delta_{k}": v for k, v in build_delta(shape, paths, files).items()})
    log(f"  delta-rs table (links + convert_to_deltalake): {times['delta_links'] + times['delta_convert_to_deltalake']:.1f} s")
    times.update({f"iceberg_{k}": v for k, v in build_iceberg(shape, paths, files, log).items()})
    log(f"  pyiceberg table (add_files): {times['iceberg_add_files']:.1f} s")
    times["total"] = time.perf_counter() - t0
    manifest = {**key, "built_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
                "root": paths.root, "files": shape.files, "rows": shape.rows,
                "bytes_data": sum(os.path.getsize(os.path.join(paths.hudi, p, n)) for p, n in files),
                "build_seconds": {k: round(v, 2) for k, v in times.items()}}
    with open(paths.manifest, "w") as f:
        json.dump(manifest, f, indent=2)
    manifest["reused"] = False
    return manifest
