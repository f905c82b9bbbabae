"""The write client: plans a write on the driver, writes files on executors, commits the instant.

Protocol (DESIGN.md "The write protocol"): roll back writes that died, take an instant time,
write `.requested` then `.inflight`, tag incoming keys with their file groups (simple index over
the latest file slices, read through the connector), assign inserts to file groups, write files on
executors (a marker before each file), then publish the completed instant atomically.
"""
from __future__ import annotations

import contextlib
import json
import logging
import math
import posixpath
from typing import Iterator

from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F
from pyspark.sql.window import Window

from pyhudi.avro import schema as avro_schema
from pyhudi.config import options as o
from pyhudi.write import bucket_index
from pyhudi.write import executor
from pyhudi.table import file_names as filenames
from pyhudi.table import instant_metadata as im
from pyhudi.write import keygen
from pyhudi.table import properties
from pyhudi.faults import crash_point
from pyhudi.metadata import FILES, MetadataWriter
from pyhudi.write.executor import BASE, DELETE, FG, INSERT, OLD, OP, UPDATE, WriteTask
from pyhudi.table.rollback import rollback_failed_writes
from pyhudi.storage import Storage
from pyhudi.table.timeline import Timeline
from pyhudi.write.config import WriteConfig, WriteOptionError

log = logging.getLogger(__name__)

# batches up to this many records are tagged by broadcasting their keys to the scan of the table's
# keys (about 100 bytes each); bigger ones by a shuffle join
BROADCAST_TAGGING_MAX_RECORDS = 1_000_000
SAVE_MODES = ("append", "overwrite", "errorifexists", "ignore")
REPLACE_OPS = ("insert_overwrite", "insert_overwrite_table", "delete_partition")
OPERATION_TYPES = {"upsert": "UPSERT", "insert": "INSERT", "bulk_insert": "BULK_INSERT", "delete": "DELETE",
                   "insert_overwrite": "INSERT_OVERWRITE", "insert_overwrite_table": "INSERT_OVERWRITE_TABLE",
                   "delete_partition": "DELETE_PARTITION"}


class HudiWriteError(ValueError):
    pass


def write_dataframe(spark, df, path: str, options: dict[str, str], mode: str) -> None:
    """Write `df` to the table at `path` with Hudi options, under a Spark SaveMode name
    ("append", "overwrite", "errorifexists", "ignore"), with Apache Hudi's meaning of each."""
    mode = mode.lower()
    if mode not in SAVE_MODES:
        raise WriteOptionError(f"save mode {mode!r} is not valid; valid values: {', '.join(SAVE_MODES)}")
    options = {k: v for k, v in options.items() if k != "path"}
    by = options.pop("__partition_columns", None)  # df.write.partitionBy(...), as Spark passes it
    if by and json.loads(by):
        options.setdefault(o.PARTITION_FIELDS.key, ",".join(json.loads(by)))
    storage, base = Storage.for_uri(path)
    exists = storage.exists(posixpath.join(base, ".hoodie", properties.PROPS_FILE))
    if exists and mode == "errorifexists":
        raise HudiWriteError(f"table already exists at {path}; use mode('append') to add to it or "
                             "mode('overwrite') to replace its contents")
    if exists and mode == "ignore":
        return
    if mode == "overwrite":
        options[o.OPERATION.key] = "insert_overwrite_table"
    Writer(spark, path, options).write(df)


def _fg_of(file_name_col):
    """File id from _hoodie_file_name: base files are <fileId>_<token>_<instant>.<ext>; log
    records already hold the file id."""
    return F.when(file_name_col.rlike(r"_\d+-\d+-\d+_\d+\.[a-z]+$"),
                  F.substring_index(file_name_col, "_", 1)).otherwise(file_name_col)


class Writer:
    """One write to one table."""

    def __init__(self, spark: SparkSession, path: str, options: dict[str, str]):
        self.spark = spark
        self.path = path
        self.storage, self.base = Storage.for_uri(path)
        self.props = self._existing_props()
        self.cfg = WriteConfig.from_options(options, self.props)

    def _existing_props(self) -> dict[str, str] | None:
        hoodie = posixpath.join(self.base, ".hoodie")
        if self.storage.exists(posixpath.join(hoodie, properties.PROPS_FILE)):
            return properties.load(self.storage, self.base)
        if self.storage.is_dir(self.base) and self.storage.list(self.base):
            if not self.storage.exists(hoodie):
                raise HudiWriteError(f"{self.path} is not empty and holds no Hudi table (no .hoodie/); "
                                     "write to an empty or new path")
        return None

    # ---- entry -------------------------------------------------------------------------------
    def write(self, df: DataFrame | None) -> str:
        cfg = self.cfg
        if cfg.operation != "delete_partition":
            self._validate_input(df)
        create_schema = self._schema_for(df)
        if self.props is None:
            self.props = self._create_table(create_schema)
        timeline = Timeline.for_table(self.storage, self.base, self.props)
        rollback_failed_writes(self.storage, self.base, timeline)
        slices = self._latest_slices()
        # the bucket index's file groups; a table laid out otherwise fails here, before any instant
        buckets = bucket_index.existing_buckets(slices, cfg) if cfg.index_type == "BUCKET" else {}
        action = self._action()
        requested = timeline.create_requested(action, self._requested_content(action))
        crash_point("after_requested")
        inflight = timeline.transition_to_inflight(
            requested, im.encode(im.COMMIT, im.commit_metadata({}, OPERATION_TYPES[cfg.operation], None)))
        crash_point("after_inflight")
        instant = requested.requested_time
        writer_schema = avro_schema.to_json(avro_schema.with_meta_fields(avro_schema.to_writer_style(create_schema)))
        stats, replaced = self._write_files(df, instant, writer_schema, slices, buckets)
        crash_point("after_files")
        self._write_partition_metadata(instant, {s["partition"] for s in stats})
        crash_point("after_partition_metadata")
        commit_schema = avro_schema.to_json(avro_schema.to_writer_style(create_schema))
        with self._metadata_stage(timeline) as mdt:
            if mdt is not None:  # the metadata table commits at the same instant, before the data does
                if mdt.compact_if_needed(cfg.metadata_compact_after):
                    mdt.clean()  # older metadata file slices are no longer read by anyone
                mdt.commit(instant, action, stats, replaced, operation=cfg.operation, schema=commit_schema)
            crash_point("after_metadata")
            meta = self._commit_metadata(stats, replaced, commit_schema)
            kind = im.REPLACE_COMMIT if action == "replacecommit" else im.COMMIT
            crash_point("before_complete")
            timeline.complete(inflight, im.encode(kind, meta))
        crash_point("after_complete")
        self.storage.delete(posixpath.join(self.base, ".hoodie", ".temp", instant))
        return instant

    @contextlib.contextmanager
    def _metadata_stage(self, timeline: Timeline) -> Iterator[MetadataWriter | None]:
        """The metadata table to commit with this write, decided just before the commit from
        hoodie.properties as stored now: built from one listing when the table has none yet;
        dropped when hoodie.metadata.enable=false, so no reader trusts a stale one. While another
        process builds it, the decision is made again under the build's hand-off lock, held until
        the data instant completes (the build then applies this write, or has just finished)."""
        mdt = self._fresh_metadata_writer()
        if not self.cfg.metadata_enabled:
            if mdt.exists():
                mdt.delete()
            yield None
        elif mdt.exists() and FILES in mdt.partitions():
            yield mdt
        elif not mdt.build_in_progress():
            mdt.initialize(timeline)
            yield mdt
        else:
            with mdt.handoff():
                mdt = self._fresh_metadata_writer()
                if FILES in mdt.partitions():
                    yield mdt
                else:
                    log.info("the metadata table of %s is being built; the build applies this write", self.path)
                    yield None

    def _fresh_metadata_writer(self) -> MetadataWriter:
        self.props = properties.load(self.storage, self.base)
        return MetadataWriter(self.storage, self.base, self.props, partitions=self.cfg.metadata_partitions)

    def _action(self) -> str:
        if self.cfg.operation in REPLACE_OPS:
            return "replacecommit"
        return "deltacommit" if self.cfg.table_type == "MERGE_ON_READ" else "commit"

    def _requested_content(self, action: str) -> bytes:
        if action != "replacecommit":
            return b""
        return im.encode(im.REQUESTED_REPLACE, {"operationType": OPERATION_TYPES[self.cfg.operation],
                                                "clusteringPlan": None, "extraMetadata": None, "version": 1})

    # ---- input and schema ---------------------------------------------------------------------
    def _validate_input(self, df: DataFrame) -> None:
        cfg, cols = self.cfg, set(df.columns)
        needed = cfg.record_key_fields + cfg.partition_fields
        missing = [c for c in needed if c not in cols]
        if missing:
            raise HudiWriteError(f"column(s) {', '.join(missing)} named by the key/partition options are not in "
                                 f"the input; its columns are: {', '.join(df.columns)}")
        if cfg.ordering_field and cfg.ordering_field not in cols and cfg.operation != "delete":
            raise HudiWriteError(f"ordering field {cfg.ordering_field} ({o.PRECOMBINE_FIELD.key}) "
                                 f"is not a column of the input; its columns are: {', '.join(df.columns)}")
        null_key = F.lit(False)
        for f in cfg.record_key_fields:
            null_key = null_key | F.col(f).isNull()
        if df.filter(null_key).limit(1).count():
            raise HudiWriteError(f"the input has rows with a null record key ({', '.join(cfg.record_key_fields)}); "
                                 "every record needs a key")

    def _schema_for(self, df: DataFrame | None) -> dict:
        """The table's Avro create schema after this write: the input's columns, checked against
        (and evolving) the table's current schema."""
        current = self._current_schema()
        if df is None:
            return current
        from pyspark.sql.pandas.types import to_arrow_schema

        data = [c for c in df.columns if not c.startswith("_hoodie_") or c == "_hoodie_is_deleted"]
        incoming = avro_schema.arrow_to_avro(to_arrow_schema(df.select(*data).schema, timezone="UTC"),
                                             self.cfg.table_name,
                                             avro_schema.CREATE)
        if current is None:
            return incoming
        return evolve(current, incoming)

    def _current_schema(self) -> dict | None:
        if self.props is None:
            return None
        timeline = Timeline.for_table(self.storage, self.base, self.props)
        for inst in reversed(timeline.completed(("commit", "deltacommit", "replacecommit"))):
            schema = im.schema_of(im.decode(timeline.read(inst)))
            if schema:
                return avro_schema.parse(schema)
        return avro_schema.parse(self.props[properties.CREATE_SCHEMA])

    def _create_table(self, create_schema: dict) -> dict[str, str]:
        cfg = self.cfg
        props = properties.v8_defaults(cfg.table_name, cfg.table_type, cfg.record_key_fields, cfg.partition_specs,
                                       cfg.ordering_field, avro_schema.to_json(create_schema), cfg.keygen,
                                       cfg.hive_style, cfg.url_encode, database=cfg.database)
        props.update(cfg.timestamp_options)  # recorded as Hudi does, for later writes
        if cfg.index_type == "BUCKET":
            props.update(bucket_index.table_properties(cfg))
        self.storage.mkdirs(posixpath.join(self.base, ".hoodie", "timeline", "history"))
        properties.save(self.storage, self.base, props)
        return props

    # ---- planning -----------------------------------------------------------------------------
    def _latest_slices(self) -> list[dict]:
        jvm = self.spark._jvm
        view = jvm.io.hudimeta.spark.WriterView.latestFileSlices(self.spark._jsc.hadoopConfiguration(), self.path, None)
        return json.loads(view)["slices"]

    def _incoming(self, df: DataFrame) -> DataFrame:
        cfg = self.cfg
        keyed = keygen.with_keys(df.drop(*[c for c in df.columns if c in avro_schema.META_FIELDS
                                           and c not in ("_hoodie_record_key", "_hoodie_partition_path")]), cfg)
        if cfg.operation in ("upsert", "delete"):
            keyed = self._dedupe(keyed)
        if cfg.index_type == "BUCKET":
            keyed = keyed.withColumn(bucket_index.BUCKET, bucket_index.bucket_column(self.spark, cfg))
        return keyed

    def _dedupe(self, df: DataFrame) -> DataFrame:
        """One record per key, the one with the greatest ordering value (Hudi's precombine)."""
        order = F.col(self.cfg.ordering_field).desc_nulls_last() if self.cfg.ordering_field and \
            self.cfg.ordering_field in df.columns else F.monotonically_increasing_id().desc()
        w = Window.partitionBy("_hoodie_record_key").orderBy(order)
        # the window's shuffle sized like the write: with Spark's 200 default partitions (which
        # adaptive execution does not coalesce once cached) every later pass runs 200 tasks
        df = df.repartition(self._tasks(), "_hoodie_record_key")
        return df.withColumn("_hudi_rn", F.row_number().over(w)).filter("_hudi_rn = 1").drop("_hudi_rn")

    def _existing_keys(self, partitions: list[str]) -> DataFrame | None:
        if self.props is None or not self._has_commits():
            return None
        snap = self.spark.read.format("hudi-meta").load(self.path)
        if self.cfg.index_type != "GLOBAL_SIMPLE" and self.cfg.partition_fields:
            snap = snap.filter(F.col("_hoodie_partition_path").isin(partitions))
        return snap.select(F.col("_hoodie_record_key").alias("_hudi_k"),
                           F.col("_hoodie_partition_path").alias("_hudi_p"),
                           _fg_of(F.col("_hoodie_file_name")).alias(FG))

    def _has_commits(self) -> bool:
        tl = Timeline.for_table(self.storage, self.base, self.props)
        return bool(tl.completed(("commit", "deltacommit", "replacecommit")))

    def _tag(self, incoming: DataFrame, partitions: list[str], records: int) -> DataFrame:
        """Adds FG (existing file group or null) and OP (U/D for existing keys, I for new)."""
        existing = self._existing_keys(partitions)
        if existing is None or self.cfg.operation in ("insert", "bulk_insert") + REPLACE_OPS:
            untagged = incoming.withColumn(FG, F.lit(None).cast("string")).withColumn(OP, F.lit(INSERT))
            # deleting from a table with no records deletes nothing
            return untagged.filter(F.lit(False)) if self.cfg.operation == "delete" else untagged
        global_index = self.cfg.index_type == "GLOBAL_SIMPLE"
        if records <= BROADCAST_TAGGING_MAX_RECORDS:
            # a small batch's keys go to every task scanning the table's keys: no shuffle of those
            batch = incoming.select(F.col("_hoodie_record_key").alias("_hudi_bk"),
                                    F.col("_hoodie_partition_path").alias("_hudi_bp"))
            hit = F.col("_hudi_k") == F.col("_hudi_bk")
            if not global_index:
                hit = hit & (F.col("_hudi_p") == F.col("_hudi_bp"))
            existing = existing.join(F.broadcast(batch), hit, "left_semi")
        cond = F.col("_hoodie_record_key") == F.col("_hudi_k")
        if not global_index:
            cond = cond & (F.col("_hoodie_partition_path") == F.col("_hudi_p"))
        tagged = incoming.join(existing, cond, "left")
        if self.cfg.index_type == "GLOBAL_SIMPLE":  # updates stay in the record's current partition
            tagged = tagged.withColumn("_hoodie_partition_path",
                                       F.coalesce(F.col("_hudi_p"), F.col("_hoodie_partition_path")))
        op = F.when(F.col(FG).isNull(), F.lit(INSERT)).otherwise(
            F.lit(DELETE) if self.cfg.operation == "delete" else F.lit(UPDATE))
        tagged = tagged.withColumn(OP, op).drop("_hudi_k", "_hudi_p")
        if self.cfg.operation == "delete":
            tagged = tagged.filter(F.col(OP) == DELETE)
        return tagged

    def _assign_inserts(self, tagged: DataFrame, slices: list[dict]) -> tuple[DataFrame, dict[str, list[str]]]:
        """File groups for new records: small existing base files first (copy-on-write upserts and
        inserts), then new file groups sized by hoodie.parquet.max.file.size."""
        cfg = self.cfg
        counts = {r[0]: r[1] for r in tagged.filter(F.col(OP) == INSERT)
                  .groupBy("_hoodie_partition_path").count().collect()}
        if not counts:
            return tagged, {}
        per_file = max(1, cfg.max_file_size // max(1, cfg.record_size_estimate))
        buckets: dict[str, list[str]] = {}
        for partition, n in counts.items():
            small, capacity = self._small_files(partition, slices, per_file)
            need_new = 0 if capacity >= n else math.ceil((n - capacity) / per_file)
            buckets[partition] = small + [filenames.new_file_id() for _ in range(need_new)]
        rows = [(p, i, fg) for p, fgs in buckets.items() for i, fg in enumerate(fgs)]
        mapping = self.spark.createDataFrame(rows, "_hudi_mp string, _hudi_mi int, _hudi_mfg string")
        sizes = self.spark.createDataFrame([(p, len(f)) for p, f in buckets.items()], "_hudi_sp string, _hudi_sn int")
        bucket = F.pmod(F.xxhash64("_hoodie_record_key"), F.col("_hudi_sn")).cast("int")
        assigned = (tagged.join(F.broadcast(sizes), F.col("_hoodie_partition_path") == F.col("_hudi_sp"), "left")
                    .withColumn("_hudi_bi", F.when(F.col(OP) == INSERT, bucket))
                    .join(F.broadcast(mapping), (F.col("_hoodie_partition_path") == F.col("_hudi_mp"))
                          & (F.col("_hudi_bi") == F.col("_hudi_mi")), "left")
                    .withColumn(FG, F.coalesce(F.col(FG), F.col("_hudi_mfg")))
                    .drop("_hudi_sp", "_hudi_sn", "_hudi_bi", "_hudi_mp", "_hudi_mi", "_hudi_mfg"))
        return assigned, buckets

    def _small_files(self, partition: str, slices: list[dict], per_file: int) -> tuple[list[str], int]:
        cfg = self.cfg
        if cfg.table_type != "COPY_ON_WRITE" or cfg.operation not in ("upsert", "insert"):
            return [], 0
        small, capacity = [], 0
        for s in slices:
            if s["partitionPath"] != partition or not s.get("baseFile"):
                continue
            rel = posixpath.join(partition, s["baseFile"]) if partition else s["baseFile"]
            size = self.storage.fs.get_file_info(posixpath.join(self.base, rel)).size or 0
            if size < cfg.small_file_limit:
                small.append(s["fileId"])
                capacity += max(0, (cfg.max_file_size - size) // max(1, cfg.record_size_estimate))
        return small, min(capacity, per_file * max(1, len(small)))

    # ---- writing ------------------------------------------------------------------------------
    def _write_files(self, df, instant: str, writer_schema: str, slices: list[dict],
                     buckets: dict[tuple[str, int], str]):
        """Writes every file of this instant on executors; (write stats, replaced file ids).
        `buckets`: the bucket index's existing file groups, (partition, bucket) -> file id."""
        cfg = self.cfg
        replaced: dict[str, list[str]] = {}
        if cfg.operation == "delete_partition":
            targets = set(cfg.partitions_to_delete)
            if df is not None:
                targets |= {r[0] for r in keygen.with_keys(df, cfg).select("_hoodie_partition_path").distinct().collect()}
            return [], self._file_groups_of(slices, targets)
        incoming = self._incoming(df)
        if self._single_pass(slices):
            # each row is read once, straight into the write: no counts, nothing cached
            return self._run_write(bucket_index.locate(self.spark, incoming, buckets, cfg.operation, instant),
                                   instant, writer_schema, slices), replaced
        # the keyed batch feeds the partition counts, the tagging and the write: computed once
        incoming = incoming.persist()
        try:
            return self._write_batch(incoming, instant, writer_schema, slices, replaced, buckets)
        finally:
            incoming.unpersist()

    def _single_pass(self, slices: list[dict]) -> bool:
        """The bucket index needs no look at the batch before writing it, unless partitions are
        replaced (which ones) or copy-on-write file groups merged (whose old rows to read)."""
        cfg = self.cfg
        return (cfg.index_type == "BUCKET" and cfg.operation not in REPLACE_OPS
                and (cfg.table_type == "MERGE_ON_READ" or not slices))

    def _write_batch(self, incoming: DataFrame, instant: str, writer_schema: str, slices: list[dict],
                     replaced: dict[str, list[str]], buckets: dict[tuple[str, int], str]):
        cfg = self.cfg
        counts = {r[0]: r[1] for r in incoming.groupBy("_hoodie_partition_path").count().collect()}
        partitions = list(counts)
        if cfg.operation == "insert_overwrite":
            replaced = self._file_groups_of(slices, set(partitions))
        elif cfg.operation == "insert_overwrite_table":
            replaced = self._file_groups_of(slices, {s["partitionPath"] for s in slices})
        if cfg.index_type == "BUCKET":
            existing = {k: fid for k, fid in buckets.items() if k[0] not in replaced}  # replaced: new buckets
            return self._run_write(bucket_index.locate(self.spark, incoming, existing, cfg.operation, instant),
                                   instant, writer_schema, slices), replaced
        # tagging joins the batch with every key of the affected partitions: keep its result, the
        # insert counts, the touched file groups and the write all read it
        tagged_keys = self._tag(incoming, partitions, sum(counts.values())).persist()
        try:
            tagged, _ = self._assign_inserts(tagged_keys, slices)
            return self._run_write(tagged, instant, writer_schema, slices), replaced
        finally:
            tagged_keys.unpersist()

    def _run_write(self, tagged: DataFrame, instant: str, writer_schema: str, slices: list[dict]) -> list[dict]:
        """Every file group's files written by one executor call each; their write stats."""
        cfg = self.cfg
        work = self._with_old_rows(tagged, slices)
        task = WriteTask(self.path, instant, writer_schema, cfg.table_type, cfg.ordering_field,
                         self.props.get(properties.MERGE_MODE) == "EVENT_TIME_ORDERING",
                         cfg.log_block_format, cfg.compression)
        out = (work.repartition(self._tasks(), FG).groupBy(FG)
               .applyInArrow(lambda t: executor.write_group(t, task), executor.STATS_DDL))
        return [r.asDict() for r in out.collect()]

    def _tasks(self) -> int:
        """Tasks of the write's shuffles. Explicit: adaptive execution would coalesce a small batch
        into one task, on one core."""
        return self.cfg.shuffle_parallelism or 2 * self.spark.sparkContext.defaultParallelism

    @staticmethod
    def _file_groups_of(slices: list[dict], partitions: set[str]) -> dict[str, list[str]]:
        out: dict[str, list[str]] = {}
        for s in slices:
            if s["partitionPath"] in partitions:
                out.setdefault(s["partitionPath"], []).append(s["fileId"])
        return out

    def _with_old_rows(self, tagged: DataFrame, slices: list[dict]) -> DataFrame:
        """Copy-on-write file groups being rewritten need their current rows (OP = O), read
        through the connector; every row also learns its group's current base file (BASE)."""
        base_of = {s["fileId"]: s.get("baseFile") for s in slices}
        bases = self.spark.createDataFrame([(k, v) for k, v in base_of.items()] or [("", None)],
                                           f"{FG}_b string, {BASE} string")
        tagged = tagged.join(F.broadcast(bases), F.col(FG) == F.col(f"{FG}_b"), "left").drop(f"{FG}_b")
        if self.cfg.table_type != "COPY_ON_WRITE" or not slices or self.props is None or not self._has_commits():
            return tagged
        touched = [r[0] for r in tagged.filter(F.col(BASE).isNotNull()).select(FG).distinct().collect()]
        if not touched:
            return tagged
        names = [base_of[fg] for fg in touched if base_of.get(fg)]
        old = (self.spark.read.format("hudi-meta").load(self.path)
               .filter(F.col("_hoodie_file_name").isin(names))
               .withColumn(FG, _fg_of(F.col("_hoodie_file_name")))
               .withColumn(OP, F.lit(OLD))
               .join(F.broadcast(bases), F.col(FG) == F.col(f"{FG}_b"), "left").drop(f"{FG}_b")
               .drop("_hoodie_file_name"))
        return tagged.unionByName(old, allowMissingColumns=True)

    def _write_partition_metadata(self, instant: str, partitions: set[str]) -> None:
        for p in partitions:
            path = posixpath.join(self.base, p, filenames.PARTITION_METADATA) if p else \
                posixpath.join(self.base, filenames.PARTITION_METADATA)
            if not self.storage.exists(path):
                self.storage.write(path, filenames.partition_metadata_text(
                    instant, filenames.partition_depth(p)).encode())

    def _commit_metadata(self, stats: list[dict], replaced: dict[str, list[str]], schema: str) -> dict:
        per_partition: dict[str, list[dict]] = {}
        for s in stats:
            name = posixpath.basename(s["path"])
            stat = im.write_stat(
                fileId=s["file_id"], path=s["path"], prevCommit=s["prev_commit"], numWrites=s["num_writes"],
                numDeletes=s["num_deletes"], numUpdateWrites=s["num_update_writes"], numInserts=s["num_inserts"],
                totalWriteBytes=s["file_size"], totalWriteErrors=0, partitionPath=s["partition"],
                fileSizeInBytes=s["file_size"], minEventTime=None, maxEventTime=None)
            if s["is_log"]:
                stat.update(logVersion=1, logOffset=0, baseFile=s["base_file"] or "", logFiles=[name])
            per_partition.setdefault(s["partition"], []).append(stat)
        op = OPERATION_TYPES[self.cfg.operation]
        if self.cfg.operation in REPLACE_OPS:
            return im.replace_commit_metadata(per_partition, op, schema, replaced)
        return im.commit_metadata(per_partition, op, schema)


# ---- schema evolution ---------------------------------------------------------------------------

_WIDER = {("int", "long"), ("int", "float"), ("int", "double"), ("long", "float"), ("long", "double"),
          ("float", "double"), ("string", "bytes"), ("bytes", "string")}


def _branch(t):
    """The non-null branch of a nullable union, and whether it was nullable."""
    if isinstance(t, list):
        rest = [b for b in t if b != "null"]
        return (rest[0] if len(rest) == 1 else t), "null" in t
    return t, False


def _type_name(t) -> str:
    t, _ = _branch(t)
    if isinstance(t, dict):
        return t.get("logicalType") or t["type"]
    return t


def evolve(current: dict, incoming: dict) -> dict:
    """The table schema after writing `incoming`: new nullable columns are added; a column may
    not change type (except Avro-compatible widening of the input to the table's type) and a
    new column must be nullable. Anything else fails before a file is written."""
    by_name = {f["name"]: f for f in current["fields"]}
    out = [dict(f) for f in current["fields"]]
    for f in incoming["fields"]:
        old = by_name.get(f["name"])
        if old is None:
            if not _branch(f["type"])[1]:
                raise HudiWriteError(f"new column {f['name']} must be nullable: older records have no value for it")
            out.append(f)
            continue
        a, b = _type_name(old["type"]), _type_name(f["type"])
        if a != b and (b, a) not in _WIDER:
            raise HudiWriteError(f"column {f['name']} is {a} in the table but {b} in the input; this change is not "
                                 "compatible (cast the column to the table's type, or write a new table)")
    return {**current, "fields": out}
