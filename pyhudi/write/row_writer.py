"""bulk_insert's row writer (Apache Hudi's `hoodie.datasource.write.row.writer.enable`, off by default here): each
input task writes its rows into new base files in the JVM with parquet-mr (io.hudimeta.write.BulkInsertRowWriter),
so the rows never cross to Python workers. Files, markers and write stats are the ones pyhudi.write.bulk_insert
writes in Python; the footer has Hudi's key entries (bloom filter, min/max key) beside Spark's own, as Apache
Hudi's row writer leaves it, and no Avro schema (docs/format.md §8.1). It takes about 15% less CPU than the Python
path but, on few cores, longer: a task's Python worker runs beside its JVM thread, which keeps every core busy in
the last, uneven wave of tasks (bench/results/medium/analysis.md).

Taken when every column's type has the same Parquet layout from Spark's writer as from pyhudi's Arrow writer
(strings, binaries, 32/64-bit integers, floats, doubles, booleans, dates, microsecond timestamps: docs/format.md
§8.1) and the table is on storage Hadoop's own file systems reach (local disk, HDFS); otherwise None, and
bulk_insert writes in Python. Column statistics for the metadata table are read back from the written footers."""
from __future__ import annotations

import posixpath
from urllib.parse import urlparse

import pyarrow as pa
import pyarrow.parquet as pq
from pyspark.sql import Column, DataFrame
from pyspark.sql import functions as F
from pyspark.sql import types as T

from pyhudi import metadata
from pyhudi.basefile import bloom
from pyhudi.basefile import parquet as base_file
from pyhudi.storage import Storage
from pyhudi.table.write_stat import WriteStat
from pyhudi.write.executor import WriteTask

PARTITION, KEY = "_hoodie_partition_path", "_hoodie_record_key"
SCHEMES = ("", "file", "hdfs")  # what Hadoop's client reaches without extra jars or credentials
_TYPES = {pa.string(): T.StringType(), pa.large_string(): T.StringType(), pa.binary(): T.BinaryType(),
          pa.large_binary(): T.BinaryType(), pa.int32(): T.IntegerType(), pa.int64(): T.LongType(),
          pa.float32(): T.FloatType(), pa.float64(): T.DoubleType(), pa.bool_(): T.BooleanType(),
          pa.date32(): T.DateType()}
# input types Spark widens to a field's type without loss (anything else goes through Python's checked cast)
_WIDENS = {"int": ("tinyint", "smallint"), "bigint": ("tinyint", "smallint", "int"), "double": ("float",)}
# pyarrow's codec names (as WriteTask holds them) -> parquet-mr's, for the codecs parquet-mr has without extra jars
# (pyarrow's "lz4" is the LZ4_RAW codec); brotli goes through Python
CODECS = {"zstd": "zstd", "snappy": "snappy", "gzip": "gzip", "none": "uncompressed", "lz4": "lz4_raw"}
ROW_GROUP_BYTES = 120 << 20  # hoodie.parquet.block.size's default
PAGE_BYTES = 1 << 20  # hoodie.parquet.page.size's default


def write(df: DataFrame, task: WriteTask, max_file_size: int) -> list[WriteStat] | None:
    """The arranged, keyed batch `df` written as new base files; their write stats. None when the row writer
    cannot take this schema or storage."""
    if urlparse(task.base_uri).scheme not in SCHEMES or task.compression not in CODECS:
        return None
    _, arrow = base_file.file_schemas(task.writer_schema)
    spark_schema = _spark_schema(arrow)
    data = _data_columns(df, spark_schema)
    if spark_schema is None or data is None:
        return None
    jvm = df.sparkSession._jvm
    assert jvm is not None  # a live session has its JVM (SparkSession.__init__ asserts it)
    out = jvm.io.hudimeta.write.BulkInsertRowWriter.write(
        df.select(F.col(KEY).cast("string"), F.col(PARTITION).cast("string"), *data)._jdf, task.base_uri,
        task.instant, spark_schema.json(), CODECS[task.compression], max_file_size, ROW_GROUP_BYTES,
        PAGE_BYTES, bloom.DYNAMIC_V0, bloom.DEFAULT_NUM_ENTRIES, bloom.DEFAULT_FPP, bloom.DEFAULT_DYNAMIC_MAX_ENTRIES)
    rows = [r.asDict() for r in DataFrame(out, df.sparkSession).collect()]
    storage, base = Storage.for_uri(task.base_uri)
    return [_stat(r, storage, base, arrow) for r in rows]


def _spark_schema(arrow: pa.Schema) -> T.StructType | None:
    """The Spark schema of the file (meta columns first), or None when a type is not one the row writer takes."""
    out = T.StructType()
    for f in arrow:
        spark_type = _spark_type(f.type)
        if spark_type is None:
            return None
        out.add(f.name, spark_type, f.nullable)
    return out


def _spark_type(t: pa.DataType) -> T.DataType | None:
    if pa.types.is_timestamp(t):
        return None if t.unit != "us" else (T.TimestampType() if t.tz else T.TimestampNTZType())
    return _TYPES.get(t)


def _data_columns(df: DataFrame, spark_schema: T.StructType | None) -> list[Column] | None:
    """The writer schema's data columns from `df`, typed as the file stores them; a missing nullable column as
    nulls, a null in a non-nullable one an error. None when a column needs a cast that may fail or lose values
    (pyhudi's Arrow writer checks those), or a non-nullable column is missing."""
    if spark_schema is None:
        return None
    given = {f.name: f.dataType.simpleString() for f in df.schema.fields}
    cols = []
    for field in spark_schema.fields[5:]:
        target = field.dataType.simpleString()
        if field.name not in given:
            if not field.nullable:
                return None
            cols.append(F.lit(None).cast(field.dataType).alias(field.name))
            continue
        if given[field.name] != target and given[field.name] not in _WIDENS.get(target, ()):
            return None
        col = F.col(field.name).cast(field.dataType)
        if not field.nullable:
            col = F.when(col.isNull(), F.raise_error(F.lit(f"column {field.name!r} is not nullable but has "
                                                              "a null"))).otherwise(col)
        cols.append(col.alias(field.name))
    return cols


def _stat(row: dict, storage: Storage, base: str, arrow: pa.Schema) -> WriteStat:
    footer = pq.ParquetFile(storage.fs.open_input_file(posixpath.join(base, row["path"]))).metadata
    n = row["num_records"]
    return WriteStat(
        partition=row["partition"], file_id=row["file_id"], path=row["path"], prev_commit="null", num_writes=n,
        num_inserts=n, num_update_writes=0, num_deletes=0, file_size=row["file_size"], min_key=row["min_key"],
        max_key=row["max_key"], column_stats=metadata.column_stats_json(arrow, footer), bloom=row["bloom"])
