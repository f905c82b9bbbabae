"""The latency benchmark's tables, kept in the workdir and reused across runs.

    <root>/<size>-mdt-on/pristine/   a Hudi v8 copy-on-write table: the load (one bulk_insert commit
                                     of `shape.files` base files) and its metadata table (the
                                     partitions pyhudi's writer maintains by default)
    <root>/<size>-mdt-off/pristine/  the same load without a metadata table: hard links of the same
                                     base files, a .hoodie of its own
    <root>/<size>-mdt-ri/pristine/   the mdt=on table (files linked, .hoodie copied) with its record index
                                     built by pyhudi's indexing action (Spark), for writes tagged by it
    <root>/<size>-delta/pristine/    hard links of the same files under `pp=...` directories,
                                     converted by `deltalake.convert_to_deltalake` (bench/planning's
                                     build.py says why the partition column is `pp`)
    <root>/<size>-<kind>/table/      the working copy a run writes to, made again from pristine at
                                     the start of every run (`reset`): the metadata directories
                                     (.hoodie, _delta_log) copied, Parquet files hard-linked (no
                                     writer rewrites a data file in place); then `add_commits`
                                     brings it to each commit count and the measured upserts follow
    <root>/<size>-<kind>/commits-<N>/  the working copy as it was when it first reached N commits (a
                                     copy made as `reset` makes one, with snapshot.json); a later run
                                     starts a case of N commits from it instead of adding the prior
                                     commits again (at 100k files, 490 of them take half an hour)
    <root>/<size>-<kind>/build.json  shape, builder version, build times (reused when they match)

Data: `id` (record key, string), `p` (partition, string), `v` (long), `x` (double), `s` (string),
`ts` (long, the ordering/precombine field). Load file k holds the keys `k{k:07d}r{r:02d}` with
ts 0. Commit number c (the c-th completed commit; the load is 1) adds ROWS_PER_COMMIT new keys: a
prior commit `c{c:06d}r..` in partition c % partitions, a measured upsert `u{c:06d}r..` (plus its
updates), so a table of C commits holds shape.rows + ROWS_PER_COMMIT * (C - 1) rows, whichever
system wrote it.

The load's files are written by pyhudi's base-file writer (meta columns, Avro schema footer, zstd)
without the bloom filter: the writer's default filter (60,000 entries) makes a ~430 KB footer,
43 GB over 100k files. The prior commits' files are written exactly as the writer writes them,
bloom filter included.
"""
from __future__ import annotations

import json
import os
import shutil
import time
import zlib
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict

import pyarrow as pa

from bench.planning.build import SHAPES as PLANNING_SHAPES
from bench.planning.build import Shape

BUILD_VERSION = 1
TABLE_NAME = "latency"
KEY, PARTITION, ORDERING = "id", "p", "ts"
DELTA_PARTITION = "pp"
ROWS_PER_COMMIT = 50  # new keys of every commit after the load: prior commits and measured upserts alike
COMMIT_TIME = "20250101000000000"  # the load's instant: the same bytes on every rebuild
HUDI_KINDS = ("mdt-on", "mdt-off")  # built together, without Spark
RI_KIND = "mdt-ri"
KINDS = HUDI_KINDS + (RI_KIND, "delta")
WRITE_ACTIONS = ("commit", "deltacommit", "replacecommit")

SHAPES = {"tiny": Shape("tiny", 4, 5), **PLANNING_SHAPES}  # tiny: the smoke test's


def data_schema() -> pa.Schema:
    return pa.schema([pa.field(KEY, pa.string()), pa.field(PARTITION, pa.string()), pa.field("v", pa.int64()),
                      pa.field("x", pa.float64()), pa.field("s", pa.string()), pa.field(ORDERING, pa.int64())])


def delta_schema() -> pa.Schema:
    """The converted Delta table's columns: the Hudi files' (meta columns first), then `pp`."""
    from pyhudi.avro import schema as avro_schema

    meta = [pa.field(n, pa.string()) for n in avro_schema.META_FIELDS]
    return pa.schema(meta + list(data_schema()) + [pa.field(DELTA_PARTITION, pa.string())])


def rows(keys: list[str], pval: str, v: list[int], ts: int) -> pa.Table:
    """Data rows; x and s follow from (key, ts), so an update changes them."""
    h = [zlib.crc32(f"{k}/{ts}".encode()) for k in keys]
    return pa.table({KEY: keys, PARTITION: [pval] * len(keys), "v": v, "x": [(x % 100000) / 100.0 for x in h],
                     "s": [f"s{x % 20:02d}" for x in h], ORDERING: [ts] * len(keys)}, schema=data_schema())


def hudi_options(metadata: bool, operation: str = "upsert", record_index: bool = False) -> dict[str, str]:
    """The write options of the table (as it was created) for one write; `record_index`: tagged by it."""
    opts = {"hoodie.table.name": TABLE_NAME, "hoodie.datasource.write.recordkey.field": KEY,
            "hoodie.datasource.write.partitionpath.field": PARTITION,
            "hoodie.datasource.write.precombine.field": ORDERING,
            "hoodie.datasource.write.hive_style_partitioning": "true",
            "hoodie.datasource.write.operation": operation,
            "hoodie.metadata.enable": str(metadata).lower()}
    if record_index:
        opts.update({"hoodie.index.type": "RECORD_INDEX", "hoodie.metadata.record.index.enable": "true"})
    return opts


def kind_options(kind: str, operation: str = "upsert") -> dict[str, str]:
    return hudi_options(kind != "mdt-off", operation, kind == RI_KIND)


# ---------------------------------------------------------------- directories


def table_dir(root: str, shape: Shape, kind: str) -> str:
    return os.path.join(root, f"{shape.name}-{kind}")


def pristine(root: str, shape: Shape, kind: str) -> str:
    return os.path.join(table_dir(root, shape, kind), "pristine")


def working(root: str, shape: Shape, kind: str) -> str:
    return os.path.join(table_dir(root, shape, kind), "table")


def _fresh(path: str) -> None:
    if os.path.exists(path):
        shutil.rmtree(path)
    os.makedirs(path)


# ---------------------------------------------------------------- the load


def _create_schema() -> str:
    from pyhudi.avro import schema as avro_schema

    return avro_schema.to_json(avro_schema.arrow_to_avro(data_schema(), TABLE_NAME, avro_schema.CREATE))


def _writer_schema(create: str) -> str:
    from pyhudi.avro import schema as avro_schema

    return avro_schema.to_json(avro_schema.with_meta_fields(avro_schema.to_writer_style(avro_schema.parse(create))))


def _load_files(args: tuple) -> tuple[str, list[tuple], list[dict]]:
    """Writes the load's files of partition `i` (in a worker process): (partition path, listing
    entries (name, size, column stats JSON), commit write stats)."""
    base, shape_d, i = args
    import uuid

    from pyhudi import metadata as mr
    from pyhudi.basefile import parquet as base_file
    from pyhudi.table import file_names as filenames
    from pyhudi.table import instant_metadata as im

    shape, schema = Shape(**shape_d), _writer_schema(_create_schema())
    part, n = shape.partition_path(i), shape.rows_per_file
    os.makedirs(os.path.join(base, part), exist_ok=True)
    with open(os.path.join(base, part, filenames.PARTITION_METADATA), "w") as f:
        f.write(filenames.partition_metadata_text(COMMIT_TIME, 1))
    listing, stats = [], []
    for j in range(shape.files_per_partition):
        k = i * shape.files_per_partition + j
        fid = f"{uuid.UUID(int=(k + 1) * 0x9E3779B97F4A7C15 % (1 << 128))}-0"
        name = str(filenames.BaseFileName(fid, "0-0-0", COMMIT_TIME))
        data = rows([f"k{k:07d}r{r:02d}" for r in range(n)], shape.partition_value(i),
                    [k * n + r for r in range(n)], 0)
        table = base_file.add_meta_columns(data, commit_time=COMMIT_TIME, partition_path=part, file_name=name,
                                           record_keys=data.column(KEY), partition_id=i)
        st = base_file.write_base_file(os.path.join(base, part, name), table, schema, bloom_type=None)
        listing.append((name, st.file_size, mr.column_stats_json(table, st.parquet_metadata)))
        stats.append(im.write_stat(fileId=fid, path=f"{part}/{name}", prevCommit="null", partitionPath=part,
                                   numWrites=n, numInserts=n, numDeletes=0, numUpdateWrites=0, totalWriteErrors=0,
                                   fileSizeInBytes=st.file_size, totalWriteBytes=st.file_size))
    return part, listing, stats


def _write_load(shape: Shape, base: str, log, workers: int) -> tuple[dict, dict]:
    """The load's files, partitions written in parallel: (listing, write stats) by partition."""
    listing, stats = {}, {}
    jobs = [(base, asdict(shape), i) for i in range(shape.partitions)]
    with ProcessPoolExecutor(max_workers=workers) as pool:
        for done, (part, entries, wstats) in enumerate(pool.map(_load_files, jobs, chunksize=1), 1):
            listing[part], stats[part] = entries, wstats
            if done % max(1, shape.partitions // 10) == 0:
                log(f"  load files: {done}/{shape.partitions} partitions written")
    return listing, stats


def build_hudi(shape: Shape, root: str, log=print, workers: int = 2) -> dict:
    """Both Hudi pristine tables: the load written once into the mdt=on table and committed, the
    mdt=off table made from it (its .hoodie copied, the files linked) before the metadata table
    is built. Seconds per step."""
    from pyhudi.metadata import MetadataWriter
    from pyhudi.storage import Storage
    from pyhudi.table import instant_metadata as im
    from pyhudi.table import properties
    from pyhudi.table.timeline import Timeline
    from pyhudi.write.config import WriteConfig

    on, off, times = pristine(root, shape, "mdt-on"), pristine(root, shape, "mdt-off"), {}
    _fresh(on)
    storage, base = Storage.for_uri(on)
    schema = _create_schema()
    props = properties.v8_defaults(TABLE_NAME, "COPY_ON_WRITE", [KEY], [PARTITION], ORDERING, schema,
                                   "SIMPLE", True, False)
    storage.mkdirs(f"{base}/.hoodie/timeline/history")
    properties.save(storage, base, props)
    tl = Timeline.for_table(storage, base, props)
    inflight = tl.transition_to_inflight(tl.create_requested("commit", requested_time=COMMIT_TIME))

    t0 = time.perf_counter()
    listing, stats = _write_load(shape, base, log, workers)
    times["data_files"] = time.perf_counter() - t0
    t0 = time.perf_counter()
    tl.complete(inflight, im.encode(im.COMMIT, im.commit_metadata(stats, "BULK_INSERT", schema)))
    times["commit"] = time.perf_counter() - t0

    t0 = time.perf_counter()
    _link_tree(on, off)
    times["mdt_off_copy"] = time.perf_counter() - t0
    t0 = time.perf_counter()
    cfg = WriteConfig.from_options(hudi_options(True), props)
    MetadataWriter(storage, base, props, partitions=cfg.metadata_partitions).initialize(tl, listing)
    times["metadata_table"] = time.perf_counter() - t0
    return times


def build_delta(shape: Shape, root: str) -> dict:
    """Hard links of the load's files under `pp=` directories, converted by delta-rs."""
    from deltalake import Field, Schema, convert_to_deltalake

    src, dst, times = pristine(root, shape, "mdt-on"), pristine(root, shape, "delta"), {}
    _fresh(dst)
    t0 = time.perf_counter()
    for i in range(shape.partitions):
        pdir = os.path.join(dst, f"{DELTA_PARTITION}={shape.partition_value(i)}")
        os.makedirs(pdir)
        for e in os.scandir(os.path.join(src, shape.partition_path(i))):
            if e.name.endswith(".parquet"):
                os.link(e.path, os.path.join(pdir, e.name))
    times["links"] = time.perf_counter() - t0
    t0 = time.perf_counter()
    convert_to_deltalake(dst, partition_by=Schema([Field(DELTA_PARTITION, "string")]), partition_strategy="hive",
                         name=TABLE_NAME)
    times["convert_to_deltalake"] = time.perf_counter() - t0
    return times


# ---------------------------------------------------------------- reuse


def _key(shape: Shape) -> dict:
    return {"version": BUILD_VERSION, "shape": asdict(shape)}


def _manifest(root: str, shape: Shape, kind: str) -> dict | None:
    """The build manifest of a complete build of this shape and builder version, else None."""
    path = os.path.join(table_dir(root, shape, kind), "build.json")
    if not os.path.exists(path):
        return None
    with open(path) as f:
        m = json.load(f)
    return m if all(m.get(k) == v for k, v in _key(shape).items()) else None


def _save_manifest(root: str, shape: Shape, kind: str, times: dict) -> dict:
    from bench import env

    m = {**_key(shape), "pyhudi_commit": env.pyhudi_commit(),
         "built_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
         "files": shape.files, "rows": shape.rows, "build_seconds": {k: round(v, 2) for k, v in times.items()}}
    with open(os.path.join(table_dir(root, shape, kind), "build.json"), "w") as f:
        json.dump(m, f, indent=2)
    return m


def build_record_index(shape: Shape, root: str, spark) -> dict:
    """The mdt=on pristine table copied, its record index built by the indexing action."""
    from pyhudi.services import indexing

    dst, times = pristine(root, shape, RI_KIND), {}
    if os.path.exists(dst):
        shutil.rmtree(dst)
    t0 = time.perf_counter()
    _link_tree(pristine(root, shape, "mdt-on"), dst)
    times["copy"] = time.perf_counter() - t0
    t0 = time.perf_counter()
    indexing.create(spark, dst, options=kind_options(RI_KIND))
    times["record_index"] = time.perf_counter() - t0
    return times


def ensure(shape: Shape, root: str, rebuild: bool = False, delta: bool = True, log=print, spark=None) -> dict:
    """kind -> build manifest of the pristine tables of `shape` (Delta only when `delta`, the record-index
    table only with a `spark` session to build it), built unless a complete build of the same shape and
    builder version is there."""
    wanted = HUDI_KINDS + ((RI_KIND,) if spark is not None else ()) + (("delta",) if delta else ())
    out = {k: None if rebuild else _manifest(root, shape, k) for k in wanted}
    reused = {k: out[k] is not None and all(out[h] for h in HUDI_KINDS) for k in out}
    if reused["mdt-on"]:
        log(f"[{shape.name}] reusing the pristine tables in {root}/{shape.name}-* (--rebuild to build them again)")
    else:
        for k in KINDS:  # the record-index and Delta tables link the Hudi load's files: they go with them
            if os.path.exists(table_dir(root, shape, k)):
                shutil.rmtree(table_dir(root, shape, k))
        log(f"[{shape.name}] building {shape.files:,} load files in {shape.partitions} partitions under "
            f"{root} (untimed) ...")
        times = build_hudi(shape, root, log)
        log(f"  hudi tables (load, commit, mdt=off copy, metadata table): {sum(times.values()):.1f} s")
        for k in HUDI_KINDS:
            out[k] = _save_manifest(root, shape, k, times)
    if spark is not None and not reused[RI_KIND]:
        times = build_record_index(shape, root, spark)
        log(f"  record-index table (copy + indexing): {sum(times.values()):.1f} s")
        out[RI_KIND] = _save_manifest(root, shape, RI_KIND, times)
    if delta and not reused["delta"]:
        times = build_delta(shape, root)
        log(f"  delta table (links + convert_to_deltalake): {sum(times.values()):.1f} s")
        out["delta"] = _save_manifest(root, shape, "delta", times)
    return {k: {**m, "reused": reused[k]} for k, m in out.items()}


def _link_tree(src: str, dst: str) -> None:
    """A copy of the table at `src` whose Parquet files are hard links (same inodes)."""
    os.makedirs(dst, exist_ok=True)
    for e in os.scandir(src):
        target = os.path.join(dst, e.name)
        if e.is_dir():
            if e.name in (".hoodie", "_delta_log"):
                shutil.copytree(e.path, target)
            else:
                _link_tree(e.path, target)
        elif e.name.endswith(".parquet"):
            os.link(e.path, target)
        else:
            shutil.copy2(e.path, target)


def reset(root: str, shape: Shape, kind: str) -> str:
    """The working table of `kind`, made again from its pristine table; its path."""
    path = working(root, shape, kind)
    if os.path.exists(path):
        shutil.rmtree(path)
    _link_tree(pristine(root, shape, kind), path)
    return path


# ---------------------------------------------------------------- commit snapshots


def snapshot(root: str, shape: Shape, kind: str, target: int) -> str:
    return os.path.join(table_dir(root, shape, kind), f"commits-{target}")


def _snapshot_key(root: str, shape: Shape, kind: str, target: int) -> dict:
    m = _manifest(root, shape, kind) or {}
    return {"pristine_built_at": m.get("built_at"), "commits": target}


def restore_snapshot(root: str, shape: Shape, kind: str, target: int, path: str) -> dict | None:
    """The working table `path` made again from the snapshot of `target` commits when there is one of the
    same pristine build and the table has fewer commits: {snapshot, built_by, seconds}; else None."""
    snap = snapshot(root, shape, kind, target)
    meta = os.path.join(snap, "snapshot.json")
    if not os.path.exists(meta) or commits(kind, path) >= target:
        return None
    with open(meta) as f:
        m = json.load(f)
    if any(m.get(k) != v for k, v in _snapshot_key(root, shape, kind, target).items()):
        return None
    t0 = time.perf_counter()
    shutil.rmtree(path)
    _link_tree(os.path.join(snap, "table"), path)
    return {"snapshot": snap, "built_by": m.get("pyhudi_commit"), "seconds": round(time.perf_counter() - t0, 2)}


def save_snapshot(root: str, shape: Shape, kind: str, target: int, path: str) -> None:
    """Keeps the working table `path`, just brought to `target` commits, for later runs."""
    from bench import env

    snap = snapshot(root, shape, kind, target)
    if os.path.exists(snap):
        shutil.rmtree(snap)
    _link_tree(path, os.path.join(snap, "table"))
    with open(os.path.join(snap, "snapshot.json"), "w") as f:
        json.dump({**_snapshot_key(root, shape, kind, target), "pyhudi_commit": env.pyhudi_commit()}, f, indent=2)


# ---------------------------------------------------------------- commits


def commits(kind: str, path: str) -> int:
    """Completed commits of the table: data instants on the Hudi timeline (active and archived), Delta
    versions."""
    if kind == "delta":
        from deltalake import DeltaTable

        return DeltaTable(path).version() + 1
    from pyhudi.services import archival
    from pyhudi.storage import Storage
    from pyhudi.table import properties
    from pyhudi.table.timeline import Timeline

    storage, base = Storage.for_uri(path)
    active = Timeline.for_table(storage, base, properties.load(storage, base)).completed(WRITE_ACTIONS)
    archived = [i for i in archival.archived_instants(path) if i.action in WRITE_ACTIONS]
    return len(active) + len(archived)


def prior_rows(shape: Shape, seq: int) -> pa.Table:
    """The rows of prior commit number `seq`: ROWS_PER_COMMIT new keys in one partition."""
    i = seq % shape.partitions
    return rows([f"c{seq:06d}r{r:02d}" for r in range(ROWS_PER_COMMIT)], shape.partition_value(i),
                [-(seq * 100 + r) for r in range(ROWS_PER_COMMIT)], seq)


def add_commits(kind: str, path: str, shape: Shape, target: int, log=print) -> dict:
    """Prior commits until the table has `target` completed commits: {added, seconds}."""
    have = commits(kind, path)
    add = max(0, target - have)
    committer = DeltaCommits(path) if kind == "delta" else HudiCommits(path, kind)
    t0 = time.perf_counter()
    for n, seq in enumerate(range(have + 1, have + add + 1), 1):
        committer.add(shape, seq)
        if n % 50 == 0 or n == add:
            log(f"  [{shape.name} {kind}] prior commits: {n}/{add} added ({time.perf_counter() - t0:.1f} s)")
    return {"added": add, "seconds": round(time.perf_counter() - t0, 2)}


class HudiCommits:
    """Adds commits as pyhudi's writer leaves them (client.Writer.write and _commit): requested,
    inflight, one new base file written by the writer's base-file writer as a new file group,
    the metadata table committed at the instant (compacted and cleaned first when due, as
    `_commit` does; the record index told of the new keys when the table has one), then the
    completed instant with the commit metadata, then cleaning and archival when due (the
    services a write runs after its commit). A bulk_insert: the one operation that puts new keys
    into a new file group."""

    def __init__(self, path: str, kind: str):
        from pyhudi.avro import schema as avro_schema
        from pyhudi.storage import Storage
        from pyhudi.table import properties
        from pyhudi.write.config import WriteConfig
        from pyhudi.write.schema_evolution import current_schema

        self.storage, self.base = Storage.for_uri(path)
        props = properties.load(self.storage, self.base)
        self.options = kind_options(kind, "bulk_insert")
        self.cfg = WriteConfig.from_options(self.options, props)
        create = avro_schema.to_writer_style(current_schema(self.storage, self.base, props))
        self.commit_schema = avro_schema.to_json(create)
        self.writer_schema = avro_schema.to_json(avro_schema.with_meta_fields(create))

    def add(self, shape: Shape, seq: int) -> None:
        from pyhudi.table import instant_metadata as im
        from pyhudi.table import properties
        from pyhudi.table.timeline import Timeline
        from pyhudi.table.write_stat import by_partition

        tl = Timeline.for_table(self.storage, self.base, properties.load(self.storage, self.base))
        requested = tl.create_requested("commit")
        inflight = tl.transition_to_inflight(
            requested, im.encode(im.COMMIT, im.commit_metadata({}, "BULK_INSERT", None)))
        data = prior_rows(shape, seq)
        stat = self._write_file(data, shape, seq, requested.requested_time)
        if self.cfg.metadata_enabled:
            self._commit_metadata_table(requested.requested_time, stat, data.column(KEY).to_pylist())
        tl.complete(inflight, im.encode(im.COMMIT, im.commit_metadata(by_partition([stat]), "BULK_INSERT",
                                                                      self.commit_schema)))
        from pyhudi.services import archival, clean

        clean.clean_if_due(self.base, self.options)
        archival.archive_if_due(self.base, self.options)

    def _commit_metadata_table(self, instant: str, stat, keys: list[str]) -> None:
        from pyhudi.metadata import MetadataWriter
        from pyhudi.table import properties

        mdt = MetadataWriter(self.storage, self.base, properties.load(self.storage, self.base),
                             partitions=self.cfg.metadata_partitions)
        if mdt.compact_if_needed(self.cfg.metadata_compact_after):
            mdt.clean()
        mdt.commit(instant, "commit", [stat], {}, operation=self.cfg.operation, schema=self.commit_schema,
                   record_index=self._record_index(stat, keys, mdt.compression) if "record_index" in self.cfg.metadata_partitions
                   else None)

    def _record_index(self, stat, keys: list[str], compression: str):
        """The record index's writer of the new file's keys (placed where the file is)."""
        from pyhudi.write import record_index as write_ri

        n = len(keys)
        changes = pa.table({write_ri.KEY: keys, write_ri.PART: [stat.partition] * n,
                            write_ri.LOC: [stat.file_id] * n, write_ri.DELETED: [False] * n})
        mdt_uri = f"{self.base}/.hoodie/metadata"
        return lambda instant, count: write_ri.write_logs(changes, mdt_uri, instant, count, compression)

    def _write_file(self, data: pa.Table, shape: Shape, seq: int, instant: str):
        from pyhudi import metadata as mr
        from pyhudi.basefile import parquet as base_file
        from pyhudi.table import file_names as filenames
        from pyhudi.table.write_stat import WriteStat

        part = shape.partition_path(seq % shape.partitions)
        fid = filenames.new_file_id()
        name = str(filenames.BaseFileName(fid, "0-0-0", instant))
        table = base_file.add_meta_columns(data, commit_time=instant, partition_path=part, file_name=name,
                                           record_keys=data.column(KEY), partition_id=0)
        st = base_file.write_base_file(f"{self.base}/{part}/{name}", table, self.writer_schema,
                                       filesystem=self.storage.fs, compression=self.cfg.compression)
        return WriteStat(partition=part, file_id=fid, path=f"{part}/{name}", file_size=st.file_size,
                         num_writes=table.num_rows, num_inserts=table.num_rows, min_key=st.min_record_key,
                         max_key=st.max_record_key, column_stats=mr.column_stats_json(table, st.parquet_metadata),
                         bloom=st.bloom_filter.serialize() if st.bloom_filter else None)


class DeltaCommits:
    """Adds commits as small delta-rs appends (`write_deltalake(mode="append")`) of the same rows."""

    def __init__(self, path: str):
        from deltalake import DeltaTable

        self.table = DeltaTable(path)  # kept: each append updates it, the log is not read again

    def add(self, shape: Shape, seq: int) -> None:
        from deltalake import write_deltalake

        write_deltalake(self.table, delta_rows(prior_rows(shape, seq)), mode="append")


def delta_rows(data: pa.Table) -> pa.Table:
    """Data rows in the Delta table's columns: meta columns null (nothing fills them), `pp` = `p`."""
    n, cols = data.num_rows, {}
    for f in delta_schema():
        cols[f.name] = data.column(PARTITION) if f.name == DELTA_PARTITION else (
            data.column(f.name) if f.name in data.column_names else pa.nulls(n, f.type))
    return pa.table(cols, schema=delta_schema())
