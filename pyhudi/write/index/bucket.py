"""Apache Hudi's simple bucket index (hoodie.index.type=BUCKET).

Each partition holds a fixed number of buckets, one file group each, whose file id starts with
the bucket number (8 digits). A record's bucket is a hash of its key (Java's List<String>
hashCode, computed in the JVM by io.hudimeta.table.BucketIndex), so a write finds the file group of
every record without reading any key of the table: updates and inserts of an existing bucket go to
its file group (a log file on merge-on-read), those of a new bucket to a new file group.
"""
from __future__ import annotations

from pyspark.sql import Column, DataFrame, SparkSession
from pyspark.sql import functions as F

from pyhudi.config import options as o
from pyhudi.errors import HudiError
from pyhudi.table.file_slices import FileSlice
from pyhudi.write.config import BUCKET_PROPERTIES, WriteConfig
from pyhudi.write.index.base import Index
from pyhudi.write.index.tagging import sql_deletes
from pyhudi.write.jvm_functions import java_function
from pyhudi.write.tagged import DELETE, FG, INSERT, OP, UPDATE

BUCKET = "_hudi_bucket"
FUNCTION = "hudi_bucket_id"


class BucketLayoutError(HudiError, ValueError):
    pass


def table_properties(cfg: WriteConfig) -> dict[str, str]:
    """What a table created with a bucket index records in hoodie.properties, so that every later
    write hashes the same way (a different count would put a key in a second file group)."""
    return dict(zip(BUCKET_PROPERTIES, ("BUCKET", str(cfg.bucket_count), ",".join(cfg.bucket_hash_fields))))


def bucket_column(spark: SparkSession, cfg: WriteConfig) -> Column:
    """The bucket of each row's _hoodie_record_key."""
    bucket_id = java_function(spark, FUNCTION, "io.hudimeta.spark.bridge.BucketIdFunction", "int")
    return bucket_id(F.col("_hoodie_record_key"), F.lit(",".join(cfg.bucket_hash_fields)), F.lit(cfg.bucket_count))


def bucket_of(file_id: str) -> int | None:
    """The bucket a file id names ("00000003-...": 3), None when it names none."""
    head = file_id[:8]
    return int(head) if len(file_id) > 8 and file_id[8] == "-" and head.isdigit() else None


def _new_file_id_column(instant: str | None) -> Column:
    """A new bucket's file id as Hudi shapes it, <bucket, 8 digits><rest of a uuid>-0, computed
    where the rows are: the uuid part is the md5 of (instant, partition, bucket), so every task
    names the group alike and the batch needs no pass to learn which buckets are new. Without an
    instant (non-blocking concurrency control) every writer names a bucket alike, so two writers
    creating it make one file group (Hudi fixes the id per bucket for the same reason)."""
    h = F.md5(F.concat_ws("/", *([F.lit(instant)] if instant else []), F.col("_hoodie_partition_path"),
                          F.col(BUCKET).cast("string")))
    part = lambda start, length: F.substring(h, start, length)  # noqa: E731
    return F.concat(F.lpad(F.col(BUCKET).cast("string"), 8, "0"), F.lit("-"), part(1, 4), F.lit("-"), part(5, 4),
                    F.lit("-"), part(9, 4), F.lit("-"), part(13, 12), F.lit("-0"))


def existing_buckets(slices: list[FileSlice], cfg: WriteConfig) -> dict[tuple[str, int], str]:
    """(partition, bucket) -> file id of the buckets the slices' partitions hold. A file group that
    is not a bucket of this count means the table was laid out otherwise: writing by bucket would
    put keys it holds in a second file group, so that is an error."""
    found: dict[tuple[str, int], str] = {}
    for s in slices:
        partition, fid = s.partition, s.file_id
        bucket = bucket_of(fid)
        where = f"partition {partition!r}" if partition else "the table"
        if bucket is None or bucket >= cfg.bucket_count:
            raise BucketLayoutError(
                f"{where} holds file group {fid}, which is not one of {cfg.bucket_count} buckets: the table was "
                f"written with another index or bucket count; write with the table's own {o.INDEX_TYPE.key} and "
                f"{o.BUCKET_COUNT.key} (a bucket index is chosen when the table is created)")
        if (partition, bucket) in found:
            raise BucketLayoutError(f"{where} holds two file groups for bucket {bucket} ({found[partition, bucket]}, "
                                    f"{fid}); it was not written by a bucket index alone")
        found[partition, bucket] = fid
    return found


def locate(spark: SparkSession, incoming: DataFrame, existing: dict[tuple[str, int], str], operation: str,
           instant: str, fixed_ids: bool = False) -> DataFrame:
    """Adds FG and OP to every incoming row (which has BUCKET): the file group of its bucket, an
    existing one (U, or D for deletes) or a new one (I; named by partition and bucket alone with `fixed_ids`).
    Deletes of a bucket with no file group delete nothing and are dropped."""
    rows = [(p, b, fid) for (p, b), fid in existing.items()]
    mapping = spark.createDataFrame(rows or [("", -1, "")], "_hudi_mp string, _hudi_mb int, _hudi_mfg string")
    on = (F.col("_hoodie_partition_path") == F.col("_hudi_mp")) & (F.col(BUCKET) == F.col("_hudi_mb"))
    existing_op = F.lit(DELETE) if operation == "delete" else F.lit(UPDATE)
    located = (incoming.join(F.broadcast(mapping), on, "left")
               .withColumn(OP, F.when(F.col("_hudi_mfg").isNotNull(), existing_op).otherwise(F.lit(INSERT)))
               .withColumn(FG, F.coalesce(F.col("_hudi_mfg"),
                                          _new_file_id_column(None if fixed_ids else instant))))
    located = sql_deletes(located)
    if operation == "delete":
        located = located.filter(F.col(OP) == DELETE)
    return located.drop("_hudi_mp", "_hudi_mb", "_hudi_mfg", BUCKET)


class BucketIndex(Index):
    """A key's file group is its bucket's: tagging and placing are one hash, no key of the table is read."""
    name = "BUCKET"
    hashes_keys = True

    def table_properties(self) -> dict[str, str]:
        return table_properties(self.cfg)

    def keyed(self, spark: SparkSession, keyed: DataFrame) -> DataFrame:
        return keyed.withColumn(BUCKET, bucket_column(spark, self.cfg))

    def buckets(self, slices: list[FileSlice]) -> dict[tuple[str, int], str]:
        return existing_buckets(slices, self.cfg)

    def place(self, spark: SparkSession, incoming: DataFrame, existing: dict[tuple[str, int], str],
              instant: str, fixed_ids: bool) -> DataFrame:
        return locate(spark, incoming, existing, self.cfg.operation, instant, fixed_ids)
