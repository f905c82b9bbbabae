"""Table services run by a write after its commit, in Apache Hudi's order: compaction, log compaction and
clustering first, then cleaning and archival, each when its switch is on and its trigger says it is due."""
from __future__ import annotations

from typing import Mapping

from pyspark.sql import SparkSession

from pyhudi.config import options as o
from pyhudi.services import archival, clean, clustering, compaction, log_compaction


def run_after_write(spark: SparkSession, path: str, options: Mapping[str, str]) -> None:
    compaction.run_inline(spark, path, options)
    log_compaction.run_inline(spark, path, options)
    clustering.run_inline(spark, path, options)
    if o.CLEAN_AUTOMATIC.get(options):
        clean.clean_if_due(path, options)
    if o.ARCHIVE_AUTOMATIC.get(options):
        archival.archive_if_due(path, options)
