"""The simple index (Apache Hudi's SIMPLE and GLOBAL_SIMPLE): the file group of each incoming key,
found by joining the batch with the keys the table holds in the partitions it writes to (all
partitions for the global flavour, where a key keeps the partition it already lives in)."""
from __future__ import annotations

from pyspark.sql import Column, DataFrame, SparkSession
from pyspark.sql import functions as F

from pyhudi.write.config import WriteConfig
from pyhudi.write.executor import DELETE, FG, INSERT, OP, SQL_DELETE, UPDATE

BROADCAST_TAGGING_MAX_RECORDS = 1_000_000  # batches up to this size are broadcast to the key scan
# and the keys they find (at most one per incoming record) back to the batch, up to this size: the batch then
# keeps the write's partitioning, where a shuffle join would cut it into spark.sql.shuffle.partitions tasks
# that every later pass over the cached result runs
BROADCAST_FOUND_MAX_RECORDS = 200_000


def file_id_of(file_name: Column) -> Column:
    """File id from _hoodie_file_name: base files are <fileId>_<token>_<instant>.<ext>; log
    records already hold the file id."""
    return F.when(file_name.rlike(r"_\d+-\d+-\d+_\d+\.[a-z]+$"),
                  F.substring_index(file_name, "_", 1)).otherwise(file_name)


# how a write reads its own table: without the lost-file check of storage listings, which reads every
# commit on the timeline (the writer's view lists partitions the same unchecked way), and without data
# skipping (its filters are on partition paths and file names, which planning prunes by already)
READ_OPTIONS = {"hudi-meta.check.listed.files": "false", "hoodie.enable.data.skipping": "false"}


def existing_keys(spark: SparkSession, path: str, cfg: WriteConfig, partitions: list[str]) -> DataFrame:
    """(_hudi_k key, _hudi_p partition, FG file id) of the records the table holds where it matters."""
    snap = spark.read.format("hudi-meta").options(**READ_OPTIONS).load(path)
    if not cfg.global_index and cfg.partition_fields:
        snap = snap.filter(F.col("_hoodie_partition_path").isin(partitions))
    return snap.select(F.col("_hoodie_record_key").alias("_hudi_k"), F.col("_hoodie_partition_path").alias("_hudi_p"),
                       file_id_of(F.col("_hoodie_file_name")).alias(FG))


def tag(incoming: DataFrame, existing: DataFrame | None, cfg: WriteConfig, records: int,
        looked_up: bool = False) -> DataFrame:
    """`incoming` with FG (the key's file group, or null) and OP (U/D for a known key, I for a new
    one); `existing` None: nothing to look up (a new table, or an operation that only inserts);
    `looked_up`: `existing` holds only keys of the batch (the record index's answer for them)."""
    if existing is None:
        untagged = incoming.withColumn(FG, F.lit(None).cast("string")).withColumn(OP, F.lit(INSERT))
        # deleting from a table with no records deletes nothing
        return untagged.filter(F.lit(False)) if cfg.operation == "delete" else untagged
    global_index = cfg.global_index
    if records <= BROADCAST_TAGGING_MAX_RECORDS and not looked_up:
        # a small batch's keys go to every task scanning the table's keys: no shuffle of those
        batch = incoming.select(F.col("_hoodie_record_key").alias("_hudi_bk"),
                                F.col("_hoodie_partition_path").alias("_hudi_bp"))
        hit = F.col("_hudi_k") == F.col("_hudi_bk")
        if not global_index:
            hit = hit & (F.col("_hudi_p") == F.col("_hudi_bp"))
        existing = existing.join(F.broadcast(batch), hit, "left_semi")
    if records <= BROADCAST_FOUND_MAX_RECORDS:
        existing = F.broadcast(existing)
    cond = F.col("_hoodie_record_key") == F.col("_hudi_k")
    if not global_index:
        cond = cond & (F.col("_hoodie_partition_path") == F.col("_hudi_p"))
    tagged = incoming.join(existing, cond, "left")
    known = F.lit(DELETE) if cfg.operation == "delete" else F.lit(UPDATE)
    op = F.when(F.col(FG).isNull(), F.lit(INSERT)).otherwise(known)
    tagged = tagged.withColumn(OP, op)
    if global_index:
        tagged = _to_current_partition(tagged, cfg)
    tagged = sql_deletes(tagged.drop("_hudi_k", "_hudi_p"))
    if cfg.operation == "delete":
        tagged = tagged.filter(F.col(OP) == DELETE)
    return tagged


def sql_deletes(tagged: DataFrame) -> DataFrame:
    """Rows SQL MERGE INTO flags with SQL_DELETE (its DELETE clauses, inside an upsert) delete their key;
    flagged keys the table does not hold are dropped. The flag is never written."""
    if SQL_DELETE not in tagged.columns:
        return tagged
    flag = F.coalesce(F.col(SQL_DELETE), F.lit(False))
    return (tagged.filter(~(flag & (F.col(OP) == INSERT)))
            .withColumn(OP, F.when(flag, F.lit(DELETE)).otherwise(F.col(OP))).drop(SQL_DELETE))


def _to_current_partition(tagged: DataFrame, cfg: WriteConfig) -> DataFrame:
    """Under a global index an existing key stays in the partition it lives in (_hudi_p); with
    hoodie.record.index.update.partition.path an upsert whose partition changed instead deletes the
    record there and inserts it in its new partition."""
    current = F.col("_hudi_p")
    if not (cfg.update_partition_path and cfg.operation == "upsert"):
        return tagged.withColumn("_hoodie_partition_path", F.coalesce(current, F.col("_hoodie_partition_path")))
    moved = current.isNotNull() & (current != F.col("_hoodie_partition_path"))
    tagged = tagged.withColumn("_hudi_moved", moved)
    gone = (tagged.filter("_hudi_moved").withColumn("_hoodie_partition_path", current)
            .withColumn(OP, F.lit(DELETE)))
    arrived = tagged.filter("_hudi_moved").withColumn(FG, F.lit(None).cast("string")).withColumn(OP, F.lit(INSERT))
    return tagged.filter(~F.col("_hudi_moved")).unionByName(gone).unionByName(arrived).drop("_hudi_moved")
