"""The connector's own read options (not Apache Hudi keys) that pyhudi's writes and services pass on their reads;
the connector defines the same keys in its read options (vectors: tests/conformance/read_option_keys.json)."""

# false: no check that a storage listing holds the newest file of every file group (it reads every commit)
CHECK_LISTED_FILES = "hudi-meta.check.listed.files"
COMPACTION_INSTANT = "hudi-meta.compaction.instant"  # the merged slices of this pending compaction plan
CLUSTERING_INSTANT = "hudi-meta.clustering.instant"  # the input slices of this pending clustering plan
LOG_COMPACTION_INSTANT = "hudi-meta.logcompaction.instant"  # the merged logs of this pending log compaction
RECORD_INDEX_MAX_KEYS = "hudi-meta.record.index.max.lookup.keys"  # record-index pruning's cap on keys
RECORD_INDEX_TRUSTED = "hudi-meta.record.index.trusted"  # prune by the record index where keys may repeat
