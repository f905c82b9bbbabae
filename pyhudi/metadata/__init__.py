"""The metadata table (.hoodie/metadata): keys, records, writer, compaction, clean, validation."""
from pyhudi.metadata.records import ALL_PARTITIONS_KEY, FILES, column_stats_json, files_key
from pyhudi.metadata.table import MetadataTableError, MetadataWriter, listing_from_storage

__all__ = ["ALL_PARTITIONS_KEY", "FILES", "MetadataTableError", "MetadataWriter", "column_stats_json", "files_key",
           "listing_from_storage"]
