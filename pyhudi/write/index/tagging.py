"""Tagging (Apache Hudi's tagLocation): the batch joined with the keys an index found, each row given FG (the
file group holding its key, or null) and OP (U or D for a known key, I for a new one)."""
from __future__ import annotations

from pyspark.sql import DataFrame
from pyspark.sql import functions as F

from pyhudi.write.config import WriteConfig
from pyhudi.write.index.base import Index
from pyhudi.write.tagged import DELETE, FG, INSERT, OP, SQL_DELETE, UPDATE

BROADCAST_TAGGING_MAX_RECORDS = 1_000_000  # batches up to this size are broadcast to the key scan
# and the keys they find (at most one per incoming record) back to the batch, up to this size: the batch then
# keeps the write's partitioning, where a shuffle join would cut it into spark.sql.shuffle.partitions tasks
# that every later pass over the cached result runs
BROADCAST_FOUND_MAX_RECORDS = 200_000


def tag(incoming: DataFrame, existing: DataFrame | None, cfg: WriteConfig, records: int, index: Index,
        looked_up: bool = False) -> DataFrame:
    """`incoming` with FG (the key's file group, or null) and OP (U/D for a known key, I for a new
    one); `existing` None: nothing to look up (a new table, or an operation that only inserts);
    `index`: global ones match a key in any partition; `looked_up`: `existing` holds only keys of the batch (the record
    index's answer for them)."""
    if existing is None:
        untagged = incoming.withColumn(FG, F.lit(None).cast("string")).withColumn(OP, F.lit(INSERT))
        # deleting from a table with no records deletes nothing
        return untagged.filter(F.lit(False)) if cfg.operation == "delete" else untagged
    is_global = index.is_global
    if records <= BROADCAST_TAGGING_MAX_RECORDS and not looked_up:
        # a small batch's keys go to every task scanning the table's keys: no shuffle of those
        batch = incoming.select(F.col("_hoodie_record_key").alias("_hudi_bk"),
                                F.col("_hoodie_partition_path").alias("_hudi_bp"))
        hit = F.col("_hudi_k") == F.col("_hudi_bk")
        if not is_global:
            hit = hit & (F.col("_hudi_p") == F.col("_hudi_bp"))
        existing = existing.join(F.broadcast(batch), hit, "left_semi")
    if records <= BROADCAST_FOUND_MAX_RECORDS:
        existing = F.broadcast(existing)
    cond = F.col("_hoodie_record_key") == F.col("_hudi_k")
    if not is_global:
        cond = cond & (F.col("_hoodie_partition_path") == F.col("_hudi_p"))
    tagged = incoming.join(existing, cond, "left")
    known = F.lit(DELETE) if cfg.operation == "delete" else F.lit(UPDATE)
    op = F.when(F.col(FG).isNull(), F.lit(INSERT)).otherwise(known)
    tagged = tagged.withColumn(OP, op)
    if is_global:
        tagged = _to_current_partition(tagged, cfg, index.moves_records)
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


def _to_current_partition(tagged: DataFrame, cfg: WriteConfig, moves: bool) -> DataFrame:
    """Under a global index an existing key stays in the partition it lives in (_hudi_p); when the index
    `moves` records (its update.partition.path option) an upsert whose partition changed instead deletes the
    record there and inserts it in its new partition."""
    current = F.col("_hudi_p")
    if not (moves and cfg.operation == "upsert"):
        return tagged.withColumn("_hoodie_partition_path", F.coalesce(current, F.col("_hoodie_partition_path")))
    moved = current.isNotNull() & (current != F.col("_hoodie_partition_path"))
    tagged = tagged.withColumn("_hudi_moved", moved)
    gone = (tagged.filter("_hudi_moved").withColumn("_hoodie_partition_path", current)
            .withColumn(OP, F.lit(DELETE)))
    arrived = tagged.filter("_hudi_moved").withColumn(FG, F.lit(None).cast("string")).withColumn(OP, F.lit(INSERT))
    return tagged.filter(~F.col("_hudi_moved")).unionByName(gone).unionByName(arrived).drop("_hudi_moved")
