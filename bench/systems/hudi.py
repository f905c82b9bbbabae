"""pyhudi (writes), hudi-meta (reads through Spark) and hudi-rs (reads in Rust) on one table layout.

Settings (Apache Hudi's keys; everything else is pyhudi's default, which follows Apache Hudi's):
record key `id`, ordering (precombine) field `updated_at`, partition path field `day` (simple key
generator, partition directories named by value), the bucket index (Apache Hudi's recommendation
for upsert-heavy tables: a record's file group follows from a hash of its key, so an upsert reads
no key of the table), Parquet base files compressed with zstd (hoodie.parquet.compression.codec
default), Avro log blocks for merge-on-read updates, the metadata table on (files, column_stats,
partition_stats, bloom_filters), which hudi-meta uses for listing and data skipping.
"""
from __future__ import annotations

import os

import pyarrow as pa

from bench import datagen

TABLE_NAME = "bench"
# Hudi sizes a bucket like a file group: the partition's size at its per-record estimate
# (hoodie.copyonwrite.record.size.estimate, 1 KB) over the max base file size (120 MB). The largest
# partition here, 100k rows at medium scale, comes to ~100 MB by that estimate (9.6 MB written): 1 bucket.
BUCKETS = 1
OPTIONS = {
    "hoodie.table.name": TABLE_NAME,
    "hoodie.datasource.write.recordkey.field": datagen.KEY,
    "hoodie.datasource.write.precombine.field": datagen.ORDERING,
    "hoodie.datasource.write.partitionpath.field": datagen.PARTITION,
    "hoodie.index.type": "BUCKET",
    "hoodie.bucket.index.num.buckets": str(BUCKETS),
}
TABLE_TYPES = {"COW": "COPY_ON_WRITE", "MOR": "MERGE_ON_READ"}
SETTINGS = (f"bucket index (hoodie.index.type=BUCKET, hoodie.bucket.index.num.buckets={BUCKETS}: a partition of "
            "100k rows is one 120 MB file group at Hudi's 1 KB per-record estimate), otherwise "
            "pyhudi defaults: zstd Parquet base files (hoodie.parquet.compression.codec), "
            "120 MB max base file, Avro log blocks, metadata table written by every commit "
            "(hoodie.metadata.enable, default true: files, column_stats, partition_stats, bloom_filters); "
            "keys: recordkey.field=id, precombine.field=updated_at, partitionpath.field=day. hudi-meta reads with "
            "its defaults: file listing from the metadata table, data skipping on column_stats/partition_stats "
            "(hoodie.enable.data.skipping, default true). hudi-rs reads with its defaults")


# ---- pyhudi -------------------------------------------------------------------------------------

# a bulk load as Apache Hudi's quick start does it: the default (SIMPLE) index, so each input task writes its
# own files (hoodie.bulkinsert.sort.mode=NONE, the default); the bucket index sends each bucket to one task
SIMPLE_INDEX = {"hoodie.index.type": "SIMPLE"}
SIMPLE_SETTINGS = "hoodie.index.type=SIMPLE, hoodie.bulkinsert.sort.mode=NONE (the defaults), otherwise as above"
# the same, base files written in the JVM by the row writer (pyhudi.write.row_writer) instead of Python workers
ROW_WRITER = {**SIMPLE_INDEX, "hoodie.datasource.write.row.writer.enable": "true"}
ROW_WRITER_SETTINGS = SIMPLE_SETTINGS + ", hoodie.datasource.write.row.writer.enable=true"


def write(spark, path: str, source_dir: str, operation: str, table_type: str = "COW",
          extra: dict[str, str] | None = None) -> str:
    """One pyhudi write of the staged Parquet `source_dir` (read by Spark) to the table at `path`."""
    from pyhudi.hudi_table import HudiTable

    options = {**OPTIONS, "hoodie.datasource.write.table.type": TABLE_TYPES[table_type], **(extra or {})}
    df = spark.read.parquet(source_dir)
    return getattr(HudiTable(spark, path, options), operation)(df)


# ---- hudi-meta ----------------------------------------------------------------------------------

def meta_df(spark, path: str):
    return spark.read.format("hudi-meta").load(path)


# ---- hudi-rs ------------------------------------------------------------------------------------

def rs_table(path: str):
    from hudi import HudiTableBuilder

    return HudiTableBuilder.from_base_uri(path).build()


def rs_filters(predicate: list[tuple[str, str, object]]) -> list[tuple[str, str, str]]:
    return [(c, op, str(v)) for c, op, v in predicate]


def rs_read(path: str, predicate: list[tuple[str, str, object]] | None = None) -> tuple[pa.Table, int]:
    """(rows, files opened): hudi-rs prunes file slices (partition values, then base-file footer
    statistics on copy-on-write tables) and filters rows itself."""
    from hudi import HudiReadOptions

    table = rs_table(path)
    options = HudiReadOptions(filters=rs_filters(predicate or []))
    batches = table.read(options)
    rows = pa.Table.from_batches(batches) if batches else table.get_schema_with_meta_fields().empty_table()
    return rows, rs_files(table, options)


def rs_files(table, options=None) -> int:
    slices = table.get_file_slices(options)
    return sum((1 if s.base_file_name else 0) + len(s.log_files_relative_paths()) for s in slices)


def base_files(path: str) -> list[str]:
    """Absolute paths of the base files of the table's latest file slices (read by hudi-rs's
    file-system view)."""
    table = rs_table(path)
    return sorted(os.path.join(path, s.base_file_relative_path()) for s in table.get_file_slices()
                  if s.base_file_name)


def log_file_count(path: str) -> int:
    return sum(len(s.log_files_relative_paths()) for s in rs_table(path).get_file_slices())


def row_count(path: str, spark=None) -> int:
    """Rows of the table's snapshot, counted by hudi-rs (an independent reader); by hudi-meta
    when hudi-rs is not installed."""
    import importlib.util

    if importlib.util.find_spec("hudi") is None and spark is not None:
        return meta_df(spark, path).count()
    from hudi import HudiReadOptions

    return sum(b.num_rows for b in rs_table(path).read_stream(HudiReadOptions(projection=[datagen.KEY])))
