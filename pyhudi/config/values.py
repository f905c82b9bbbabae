"""Value sets of Apache Hudi's enumerated settings that pyhudi implements: the names Hudi takes, and for
some the name pyhudi works with. options.py defines the options over them."""
from __future__ import annotations

from pyhudi.config.parsers import OptionError, same

OPERATIONS = same("upsert", "insert", "bulk_insert", "delete", "insert_overwrite", "insert_overwrite_table",
                  "delete_partition")
TABLE_TYPES = {"copy_on_write": "COPY_ON_WRITE", "cow": "COPY_ON_WRITE",
               "merge_on_read": "MERGE_ON_READ", "mor": "MERGE_ON_READ"}
# org.apache.hudi.keygen.constant.KeyGeneratorType names pyhudi implements, with their classes;
# the *_AVRO variants compute the same keys and are recorded under their own name, as Hudi does
KEYGEN_CLASSES = {
    "SIMPLE": "org.apache.hudi.keygen.SimpleKeyGenerator",
    "SIMPLE_AVRO": "org.apache.hudi.keygen.SimpleAvroKeyGenerator",
    "COMPLEX": "org.apache.hudi.keygen.ComplexKeyGenerator",
    "COMPLEX_AVRO": "org.apache.hudi.keygen.ComplexAvroKeyGenerator",
    "TIMESTAMP": "org.apache.hudi.keygen.TimestampBasedKeyGenerator",
    "TIMESTAMP_AVRO": "org.apache.hudi.keygen.TimestampBasedAvroKeyGenerator",
    "CUSTOM": "org.apache.hudi.keygen.CustomKeyGenerator",
    "CUSTOM_AVRO": "org.apache.hudi.keygen.CustomAvroKeyGenerator",
    "NON_PARTITION": "org.apache.hudi.keygen.NonpartitionedKeyGenerator",
    "NON_PARTITION_AVRO": "org.apache.hudi.keygen.NonpartitionedAvroKeyGenerator",
}
KEYGEN_TYPES = same(*KEYGEN_CLASSES)
LOG_BLOCK_FORMATS = same("avro", "parquet")
# org.apache.hudi.execution.bulkinsert.BulkInsertSortMode
BULK_INSERT_SORT_MODES = same("NONE", "GLOBAL_SORT", "PARTITION_SORT", "PARTITION_PATH_REPARTITION",
                              "PARTITION_PATH_REPARTITION_AND_SORT")
# Parquet codec names as Hudi takes them -> as pyarrow writes them
CODECS = {**same("zstd", "gzip", "snappy", "lz4", "brotli"), "uncompressed": "none", "none": "none"}
INDEX_TYPES = same("SIMPLE", "GLOBAL_SIMPLE", "BLOOM", "GLOBAL_BLOOM", "BUCKET", "RECORD_INDEX")
BUCKET_ENGINES = same("SIMPLE")
VIEW_TYPES = same("MEMORY", "SPILLABLE_DISK", "REMOTE_FIRST", "REMOTE_ONLY")
# org.apache.hudi.common.config.RecordMergeMode: pyhudi merges by the ordering field when there is one
MERGE_MODES = same("EVENT_TIME_ORDERING", "COMMIT_TIME_ORDERING")
# the payload classes whose merging is one of those modes (HoodieTableConfig's inference of the mode)
PAYLOAD_MODES = {"org.apache.hudi.common.model.DefaultHoodieRecordPayload": "EVENT_TIME_ORDERING",
                 "org.apache.hudi.common.model.OverwriteWithLatestAvroPayload": "COMMIT_TIME_ORDERING"}
OTHER_PAYLOADS = tuple(f"org.apache.hudi.common.model.{name}" for name in (
    "EventTimeAvroPayload", "PartialUpdateAvroPayload", "OverwriteNonDefaultsWithLatestAvroPayload",
    "AWSDmsAvroPayload", "debezium.MySqlDebeziumAvroPayload", "debezium.PostgresDebeziumAvroPayload"))
TIMESTAMP_TYPES = same("UNIX_TIMESTAMP", "EPOCHMILLISECONDS", "DATE_STRING")


def keygen_type_of_class(key: str, raw: str) -> str:
    """A key generator class -> its KeyGeneratorType name."""
    by_class = {cls: name for name, cls in KEYGEN_CLASSES.items()}
    name = by_class.get(raw.strip())
    if name is None:
        raise OptionError(f"{key}={raw} is not supported yet; the key generators pyhudi implements: "
                          + ", ".join(KEYGEN_CLASSES.values()))
    return name
