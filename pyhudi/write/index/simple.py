"""The simple index (Apache Hudi's SIMPLE and GLOBAL_SIMPLE): the file group of each incoming key,
found by joining the batch with the keys the table holds in the partitions it writes to (all
partitions for the global flavour, where a key keeps the partition it already lives in)."""
from __future__ import annotations

from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F

from pyhudi.write.config import WriteConfig
from pyhudi.write.index.base import Index, Lookup
from pyhudi.write.own_records import READ_OPTIONS, file_id_of
from pyhudi.write.tagged import FG


def existing_keys(spark: SparkSession, path: str, cfg: WriteConfig, partitions: list[str] | None,
                  is_global: bool) -> DataFrame:
    """(_hudi_k key, _hudi_p partition, FG file id) of the records the table holds in `partitions` (every
    partition under a global index)."""
    snap = spark.read.format("hudi-meta").options(**READ_OPTIONS).load(path)
    if not is_global and cfg.partition_fields:
        snap = snap.filter(F.col("_hoodie_partition_path").isin(partitions))
    return snap.select(F.col("_hoodie_record_key").alias("_hudi_k"), F.col("_hoodie_partition_path").alias("_hudi_p"),
                       file_id_of(F.col("_hoodie_file_name")).alias(FG))


class SimpleIndex(Index):
    name = "SIMPLE"
    learns_positions = True
    tags_in_driver = True

    def existing_keys(self, lookup: Lookup) -> DataFrame:
        return existing_keys(lookup.spark, lookup.path, self.cfg, lookup.partitions, self.is_global)


class GlobalSimpleIndex(SimpleIndex):
    """A key lives in one partition of the table: it is looked for in all of them."""
    name = "GLOBAL_SIMPLE"
    is_global = True
    tags_in_driver = False  # its keys may live in any partition: the driver reads only the batch's

    @property
    def moves_records(self) -> bool:
        return self.cfg.simple_update_partition_path
