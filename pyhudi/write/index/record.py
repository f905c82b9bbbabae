"""The record index as an index (Apache Hudi's RECORD_INDEX): each incoming key's location read from the
metadata table's record_index partition, by executors seeking its HFiles for their sorted keys, or from the
driver for a small batch. Until the partition is built a write finds its keys by reading them, as
GLOBAL_SIMPLE does, and builds it."""
from __future__ import annotations

import json
import logging

import pyarrow as pa
from pyspark.sql import DataFrame, SparkSession

from pyhudi.config import OptionError
from pyhudi.config import options as o
from pyhudi.metadata.keys import RECORD_INDEX
from pyhudi.metadata.layout import completed_partitions
from pyhudi.write.index import simple
from pyhudi.write.index.base import Hits, Index, Lookup
from pyhudi.write.jvm_functions import driver_call

log = logging.getLogger(__name__)


def locate(spark: SparkSession, table_uri: str, options: dict[str, str], keys: DataFrame) -> DataFrame:
    """(_hudi_k, _hudi_p, FG) of the keys of `keys` (column _hudi_bk) the record index holds, looked up on
    executors by the connector (each task seeks its file group's HFiles for its sorted keys)."""
    jvm = spark._jvm
    assert jvm is not None  # a live session has its JVM (SparkSession.__init__ asserts it)
    jopts = jvm.java.util.HashMap()
    for k, v in options.items():
        jopts.put(k, str(v))
    # the connector names the file id column FG already (RecordIndex.FILE_ID_COLUMN): no rename to analyse
    return DataFrame(jvm.io.hudimeta.index.RecordIndex.locate(spark._jsparkSession, table_uri, jopts, keys._jdf), spark)


def record_index_hits(spark: SparkSession, path: str, options: dict[str, str], batch: pa.Table) -> Hits | None:
    """Where the record index holds the batch's keys, looked up from the driver; None when a key lives in
    another partition than the batch gives it."""
    keys = batch.column("_hoodie_record_key").to_pylist()
    assert spark._jvm is not None  # a live session has its JVM (SparkSession.__init__ asserts it)
    found = json.loads(driver_call(spark._jvm.io.hudimeta.index.RecordIndex.lookupJson,
                                   path, {k: str(v) for k, v in options.items()}, json.dumps(sorted(set(keys)))))
    hits = {}
    for k, p in zip(keys, batch.column("_hoodie_partition_path").to_pylist()):
        if k in found:
            if found[k]["partition"] != p:
                return None
            hits[(k, p)] = found[k]["fileId"]
    return hits


class RecordIndex(Index):
    name = "RECORD_INDEX"
    is_global = True
    tags_in_driver = True

    def check(self) -> None:
        if not self.cfg.metadata_enabled:
            raise OptionError(f"{o.INDEX_TYPE.key}=RECORD_INDEX looks keys up in the metadata table, which "
                              f"{o.METADATA_ENABLE.key}=false turns off; enable it or choose another index type")

    def can_index_log_files(self) -> bool:
        return True

    @property
    def moves_records(self) -> bool:
        return self.cfg.record_update_partition_path

    def metadata_partitions(self) -> tuple[str, ...]:
        return (RECORD_INDEX,)

    def located(self, spark: SparkSession, path: str, options: dict[str, str], props: dict[str, str],
                incoming: DataFrame) -> DataFrame | None:
        if RECORD_INDEX not in completed_partitions(props):
            return None
        return locate(spark, path, options, incoming.select(incoming["_hoodie_record_key"].alias("_hudi_bk")))

    def driver_hits(self, spark: SparkSession, path: str, options: dict[str, str], props: dict[str, str],
                    batch: pa.Table, finds: bool) -> tuple[bool, Hits | None]:
        """Not in the driver when a key lives in another partition than the batch's: the executors' path plans
        that partition too, and moves or redirects the key."""
        if not finds:
            return True, {}
        hits = record_index_hits(spark, path, options, batch) if RECORD_INDEX in completed_partitions(props) else None
        return hits is not None, hits

    def existing_keys(self, lookup: Lookup) -> DataFrame:
        log.info("the record index of %s is not built yet: this write finds its keys by reading them "
                 "(as GLOBAL_SIMPLE) and builds it", lookup.path)
        return simple.existing_keys(lookup.spark, lookup.path, self.cfg, None, True)
