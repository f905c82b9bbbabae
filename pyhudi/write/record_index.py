"""The record index as writes use it (RFC-08): the key changes of a write, the Spark jobs that write the
`record_index` files of the metadata table on executors (one task per file group, keys sorted), its
first build from the table's records (tagging by it: pyhudi.write.index.record)."""
from __future__ import annotations

import json
import logging
import posixpath

import pyarrow as pa
import pyarrow.compute as pc
from pyspark.sql import Column, DataFrame, SparkSession
from pyspark.sql import functions as F

from pyhudi.metadata import MetadataWriter, contents
from pyhudi.metadata import record_index as ri
from pyhudi.metadata import secondary_index as si
from pyhudi.metadata.keys import RECORD_INDEX, file_group_id, file_group_index
from pyhudi.storage import Storage
from pyhudi.table import file_names
from pyhudi.write.jvm_functions import java_function
from pyhudi.write.own_records import READ_OPTIONS, file_id_of
from pyhudi.write.tagged import DELETE, FG, INSERT, OP, UPDATE

log = logging.getLogger(__name__)

KEY, PART, LOC, DELETED, INSTANT, GROUP = "_ri_k", "_ri_p", "_ri_fg", "_ri_del", "_ri_t", "_ri_g"
FUNCTION = "hudi_mdt_key_group"
STAT_DDL = "stat string"


def group_column(spark: SparkSession, key: Column, count: int) -> Column:
    """The record_index file group of each key (Java's String.hashCode, computed in the JVM)."""
    return java_function(spark, FUNCTION, "io.hudimeta.spark.bridge.KeyGroupFunction", "int")(key, F.lit(count))


def changes(tagged: DataFrame, upserts_known: bool = True) -> DataFrame:
    """(KEY, PART, LOC, DELETED) of a tagged write: inserts place their keys, deletes (and soft deletes)
    remove them. An update keeps its key where it is - unless the index could not tell updates from
    inserts (`upserts_known` false: the bucket index), then every written row states its location."""
    deleted = F.col(OP) == DELETE
    if "_hoodie_is_deleted" in tagged.columns:
        deleted = deleted | F.coalesce(F.col("_hoodie_is_deleted").cast("boolean"), F.lit(False))
    placed = F.col(OP) == INSERT if upserts_known else F.col(OP).isin(INSERT, UPDATE)
    return tagged.filter(placed | deleted).select(
        F.col("_hoodie_record_key").alias(KEY), F.col("_hoodie_partition_path").alias(PART),
        F.col(FG).alias(LOC), deleted.alias(DELETED))


def deletions(rows: DataFrame) -> DataFrame:
    """(KEY, PART, LOC, DELETED) removing the keys of `rows` (records with FG)."""
    return rows.select(F.col("_hoodie_record_key").alias(KEY), F.col("_hoodie_partition_path").alias(PART),
                       F.col(FG).alias(LOC), F.lit(True).alias(DELETED))


def key_changes(spark: SparkSession, table_uri: str, tagged: DataFrame | None, replaced: dict[str, list[str]],
                upserts_known: bool = True) -> DataFrame | None:
    """What a write changes in the record index: its tagged rows' `changes`, and the deletion of the keys of
    the file groups it replaces; None when nothing."""
    parts = [changes(tagged, upserts_known)] if tagged is not None else []
    if replaced:
        parts.append(replaced_keys(spark, table_uri, replaced))
    return None if not parts else parts[0] if len(parts) == 1 else parts[0].unionByName(parts[1])


def replaced_keys(spark: SparkSession, table_uri: str, replaced: dict[str, list[str]]) -> DataFrame:
    """The keys of the file groups a replacecommit replaces, as deletions (a key the same commit writes
    again is placed anew instead: the log writer drops its deletion)."""
    ids = sorted({fid for fids in replaced.values() for fid in fids})
    rows = (spark.read.format("hudi-meta").options(**READ_OPTIONS).load(table_uri)
            .filter(F.col("_hoodie_partition_path").isin(sorted(replaced)))
            .withColumn(FG, file_id_of(F.col("_hoodie_file_name")))
            .filter(F.col(FG).isin(ids)))
    return deletions(rows)


def placed(rows: DataFrame) -> DataFrame:
    """(KEY, PART, LOC, DELETED) of rows written to new file groups (clustering): every key moves."""
    return rows.select(F.col("_hoodie_record_key").alias(KEY), F.col("_hoodie_partition_path").alias(PART),
                       F.col(FG).alias(LOC), F.lit(False).alias(DELETED))


def written_keys(spark: SparkSession, table_uri: str, stats) -> DataFrame | None:
    """Every key of the new base files of `stats` placed where it now lives, read back from the files
    themselves (a write that learns file groups as it writes them: clustering, bulk_insert)."""
    paths = [posixpath.join(table_uri, s.path) for s in stats if s.path and not s.is_log]
    if not paths:
        return None
    rows = (spark.read.parquet(*paths).select("_hoodie_record_key", "_hoodie_partition_path", "_hoodie_file_name")
            .withColumn(FG, file_id_of(F.col("_hoodie_file_name"))))
    return placed(rows)


def moved_to(spark: SparkSession, table, stats, mdt: MetadataWriter):
    """The log writer of a service that rewrote records into new base files (clustering)."""
    keys = written_keys(spark, table.uri, stats)
    return None if keys is None else log_writer(spark, table.uri, keys, mdt.compression)


def log_writer(spark: SparkSession, table_uri: str, changed: DataFrame, compression: str,
               partition: str = RECORD_INDEX, in_driver: bool = False):
    """What MetadataWriter.commit calls once its deltacommit is inflight: `changed` written as one log file
    per touched file group of `partition` (record_index, or a secondary index: KEY is then the entry's key),
    on executors - or, `in_driver` (a small batch's few changes), from the driver after collecting them;
    returns their write stats."""
    def write(instant: str, count: int) -> list[dict]:
        mdt_uri = _mdt_uri(table_uri)
        if in_driver:
            return write_logs(changed.toArrow(), mdt_uri, instant, count, compression, partition)
        by_group = changed.withColumn(GROUP, group_column(spark, F.col(KEY), count))
        out = (by_group.repartition(_tasks(spark, count), GROUP).groupBy(GROUP)
               .applyInArrow(lambda t: _write_log(t, mdt_uri, instant, compression, partition), STAT_DDL))
        return [json.loads(r.stat) for r in out.collect()]
    return write


def snapshot_rows(spark: SparkSession, table_uri: str, groups: dict[str, set[str]] | None = None,
                  key: Column | None = None) -> DataFrame:
    """(KEY, PART, LOC, INSTANT) of the records the table holds now - of the file groups `groups` names
    (partition -> file ids) when given - each at its file group, with the instant of the group's base
    file (of the record, for records in log files only), as Hudi builds the index. KEY is the record key,
    or `key` (a secondary index's entry key: rows where it is null are left out)."""
    snap = spark.read.format("hudi-meta").options(**READ_OPTIONS).load(table_uri)
    if groups is not None:
        snap = snap.filter(F.col("_hoodie_partition_path").isin(sorted(groups)))
    base_instant = F.regexp_extract(F.col("_hoodie_file_name"), r"_(\d+)\.[a-z]+$", 1)
    rows = snap.select((F.col("_hoodie_record_key") if key is None else key).alias(KEY),
                       F.col("_hoodie_partition_path").alias(PART),
                       file_id_of(F.col("_hoodie_file_name")).alias(LOC),
                       F.when(base_instant != "", base_instant).otherwise(F.col("_hoodie_commit_time")).alias(INSTANT))
    if key is not None:
        rows = rows.filter(F.col(KEY).isNotNull())
    if groups is not None:
        rows = rows.filter(F.col(LOC).isin(sorted({f for fids in groups.values() for f in fids})))
    return rows


def base_writer(spark: SparkSession, table_uri: str, rows: DataFrame, count: int, compression: str,
                partition: str = RECORD_INDEX):
    """What MetadataWriter.add_partition calls: `rows` (snapshot_rows) written as the base HFiles of
    `count` file groups of `partition`, one task per group; returns their write stats."""
    mdt_uri = _mdt_uri(table_uri)

    def write_bases(instant: str, _pdir: str) -> list[dict]:
        by_group = rows.withColumn(GROUP, group_column(spark, F.col(KEY), count))
        out = (by_group.repartition(_tasks(spark, count), GROUP).groupBy(GROUP)
               .applyInArrow(lambda t: _write_base(t, mdt_uri, instant, compression, partition), STAT_DDL))
        return [json.loads(r.stat) for r in out.collect()]
    return write_bases


def build(spark: SparkSession, table_uri: str, mdt: MetadataWriter, sizing: ri.Sizing) -> str:
    """Builds the record_index partition from the records the table holds now and lists it as built
    (for a write that builds it before its own commit); returns the initialisation instant."""
    rows = snapshot_rows(spark, table_uri).persist()
    try:
        count = sizing.file_group_count(rows.count())
        instant = mdt.add_partition(RECORD_INDEX, count, base_writer(spark, table_uri, rows, count, mdt.compression))
    finally:
        rows.unpersist()
    log.info("built the record index of %s: %d file groups at %s", table_uri, count, instant)
    return instant


# ---- on executors ---------------------------------------------------------------------------------

def _write_log(table: pa.Table, mdt_uri: str, instant: str, compression: str, partition: str) -> pa.Table:
    if table.num_rows == 0:
        return pa.table({"stat": pa.array([], pa.string())})
    index = table.column(GROUP)[0].as_py()
    cols = [table.column(c).to_pylist() for c in (KEY, PART, LOC, DELETED)]
    upserts = [(k, p, f) for k, p, f, d in zip(*cols) if not d]
    deletes = [k for k, _, _, d in zip(*cols) if d]
    if partition == RECORD_INDEX:
        data = ri.log_file(upserts, deletes, instant, compression)
    else:
        data = si.log_file(partition, [u[0] for u in upserts], deletes, instant, compression)
    fid = file_group_id(partition, index)
    name = str(file_names.LogFileName(fid, instant, 1, _token(index)))
    storage, base = Storage.for_uri(mdt_uri)
    storage.write(f"{base}/{partition}/{name}", data)
    stat = contents.write_stat(
        fileId=fid, path=f"{partition}/{name}", prevCommit=instant, numWrites=len(upserts),
        numDeletes=len(deletes), numUpdateWrites=len(upserts), totalWriteBytes=len(data), partitionPath=partition,
        fileSizeInBytes=len(data), logVersion=1, logOffset=0, baseFile="", logFiles=[name])
    return pa.table({"stat": [json.dumps(stat)]})


def write_logs(changed: pa.Table, mdt_uri: str, instant: str, count: int, compression: str,
               partition: str = RECORD_INDEX) -> list[dict]:
    """(KEY, PART, LOC, DELETED) changes written from this process: one log file per touched file group of
    `partition`; their write stats."""
    groups = pa.array([file_group_index(k, count) for k in changed.column(KEY).to_pylist()], pa.int32())
    changed = changed.append_column(GROUP, groups)
    stats = [_write_log(changed.filter(pc.equal(groups, g)), mdt_uri, instant, compression, partition)
             for g in pc.unique(groups).to_pylist()]
    return [json.loads(s) for t in stats for s in t.column("stat").to_pylist()]


def _write_base(table: pa.Table, mdt_uri: str, instant: str, compression: str, partition: str) -> pa.Table:
    if table.num_rows == 0:
        return pa.table({"stat": pa.array([], pa.string())})
    index = table.column(GROUP)[0].as_py()
    fid = file_group_id(partition, index)
    name = str(file_names.BaseFileName(fid, _token(index), instant, "hfile"))
    if partition == RECORD_INDEX:
        millis = {t: ri.instant_millis(t) for t in table.column(INSTANT).unique().to_pylist()}
        cols = [table.column(c).to_pylist() for c in (KEY, PART, LOC, INSTANT)]
        entries = len(cols[0])
        data = ri.base_file([(k, p, f, millis[t]) for k, p, f, t in zip(*cols)], name, compression)
    else:
        keys = table.column(KEY).to_pylist()
        entries = len(keys)
        data = si.base_file(keys, name, compression)
    storage, base = Storage.for_uri(mdt_uri)
    storage.write(f"{base}/{partition}/{name}", data)
    stat = contents.write_stat(fileId=fid, path=f"{partition}/{name}", numWrites=entries, numInserts=entries,
                               totalWriteBytes=len(data), partitionPath=partition, fileSizeInBytes=len(data))
    return pa.table({"stat": [json.dumps(stat)]})


def _token(index: int) -> str:
    from pyspark import TaskContext

    ctx = TaskContext.get()
    return f"{index}-{ctx.stageId()}-{ctx.taskAttemptId()}" if ctx else f"{index}-0-0"


def _mdt_uri(table_uri: str) -> str:
    return f"{table_uri.rstrip('/')}/.hoodie/metadata"


def _tasks(spark: SparkSession, count: int) -> int:
    return max(1, min(count, 2 * spark.sparkContext.defaultParallelism))
