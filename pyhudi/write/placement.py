"""Where a write's records go: file groups for its new records, as Apache Hudi's UpsertPartitioner assigns
them (small existing base files first, in turn, then new file groups sized by hoodie.parquet.max.file.size),
and the base file a rewrite of each group merges (read by the executor that writes it)."""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable, Container

from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F

from pyhudi.table import file_names as filenames
from pyhudi.table.file_slices import FileSlice
from pyhudi.write.config import WriteConfig
from pyhudi.write.executor import BASE, FG, INSERT, OP


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


def assign_inserts(spark: SparkSession, tagged: DataFrame, small: SmallFiles
                   ) -> tuple[DataFrame, dict[str, list[str]]]:
    """FG for new records (OP = I): small files first, then new file groups; (rows, partition -> groups)."""
    cfg = small.cfg
    counts = {r[0]: r[1] for r in tagged.filter(F.col(OP) == INSERT)
              .groupBy("_hoodie_partition_path").count().collect()}
    if not counts:
        return tagged, {}
    per_file = max(1, cfg.max_file_size // max(1, cfg.record_size_estimate))
    buckets: dict[str, list[str]] = {}
    for partition, n in counts.items():
        picked, capacity = small.pick(partition, per_file, n)
        need_new = 0 if capacity >= n else math.ceil((n - capacity) / per_file)
        buckets[partition] = picked + [filenames.new_file_id() for _ in range(need_new)]
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
