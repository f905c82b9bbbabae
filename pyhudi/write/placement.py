"""Where a write's records go: file groups for its new records, as Apache Hudi's UpsertPartitioner assigns
them (small existing base files first, in turn, then new file groups sized by hoodie.parquet.max.file.size),
and the base file a rewrite of each group merges (read by the executor that writes it)."""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable, Container

from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F

from pyhudi.config import options as o
from pyhudi.errors import HudiError
from pyhudi.table import file_names as filenames
from pyhudi.table.file_slices import FileSlice
from pyhudi.write.config import WriteConfig
from pyhudi.write.tagged import BASE, DELETE, FG, INSERT, OP, UPDATE


class ClusteringConflictError(HudiError, ValueError):
    """Records of a file group under pending clustering would change (Hudi's SparkRejectUpdateStrategy)."""


def refuse_updates_under_clustering(path: str, updated: list[tuple[str, str]], held: dict) -> None:
    """Fails a write that updates or deletes records of (partition, file id) groups a pending clustering rewrites."""
    hits = [k for k in updated if k in held]
    if hits:
        p, fid = hits[0]
        t = held[(p, fid)].requested_time
        raise ClusteringConflictError(
            f"this write updates records of file group {fid} in partition {p or '(none)'}, which the pending "
            f"clustering {t} rewrites ({o.CLUSTERING_UPDATES_STRATEGY.key}: updates are refused); run it "
            f"first (pyhudi cluster {path} --instant {t}) and write again")


def refuse_tagged_updates_under_clustering(path: str, tagged: DataFrame, held: dict) -> None:
    """refuse_updates_under_clustering for a tagged batch in Spark."""
    if held:
        hits = (tagged.filter(F.col(OP).isin(UPDATE, DELETE) & F.col(FG).isin([fid for _, fid in held]))
                .select("_hoodie_partition_path", FG).distinct().limit(3).collect())
        refuse_updates_under_clustering(path, [(p, fid) for p, fid in hits], held)


@dataclass(frozen=True)
class SmallFiles:
    """The base files of a write's partitions that can take new records."""
    cfg: WriteConfig
    slices: list[FileSlice]
    held: Container[tuple[str, str]]  # (partition, file id) under a pending compaction or clustering
    logs_ok: bool  # inserts may join file groups with log files (merge-on-read, an index that reads logs)
    size_of: Callable[[FileSlice], int]  # a base file's size when the listing did not say

    def pick(self, partition: str, per_file: int, records: int) -> tuple[list[str], int]:
        """Small base files of the partition that take `records` new records, as few as hold them (Hudi
        fills small files in turn): a small batch rewrites a few files, not every small file of a big
        partition. Merge-on-read: only slices without log files, whose records are their base file's,
        unless the index finds keys in log files (Hudi's delta-commit partitioner, canIndexLogFiles)."""
        cfg = self.cfg
        if cfg.operation not in ("upsert", "insert"):
            return [], 0
        small, capacity = [], 0
        for s in self.slices:
            if s.partition != partition or not s.base or (s.logs and not self.logs_ok) \
                    or (partition, s.file_id) in self.held:
                continue
            size = s.base_size if s.base_size is not None else self.size_of(s)
            if size < cfg.small_file_limit:
                small.append(s.file_id)
                capacity += max(0, (cfg.max_file_size - size) // max(1, cfg.record_size_estimate))
                if capacity >= records:
                    break
        return small, min(capacity, per_file * max(1, len(small)))


def insert_groups(small: SmallFiles, counts: dict[str, int]) -> dict[str, list[str]]:
    """partition -> the file groups its `counts[partition]` new records spread over: small files, then new ones."""
    cfg = small.cfg
    per_file = max(1, cfg.max_file_size // max(1, cfg.record_size_estimate))
    buckets: dict[str, list[str]] = {}
    for partition, n in counts.items():
        picked, capacity = small.pick(partition, per_file, n)
        need_new = 0 if capacity >= n else math.ceil((n - capacity) / per_file)
        buckets[partition] = picked + [filenames.new_file_id() for _ in range(need_new)]
    return buckets


def assign_inserts(spark: SparkSession, tagged: DataFrame, small: SmallFiles
                   ) -> tuple[DataFrame, dict[str, list[str]]]:
    """FG for new records (OP = I): small files first, then new file groups; (rows, partition -> groups)."""
    counts = {r[0]: r[1] for r in tagged.filter(F.col(OP) == INSERT)
              .groupBy("_hoodie_partition_path").count().collect()}
    if not counts:
        return tagged, {}
    buckets = insert_groups(small, counts)
    rows = [(p, i, fg) for p, fgs in buckets.items() for i, fg in enumerate(fgs)]
    mapping = spark.createDataFrame(rows, "_hudi_mp string, _hudi_mi int, _hudi_mfg string")
    sizes = spark.createDataFrame([(p, len(f)) for p, f in buckets.items()], "_hudi_sp string, _hudi_sn int")
    bucket = F.pmod(F.xxhash64("_hoodie_record_key"), F.col("_hudi_sn")).cast("int")
    assigned = (tagged.join(F.broadcast(sizes), F.col("_hoodie_partition_path") == F.col("_hudi_sp"), "left")
                .withColumn("_hudi_bi", F.when(F.col(OP) == INSERT, bucket))
                .join(F.broadcast(mapping), (F.col("_hoodie_partition_path") == F.col("_hudi_mp"))
                      & (F.col("_hudi_bi") == F.col("_hudi_mi")), "left")
                .withColumn(FG, F.coalesce(F.col(FG), F.col("_hudi_mfg")))
                .drop("_hudi_sp", "_hudi_sn", "_hudi_bi", "_hudi_mp", "_hudi_mi", "_hudi_mfg"))
    return assigned, buckets


def with_base_files(spark: SparkSession, tagged: DataFrame, slices: list[FileSlice]) -> DataFrame:
    """Every row learns its group's current base file (BASE): the file a rewrite of the group merges."""
    base_of = {s.file_id: s.base for s in slices}
    bases = spark.createDataFrame([(k, v) for k, v in base_of.items()] or [("", None)],
                                  f"{FG}_b string, {BASE} string")
    return tagged.join(F.broadcast(bases), F.col(FG) == F.col(f"{FG}_b"), "left").drop(f"{FG}_b")
