"""One write and the table services its options run inline after its commit, in Apache Hudi's order:
compaction, log compaction and clustering first, then cleaning and archival, each when its switch is on and its
trigger says it is due. Every face of the writer (pyhudi.HudiTable, df.write, SQL, streaming) writes through
`write`: the write client commits, and the services run above it, writing through it in turn."""
from __future__ import annotations

from typing import Mapping

from pyspark.sql import DataFrame, SparkSession

from pyhudi.config import options as o
from pyhudi.services import archival, clean, clustering, compaction, log_compaction
from pyhudi.table import write_stat
from pyhudi.write.client import Writer


def write(spark: SparkSession, path: str, options: Mapping[str, str], df: DataFrame | None) -> write_stat.Counts:
    """Writes `df` (None: delete_partition) to the table at `path` as one instant, then runs the inline services;
    what the commit did (its instant, the records it inserted, updated and deleted)."""
    writer = Writer(spark, path, dict(options))
    writer.write(df)
    run_after_write(spark, path, options)
    assert writer.counts is not None  # set by writer.write
    return writer.counts


def run_after_write(spark: SparkSession, path: str, options: Mapping[str, str]) -> None:
    compaction.run_inline(spark, path, options)
    log_compaction.run_inline(spark, path, options)
    clustering.run_inline(spark, path, options)
    if o.CLEAN_AUTOMATIC.get(options):
        clean.clean_if_due(path, options)
    if o.ARCHIVE_AUTOMATIC.get(options):
        archival.archive_if_due(path, options)
