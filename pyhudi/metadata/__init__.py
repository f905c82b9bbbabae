"""The metadata table (.hoodie/metadata) of a table-version-8 table, as Apache Hudi 1.0 writes it.

Modules, lowest first: errors; hashing (XXHash64) and java_hash (String.hashCode, HashMap
order); keys (partition names, record keys, file groups); schema (HoodieMetadata.avsc); wrappers
(min/max values); records (MetadataRecord and its kinds), merge (Hudi's merge of two records),
codec (Avro binary); stats (column statistics of data files); layout (where the MDT lives, what
the data table lists); state (timeline snapshots); reader; contents (file bytes, write stats);
partition_stats; initialize, commit, catch_up, compaction, clean, validate; locks (build
heartbeat, hand-off lock); writer (MetadataWriter, the entry point). Which files form which file
slices is pyhudi.table.file_slices.
"""
from pyhudi.metadata.errors import MetadataRecordError, MetadataTableError
from pyhudi.metadata.keys import ALL_PARTITIONS_KEY, BLOOM_FILTERS, COLUMN_STATS, FILES, PARTITION_STATS, files_key
from pyhudi.metadata.layout import DEFAULT_PARTITIONS, SUPPORTED_PARTITIONS
from pyhudi.metadata.stats import column_stats_json
from pyhudi.metadata.writer import MetadataWriter
from pyhudi.storage import Storage
from pyhudi.table import properties
from pyhudi.table.file_slices import listing_from_storage


def of_table(path: str) -> MetadataWriter:
    """The metadata table of the table at `path` (a path or URI), with the default partitions: what `pyhudi
    metadata create|delete|...` and the create/delete_metadata_table procedures work on."""
    storage, base = Storage.for_uri(path)
    return MetadataWriter(storage, base, properties.load(storage, base))


__all__ = ["ALL_PARTITIONS_KEY", "BLOOM_FILTERS", "COLUMN_STATS", "DEFAULT_PARTITIONS", "FILES", "MetadataRecordError",
           "MetadataTableError", "MetadataWriter", "PARTITION_STATS", "SUPPORTED_PARTITIONS", "column_stats_json",
           "files_key", "listing_from_storage", "of_table"]
