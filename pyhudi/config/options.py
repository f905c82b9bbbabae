"""The options pyhudi honours, each defined once: Apache Hudi's key (and the older keys Hudi still
accepts for it), the default, the parser and what it does. Defaults are Apache Hudi 1.x's for a
Spark writer unless the doc says why pyhudi's differs. Code reads an option through its
constant (`TABLE_NAME.get(options)`), never through a key literal.
"""
from __future__ import annotations

from pyhudi.config.option import REGISTRY, Option, define, honoured  # noqa: F401 (the catalogue's face)
from pyhudi.config.parsers import boolean, choice, fields, number, off, only, real, same, text
from pyhudi.config.values import (
    BUCKET_ENGINES,
    BULK_INSERT_SORT_MODES,
    CODECS,
    INDEX_TYPES,
    KEYGEN_TYPES,
    LOG_BLOCK_FORMATS,
    MERGE_MODES,
    OPERATIONS,
    OTHER_PAYLOADS,
    PAYLOAD_MODES,
    TABLE_TYPES,
    TIMESTAMP_TYPES,
    VIEW_TYPES,
    keygen_type_of_class,
)

W = "hoodie.datasource.write."
TIMEBASED = "hoodie.keygen.timebased."
OLD_TIMEBASED = "hoodie.deltastreamer.keygen.timebased."  # Hudi's older prefix, still accepted
C = "hoodie.clustering."


TASKS = number(0, "a number of tasks (0 = automatic)")

# ---- table and keys --------------------------------------------------------------------------

TABLE_NAME = define("hoodie.table.name", None, text, "Name of the table; required to create one "
                     "(pyhudi also takes Hudi's datasource key for it).", W + "table.name")
DATABASE_NAME = define("hoodie.database.name", "default", text,
                        "Database the table belongs to, recorded in hoodie.properties when the table is created "
                        "(Hudi's Spark writer records its session's database, 'default'); later writes may not "
                        "name another.")
TABLE_TYPE = define(W + "table.type", "COPY_ON_WRITE", choice(TABLE_TYPES),
                     "COPY_ON_WRITE or MERGE_ON_READ; fixed when the table is created.", W + "storage.type")
OPERATION = define(W + "operation", "upsert",
                    choice(OPERATIONS, ("insert_prepped", "upsert_prepped", "bulk_insert_prepped", "delete_prepped",
                                        "bootstrap", "cluster", "compact", "alter_schema")),
                    "The write operation.")
RECORD_KEY_FIELDS = define(W + "recordkey.field", None, fields, "Record key column(s); required.")
PARTITION_FIELDS = define(W + "partitionpath.field", (), fields,
                           "Partition column(s); with the custom key generator each as field:SIMPLE or "
                           "field:TIMESTAMP.")
PRECOMBINE_FIELD = define(W + "precombine.field", None, text,
                           "Ordering column: of two records with one key, the greater value wins (no ordering "
                           "column: the later write wins).")
MERGE_MODE = define("hoodie.write.record.merge.mode", None, choice(MERGE_MODES, ("CUSTOM",)),
                     "How two records of one key merge: EVENT_TIME_ORDERING (the greater ordering value wins; needs "
                     "an ordering field) or COMMIT_TIME_ORDERING (the later write wins; no ordering field). pyhudi "
                     "takes the mode the ordering field gives, so this only confirms it.", "hoodie.record.merge.mode")
PAYLOAD_CLASS = define(W + "payload.class", None, choice(same(*PAYLOAD_MODES), OTHER_PAYLOADS),
                        "Hudi's payload class, as the merge mode it means: DefaultHoodieRecordPayload "
                        "(EVENT_TIME_ORDERING) or OverwriteWithLatestAvroPayload (COMMIT_TIME_ORDERING); others "
                        "are not supported.", "hoodie.compaction.payload.class")
ORDERING_FIELDS = define("hoodie.table.ordering.fields", None, text,
                          "Hudi 1.1's table-level name of the ordering column.", "hoodie.table.precombine.field")
HIVE_STYLE = define(W + "hive_style_partitioning", False, boolean,
                     "Partition folders named field=value instead of value.")
URL_ENCODE = define(W + "partitionpath.urlencode", False, boolean,
                     "Escape characters of partition values that are special in paths (%XX).")
KEYGEN_CLASS = define(W + "keygenerator.class", None, keygen_type_of_class,
                       "Key generator class (org.apache.hudi.keygen.*); inferred from the key and partition "
                       "fields when absent, as Hudi does.")
KEYGEN_TYPE = define(W + "keygenerator.type", None, choice(KEYGEN_TYPES),
                      "Key generator by its KeyGeneratorType name (the class takes precedence).")
TS_TYPE = define(TIMEBASED + "timestamp.type", None,
                  choice(TIMESTAMP_TYPES, ("MIXED", "EPOCHMICROSECONDS", "SCALAR")),
                  "How the timestamp key generator reads the partition column.", OLD_TIMEBASED + "timestamp.type")
TS_OUTPUT_FORMAT = define(TIMEBASED + "output.dateformat", "yyyy-MM-dd", text,
                           "Partition path pattern of the timestamp key generator.",
                           OLD_TIMEBASED + "output.dateformat")
TS_INPUT_FORMAT = define(TIMEBASED + "input.dateformat", "yyyy-MM-dd HH:mm:ss", text,
                          "Pattern of DATE_STRING partition values.", OLD_TIMEBASED + "input.dateformat")
TS_TIMEZONE = define(TIMEBASED + "timezone", "UTC", text, "Time zone of the partition path.",
                      OLD_TIMEBASED + "timezone")
TIMESTAMP_OPTIONS = (TS_TYPE, TS_OUTPUT_FORMAT, TS_INPUT_FORMAT, TS_TIMEZONE)
PARTITIONS_TO_DELETE = define(W + "partitions.to.delete", (), fields, "Partition paths delete_partition drops.")
COMMIT_METADATA_PREFIX = define(W + "commitmeta.key.prefix", "_", text,
                                 "Write options whose keys start with this prefix go into the commit's extraMetadata "
                                 "(the streaming sink's checkpoint goes there whatever the prefix).")

# ---- change data capture ---------------------------------------------------------------------

CDC_ENABLED = define("hoodie.table.cdc.enabled", False, boolean,
                      "Writes that rewrite a base file also write its changes to a CDC log file (`.cdc`), as "
                      "Apache Hudi does; fixed when the table is created.")
# HoodieCDCSupplementalLoggingMode names, with the spellings of Hudi 0.13
CDC_MODES = {**same("OP_KEY_ONLY", "DATA_BEFORE", "DATA_BEFORE_AFTER"), "cdc_op_key": "OP_KEY_ONLY",
             "cdc_data_before": "DATA_BEFORE", "cdc_data_before_after": "DATA_BEFORE_AFTER"}
CDC_LOGGING_MODE = define("hoodie.table.cdc.supplemental.logging.mode", "DATA_BEFORE_AFTER", choice(CDC_MODES),
                           "What CDC log records hold: OP_KEY_ONLY (op, record_key), DATA_BEFORE (and the before "
                           "image) or DATA_BEFORE_AFTER (op, ts_ms, before and after images).")
CDC_PROPERTIES = (CDC_ENABLED, CDC_LOGGING_MODE)  # kept in hoodie.properties under these keys

# ---- files -----------------------------------------------------------------------------------

SMALL_FILE_LIMIT = define("hoodie.parquet.small.file.limit", 104857600, number(0, "a size in bytes"),
                           "Base files smaller than this take new records (copy-on-write upserts and inserts).")
ALLOW_DUPLICATE_ON_INSERTS = define("hoodie.merge.allow.duplicate.on.inserts", True, boolean,
                                     "An insert into a file group that holds the key keeps both records (Hudi's "
                                     "concat handle, as INSERT INTO does); false: the insert replaces it.")
BYTES = number(1, "a size in bytes, at least 1")
MAX_FILE_SIZE = define("hoodie.parquet.max.file.size", 125829120, BYTES, "Target size of base files.")
RECORD_SIZE_ESTIMATE = define("hoodie.copyonwrite.record.size.estimate", 1024, BYTES,
                               "Estimated bytes per record, to size new file groups.")
LOG_BLOCK_FORMAT = define("hoodie.logfile.data.block.format", "avro", choice(LOG_BLOCK_FORMATS),
                           "Format of log data blocks (merge-on-read).")
WRITE_RECORD_POSITIONS = define("hoodie.write.record.positions", True, boolean,
                                 "Log blocks of updates and deletes carry the base-file row positions of their "
                                 "records (RECORD_POSITIONS), so readers merge them by position instead of by key.")
SMALL_BATCH_MAX_RECORDS = define(
    "pyhudi.write.small.batch.max.records", 100_000, number(0, "a number of records (0: never)"),
    "An upsert, insert or delete of at most this many records (no CDC log kept; tagged by the record index, or "
    "by the SIMPLE or BLOOM index with at most 200 file slices in its partitions) is tagged and written in the "
    "driver after one Spark job over the batch, instead of a dozen jobs on executors, when the base files it "
    "would read or rewrite are few (pyhudi.write.small.batch.max.file.bytes).")
SMALL_BATCH_MAX_FILE_BYTES = define(
    "pyhudi.write.small.batch.max.file.bytes", 128 << 20, number(0, "a size in bytes"),
    "A small batch is written in the driver only while the base files of the partitions it touches (whose keys "
    "the SIMPLE and BLOOM indexes read there, and which copy-on-write merges rewrite) hold at most this many "
    "bytes; a merge-on-read batch tagged by the record index reads and rewrites none (its records go to log "
    "files). Past it the executors share that work.")
COMPRESSION = define("hoodie.parquet.compression.codec", "zstd", choice(CODECS, ("lzo",)),
                      "Parquet codec of base files (zstd: Hudi's default on Spark 3.5 and newer).")

# ---- index -----------------------------------------------------------------------------------

INDEX_TYPE = define("hoodie.index.type", "SIMPLE",
                     choice(INDEX_TYPES, ("HBASE", "INMEMORY", "FLINK_STATE")),
                     "How writes find the file group of existing keys. SIMPLE: read the keys of the partitions "
                     "written to; BLOOM: read only the keys of files whose key range and bloom filter may hold an "
                     "incoming key; GLOBAL_SIMPLE, GLOBAL_BLOOM: the same over every partition (global: a key lives "
                     "in one partition of the table); BUCKET: hash each key to a fixed file group; RECORD_INDEX: "
                     "look keys up in the metadata table's record index (global); turns "
                     "hoodie.metadata.record.index.enable on.")
BLOOM_PRUNE_BY_RANGES = define("hoodie.bloom.index.prune.by.ranges", True, boolean,
                                "BLOOM: skip files (and log blocks) whose min/max record key excludes a key "
                                "before testing their bloom filter.")
BLOOM_USE_METADATA = define(
    "hoodie.bloom.index.use.metadata", False, boolean,
    "BLOOM: base files tested by their bloom filters in the metadata table's bloom_filters partition, not their "
    "footers: a file whose filter excludes every key is not opened; key ranges do not prune. Footers are read "
    "when the partition is not built or the metadata table lags.")
BLOOM_INDEX_LOG_FILES = define(
    "pyhudi.bloom.index.log.files.enable", False, boolean,
    "pyhudi's log-file indexing (RFC-06), merge-on-read with hoodie.index.type=BLOOM: inserts join the log files of "
    "small file groups instead of new base files, Parquet log data blocks (unless "
    "hoodie.logfile.data.block.format is given) carry a bloom filter and min/max keys in their footer, and bloom "
    "lookups skip log blocks whose summary excludes every key. pyhudi's own key (Apache Hudi's "
    "bloom index does not look in log files): leave it off for tables Hudi's writers also write to.")
SIMPLE_INDEX_UPDATE_PARTITION_PATH = define(
    "hoodie.simple.index.update.partition.path", True, boolean,
    "Under GLOBAL_SIMPLE, a record whose partition changed is deleted from its old partition and inserted in the "
    "new one (false: the update stays in the partition the key lives in).")
BLOOM_INDEX_UPDATE_PARTITION_PATH = define(
    "hoodie.bloom.index.update.partition.path", True, boolean,
    "Under GLOBAL_BLOOM, a record whose partition changed is deleted from its old partition and inserted in the "
    "new one (false: the update stays in the partition the key lives in).")
RECORD_INDEX_UPDATE_PARTITION_PATH = define(
    "hoodie.record.index.update.partition.path", False, boolean,
    "Under RECORD_INDEX, a record whose partition changed is deleted from its old partition and inserted in "
    "the new one (false: the update stays in the partition the key lives in).")
# the connector's process-wide HFile block cache (io.hudimeta.hfile.BlockCache), set by the record-index lookups
HFILE_BLOCK_CACHE_ENABLED = define(
    "hoodie.hfile.block.cache.enabled", True, boolean,
    "Keep the metadata table's decoded HFile data blocks for later readers in the JVM (record-index lookups of "
    "later writes read the blocks an earlier one inflated).")
HFILE_BLOCK_CACHE_SIZE = define("hoodie.hfile.block.cache.size", 100, number(1, "a number of blocks, at least 1"),
                                 "Most HFile blocks (up to 1 MB inflated each) the block cache keeps per JVM.")
HFILE_BLOCK_CACHE_TTL = define("hoodie.hfile.block.cache.ttl.minutes", 60, number(1, "minutes, at least 1"),
                                "Minutes a cached HFile block is served before it is read again.")
HFILE_BLOCK_CACHE_SOFT = define(
    "pyhudi.hfile.block.cache.soft.enabled", True, boolean,
    "Blocks past hoodie.hfile.block.cache.size stay cached softly, dropped by the JVM when it needs the memory.")
BUCKET_ENGINE = define("hoodie.index.bucket.engine", "SIMPLE", choice(BUCKET_ENGINES),
                        "Bucket index flavour (hoodie.index.type=BUCKET).")
BUCKET_COUNT = define("hoodie.bucket.index.num.buckets", 256,
                       number(1, "the number of buckets (file groups) per partition, at least 1"),
                       "Buckets per partition under the bucket index; fixed when the table is created.")
BUCKET_HASH_FIELDS = define("hoodie.bucket.index.hash.field", (), fields,
                             "Record key fields hashed to a bucket (all of them when absent).")
BUCKET_PROPERTIES = (INDEX_TYPE, BUCKET_COUNT, BUCKET_HASH_FIELDS)  # what a bucket table keeps in hoodie.properties

# ---- metadata table --------------------------------------------------------------------------

METADATA_ENABLE = define("hoodie.metadata.enable", True, boolean,
                          "Maintain the metadata table (false: drop it).")
COLUMN_STATS_ENABLE = define("hoodie.metadata.index.column.stats.enable", True, boolean,
                              "column_stats partition of the metadata table (on by default for Spark writers).")
BLOOM_FILTER_ENABLE = define("hoodie.metadata.index.bloom.filter.enable", False, boolean,
                              "bloom_filters partition of the metadata table.")
PARTITION_STATS_ENABLE = define("hoodie.metadata.index.partition.stats.enable", None, boolean,
                                 "partition_stats partition of the metadata table; by default on when column "
                                 "stats are (partitioned tables only).")
METADATA_COMPACT_AFTER = define("hoodie.metadata.compact.max.delta.commits", 10,
                                 number(1, "a number of delta commits, at least 1"),
                                 "Compact the metadata table after this many delta commits.")
RECORD_INDEX_ENABLE = define("hoodie.metadata.record.index.enable", False, boolean,
                              "record_index partition of the metadata table: record key -> file group, kept by "
                              "every write and service; built from the table's records by the first write "
                              "that enables it. Writes that leave it off drop it (Apache Hudi does the same).")
SECONDARY_INDEX_ENABLE = define("hoodie.metadata.index.secondary.enable", True, boolean,
                                 "Keep the table's secondary indexes (pyhudi index create --type secondary) right "
                                 "with every write that keeps the record index; false drops them (as Apache "
                                 "Hudi does). They need the record index: a write without it drops them too.")
METADATA_INDEX_ASYNC = define("hoodie.metadata.index.async", False, boolean,
                               "Leave building index partitions (record_index) to the indexing action "
                               "(pyhudi index create) instead of the first write that enables them; writers "
                               "keep them once built.")
RECORD_INDEX_MIN_FILE_GROUPS = define("hoodie.metadata.record.index.min.filegroup.count", 10,
                                       number(1, "a number of file groups, at least 1"),
                                       "Fewest file groups of the record index when it is built.")
RECORD_INDEX_MAX_FILE_GROUPS = define("hoodie.metadata.record.index.max.filegroup.count", 10000,
                                       number(1, "a number of file groups, at least 1"),
                                       "Most file groups of the record index when it is built.")
RECORD_INDEX_MAX_FILE_GROUP_SIZE = define("hoodie.metadata.record.index.max.filegroup.size", 1073741824,
                                           number(1, "a size in bytes"),
                                           "Bytes of index entries (48 per key) a record-index file group is "
                                           "sized to hold at most.")
RECORD_INDEX_GROWTH_FACTOR = define("hoodie.metadata.record.index.growth.factor", 2.0, real(0.0, "a factor"),
                                     "How many times today's keys the record index is sized for when built.")

# ---- file-system view and timeline server -----------------------------------------------------

EMBED_TIMELINE_SERVER = define("hoodie.embed.timeline.server", True, boolean,
                                "Start a timeline server in the driver's JVM (one per JVM and view storage, "
                                "reused by later writes with the same hoodie.filesystem.view.* options) and ask it "
                                "for the latest file slices; a write that cannot reach it builds its own view.")
EMBED_TIMELINE_SERVER_PORT = define("hoodie.embed.timeline.server.port", 0,
                                     number(0, "a port number (0 = any free port)"),
                                     "Port of the embedded timeline server (0: any free port).")
VIEW_TYPE = define("hoodie.filesystem.view.type", "MEMORY", choice(VIEW_TYPES, ("EMBEDDED_KV_STORE",)),
                    "Where the synced view keeps a table's files: MEMORY, or SPILLABLE_DISK (RocksDB under "
                    "hoodie.filesystem.view.spillable.dir past hoodie.filesystem.view.spillable.mem). REMOTE_FIRST: "
                    "ask the server at hoodie.filesystem.view.remote.host/port, building the view in the driver when "
                    "it cannot be reached; REMOTE_ONLY: the same without that fallback.")
VIEW_SPILLABLE_MEM = define("hoodie.filesystem.view.spillable.mem", 104857600, number(1, "a size in bytes"),
                             "Bytes of file entries a SPILLABLE_DISK view keeps on the heap before spilling.")
VIEW_SPILLABLE_DIR = define("hoodie.filesystem.view.spillable.dir", "/tmp/", text,
                             "Local directory of a SPILLABLE_DISK view's RocksDB files.")
VIEW_REMOTE_HOST = define("hoodie.filesystem.view.remote.host", "localhost", text,
                           "Host of the timeline server a REMOTE_FIRST/REMOTE_ONLY view asks.")
VIEW_REMOTE_PORT = define("hoodie.filesystem.view.remote.port", 26754, number(1, "a port number"),
                           "Port of the timeline server a REMOTE_FIRST/REMOTE_ONLY view asks.")
VIEW_REMOTE_TIMEOUT = define("hoodie.filesystem.view.remote.timeout.secs", 10, number(1, "seconds, at least 1"),
                              "Seconds to wait for the timeline server before building the view in the driver "
                              "(Hudi waits 300; a write should not stall minutes on a hung server).")
VIEW_OPTIONS = (METADATA_ENABLE, VIEW_TYPE, VIEW_SPILLABLE_MEM, VIEW_SPILLABLE_DIR)  # what the JVM view is told

# ---- parallelism -----------------------------------------------------------------------------

BULK_INSERT_PARALLELISM = define("hoodie.bulkinsert.shuffle.parallelism", 0, TASKS,
                                  "Tasks writing a bulk_insert (0: as many as the input has; NONE and "
                                  "PARTITION_SORT only ever lower it, without a shuffle).")
BULK_INSERT_SORT_MODE = define("hoodie.bulkinsert.sort.mode", "NONE", choice(BULK_INSERT_SORT_MODES),
                                "How bulk_insert arranges the input before each task writes its own files: "
                                "NONE (as it comes, no shuffle), PARTITION_SORT (sorted by partition path and "
                                "record key within each task), GLOBAL_SORT (sorted across tasks), "
                                "PARTITION_PATH_REPARTITION (one task per partition path), "
                                "PARTITION_PATH_REPARTITION_AND_SORT (that, sorted by partition path). "
                                "Bucket-index tables write each bucket's file group whatever the mode.")
ROW_WRITER = define(W + "row.writer.enable", False, boolean, "bulk_insert writes base files with Spark's Parquet "
                     "writer in the JVM (Hudi's default; pyhudi's is off: bench/results/medium/analysis.md).")
INSERT_PARALLELISM = define("hoodie.insert.shuffle.parallelism", 0, TASKS, "Tasks writing an insert.")
UPSERT_PARALLELISM = define("hoodie.upsert.shuffle.parallelism", 0, TASKS, "Tasks writing an upsert.")
DELETE_PARALLELISM = define("hoodie.delete.shuffle.parallelism", 0, TASKS, "Tasks writing a delete.")
PARALLELISM = {"bulk_insert": BULK_INSERT_PARALLELISM, "insert": INSERT_PARALLELISM,
               "insert_overwrite": INSERT_PARALLELISM, "insert_overwrite_table": INSERT_PARALLELISM,
               "upsert": UPSERT_PARALLELISM, "delete": DELETE_PARALLELISM}

# ---- compaction (merge-on-read) ------------------------------------------------------------------

COMPACT_INLINE = define("hoodie.compact.inline", None, boolean,
                         "Schedule and run a compaction after a write when the trigger says so. Unset: on for "
                         "merge-on-read tables, as Apache Hudi's Spark datasource does for batch writes.")
COMPACT_SCHEDULE_INLINE = define("hoodie.compact.schedule.inline", False, boolean,
                                  "Only schedule a compaction after a write (run it later with pyhudi compact).")
COMPACT_MAX_DELTA_COMMITS = define("hoodie.compact.inline.max.delta.commits", 5,
                                    number(1, "a number of delta commits, at least 1"),
                                    "Delta commits since the last compaction that trigger the next one.")
COMPACT_TRIGGER = define("hoodie.compact.inline.trigger.strategy", "NUM_COMMITS",
                          choice(same("NUM_COMMITS", "NUM_COMMITS_AFTER_LAST_REQUEST", "TIME_ELAPSED",
                                      "NUM_OR_TIME", "NUM_AND_TIME")),
                          "When a compaction is due: by delta commits, by seconds elapsed, or both.")
COMPACT_MAX_DELTA_SECONDS = define("hoodie.compact.inline.max.delta.seconds", 3600,
                                    number(1, "seconds, at least 1"),
                                    "Seconds since the last compaction that trigger the next one (TIME_ELAPSED).")
COMPACTION_STRATEGY = define(
    "hoodie.compaction.strategy", "org.apache.hudi.table.action.compact.strategy.LogFileSizeBasedCompactionStrategy",
    choice(same("org.apache.hudi.table.action.compact.strategy.LogFileSizeBasedCompactionStrategy",
                "org.apache.hudi.table.action.compact.strategy.LogFileNumBasedCompactionStrategy",
                "org.apache.hudi.table.action.compact.strategy.UnBoundedCompactionStrategy")),
    "Which file slices a compaction plan takes, in what order: most log bytes first, most log files first, "
    "or all.")
COMPACTION_TARGET_IO = define("hoodie.compaction.target.io", 512000, number(1, "megabytes, at least 1"),
                               "Megabytes a compaction plan may read and write (size and number strategies).")
COMPACTION_LOG_SIZE_THRESHOLD = define("hoodie.compaction.logfile.size.threshold", 0,
                                        number(0, "a size in bytes"),
                                        "Slices with fewer log bytes are left out of a plan (size strategy).")
COMPACTION_LOG_NUM_THRESHOLD = define("hoodie.compaction.logfile.num.threshold", 0,
                                       number(0, "a number of log files"),
                                       "Slices with fewer log files are left out of a plan (number strategy).")

LOG_COMPACT_INLINE = define("hoodie.log.compaction.inline", False, boolean,
                             "Schedule and run a log compaction after a write: the log blocks of each file slice "
                             "with enough of them are merged into one new log file (base files untouched).")
LOG_COMPACTION_BLOCKS_THRESHOLD = define("hoodie.log.compaction.blocks.threshold", 5,
                                          number(1, "a number of log blocks, at least 1"),
                                          "Slices with fewer log blocks are left out of a log compaction plan.")

# ---- cleaning --------------------------------------------------------------------------------

CLEAN_AUTOMATIC = define("hoodie.clean.automatic", True, boolean, "Clean after every write.")
CLEANER_POLICY = define("hoodie.cleaner.policy", "KEEP_LATEST_COMMITS",
                         choice(same("KEEP_LATEST_COMMITS", "KEEP_LATEST_FILE_VERSIONS", "KEEP_LATEST_BY_HOURS")),
                         "Which file slices a clean deletes: those older than the last N commits, all but the newest "
                         "N slices of each file group, or those older than N hours (the newest slice always stays).",
                         "hoodie.clean.policy")
CLEANER_COMMITS_RETAINED = define("hoodie.cleaner.commits.retained", 10, number(1, "a number of commits, at least 1"),
                                   "KEEP_LATEST_COMMITS: the last N commits stay readable (time travel, incremental "
                                   "queries); older slices go, but the one each file group had before them stays.",
                                   "hoodie.clean.commits.retained")
CLEANER_FILE_VERSIONS_RETAINED = define("hoodie.cleaner.fileversions.retained", 3,
                                         number(1, "a number of file slices, at least 1"),
                                         "KEEP_LATEST_FILE_VERSIONS: file slices kept in each file group.",
                                         "hoodie.clean.fileversions.retained")
CLEANER_HOURS_RETAINED = define("hoodie.cleaner.hours.retained", 24, number(1, "a number of hours, at least 1"),
                                 "KEEP_LATEST_BY_HOURS: commits of the last N hours stay readable.",
                                 "hoodie.clean.hours.retained")
CLEANER_INCREMENTAL_MODE = define("hoodie.cleaner.incremental.mode", True, boolean,
                                   "Plan a clean over the partitions written since the last clean's earliest retained "
                                   "commit only (false: list every partition each time).",
                                   "hoodie.clean.incremental.enabled")
CLEAN_TRIGGER_STRATEGY = define("hoodie.clean.trigger.strategy", "NUM_COMMITS", choice(same("NUM_COMMITS")),
                                 "When a clean is planned: after hoodie.clean.max.commits commits.")
CLEAN_MAX_COMMITS = define("hoodie.clean.max.commits", 1, number(0, "a number of commits"),
                            "Commits completed since the last clean before the next clean is planned.",
                            "hoodie.clean.trigger.max.commits")
EMPTY_CLEAN_INTERVAL_HOURS = define(
    "hoodie.write.empty.clean.interval.hours", -1, number(-1, "a number of hours (-1: never)"),
    "With incremental cleaning: a clean that finds nothing to delete still completes (an empty clean) when the "
    "last clean is older than this, so the next one looks only at the partitions written since; without it a "
    "table whose file groups never get a second slice (appends, merge-on-read logs) is looked at whole at every "
    "clean. -1: never (Hudi's default).")

# ---- archival --------------------------------------------------------------------------------

ARCHIVE_AUTOMATIC = define("hoodie.archive.automatic", True, boolean,
                            "Archive old instants into the LSM timeline history after every write.")
KEEP_MAX_COMMITS = define("hoodie.keep.max.commits", 30, number(2, "a number of commits, at least 2"),
                           "Archival starts when the active timeline holds more completed commits than this.")
KEEP_MIN_COMMITS = define("hoodie.keep.min.commits", 20, number(1, "a number of commits, at least 1"),
                           "Completed commits archival leaves on the active timeline (fewer than "
                           "hoodie.keep.max.commits; raised, as Apache Hudi does, when the cleaner retains more).")
TIMELINE_COMPACTION_BATCH_SIZE = define("hoodie.timeline.compaction.batch.size", 10,
                                         number(2, "a number of files, at least 2"),
                                         "Files of one level of the timeline history merged into one file of the "
                                         "next level.")
ARCHIVE_BEYOND_SAVEPOINT = define("hoodie.archive.beyond.savepoint", "false", off("archiving past a savepoint"),
                                   "Archive commits after the earliest savepoint (only false: archival stops at "
                                   "the earliest savepoint).")

# ---- concurrency control ------------------------------------------------------------------------

LOCKS = "org.apache.hudi.client.transaction.lock."
CONCURRENCY_MODE = define("hoodie.write.concurrency.mode", "SINGLE_WRITER",
                           choice(same("SINGLE_WRITER", "OPTIMISTIC_CONCURRENCY_CONTROL",
                                       "NON_BLOCKING_CONCURRENCY_CONTROL")),
                           "SINGLE_WRITER: one writer at a time (a pending write is a dead one). "
                           "OPTIMISTIC_CONCURRENCY_CONTROL: writers go on together; each commits under the table "
                           "lock after checking that no write completed since it started touched its file groups. "
                           "NON_BLOCKING_CONCURRENCY_CONTROL (merge-on-read with the simple bucket index): writers "
                           "append to the same file groups without conflicting; the ordering field, then the log "
                           "files' instant order, decides between their records.")
LOCK_PROVIDER = define("hoodie.write.lock.provider", LOCKS + "FileSystemBasedLockProvider",
                        choice(same(LOCKS + "FileSystemBasedLockProvider", LOCKS + "InProcessLockProvider",
                                    LOCKS + "StorageBasedLockProvider"),
                               tuple(LOCKS + n for n in ("ZookeeperBasedLockProvider", "HiveMetastoreBasedLockProvider",
                                                         "DynamoDBBasedLockProvider"))),
                        "The table lock of optimistic concurrency control: a lock file under .hoodie (every "
                        "process on the table), a lock of this Python process (its threads), or Apache Hudi's "
                        "storage-based lock (RFC-91: .hoodie/.locks/table_lock.json kept with S3's conditional "
                        "writes, shared with Apache Hudi 1.0.2+ writers; S3 only). pyhudi's default differs from "
                        "Hudi's (ZooKeeper, which pyhudi does not have).")
LOCK_STORAGE_VALIDITY = define("hoodie.write.lock.storage.validity.timeout.secs", 300,
                               number(10, "seconds, at least 10"),
                               "StorageBasedLockProvider: how long a taken or renewed lock stays valid; a writer "
                               "that dies holding it blocks the others this long at most.")
LOCK_STORAGE_RENEW = define("hoodie.write.lock.storage.renew.interval.secs", 30, number(1, "seconds, at least 1"),
                            "StorageBasedLockProvider: how often the holder renews its lock (Hudi asks for at most "
                            "a tenth of the validity).")
LOCK_WAIT_MS = define("hoodie.write.lock.wait_time_ms", 60000, number(1, "milliseconds, at least 1"),
                       "How long a writer waits for the table lock before giving up.")
LOCK_NUM_RETRIES = define("hoodie.write.lock.num_retries", 15, number(0, "a number of retries"),
                           "Attempts to take the table lock after the first, each waiting up to "
                           "hoodie.write.lock.wait_time_ms.")
LOCK_FILESYSTEM_EXPIRE = define("hoodie.write.lock.filesystem.expire", 0, number(0, "minutes (0: never)"),
                                 "Minutes after which a lock file left by a dead writer on object storage or HDFS "
                                 "is broken (on local disk the lock dies with its holder).")
FAILED_WRITES_POLICY = define("hoodie.cleaner.policy.failed.writes", None, choice(same("EAGER", "LAZY")),
                               "EAGER: the next write rolls back every pending write (one writer). LAZY: only "
                               "writes whose heartbeat expired (required with several writers; the default "
                               "under optimistic concurrency control).")
HEARTBEAT_INTERVAL_MS = define("hoodie.client.heartbeat.interval_in_ms", 60000, number(100, "milliseconds"),
                                "How often a writer refreshes the heartbeat of its pending instant.")
HEARTBEAT_MISSES = define("hoodie.client.heartbeat.tolerable.misses", 2, number(1, "a number of heartbeats"),
                           "Missed heartbeats after which a pending write counts as failed (LAZY rollback).")

# ---- savepoint and restore -------------------------------------------------------------------

# ---- clustering ------------------------------------------------------------------------------

CLUSTERING_INLINE = define("hoodie.clustering.inline", False, boolean,
                            "Schedule and run a clustering after a write when due.",
                            "hoodie.datasource.clustering.inline.enable")
CLUSTERING_SCHEDULE_INLINE = define("hoodie.clustering.schedule.inline", False, boolean,
                                     "Only schedule a clustering after a write (run it with pyhudi cluster).")
CLUSTERING_MAX_COMMITS = define(C + "inline.max.commits", 4, number(1, "a number of commits, at least 1"),
                                 "Commits since the last clustering that trigger the next inline one.")
CLUSTERING_SORT_COLUMNS = define(C + "plan.strategy.sort.columns", (), fields,
                                  "Columns clustering sorts records by (laid out by hoodie.layout.optimize.strategy).")
CLUSTERING_TARGET_FILE_BYTES = define(C + "plan.strategy.target.file.max.bytes", 1073741824,
                                       number(1, "a size in bytes"), "Target size of the files clustering writes.")
CLUSTERING_SMALL_FILE_LIMIT = define(C + "plan.strategy.small.file.limit", 314572800, number(0, "a size in bytes"),
                                      "Base files smaller than this are clustered.")
CLUSTERING_MAX_GROUP_BYTES = define(C + "plan.strategy.max.bytes.per.group", 2147483648,
                                     number(1, "a size in bytes"), "Bytes one clustering group reads at most.")
CLUSTERING_MAX_GROUPS = define(C + "plan.strategy.max.num.groups", 30, number(1, "a number of groups, at least 1"),
                                "Clustering groups one plan holds at most.")
LAYOUT_STRATEGY = define("hoodie.layout.optimize.strategy", "linear", choice({"linear": "linear", "z-order": "zorder",
                                                                               "zorder": "zorder",
                                                                               "hilbert": "hilbert"}),
                          "How clustering orders records by the sort columns: linear (lexicographic), zorder or "
                          "hilbert (space-filling curves: each column prunes alike).")
CLUSTERING_UPDATES_STRATEGY = define(
    C + "updates.strategy", "org.apache.hudi.client.clustering.update.strategy.SparkRejectUpdateStrategy",
    choice(same("org.apache.hudi.client.clustering.update.strategy.SparkRejectUpdateStrategy"),
           ("org.apache.hudi.client.clustering.update.strategy.SparkAllowUpdateStrategy",
            "org.apache.hudi.client.clustering.update.strategy.SparkConsistentBucketDuplicateUpdateStrategy")),
    "What a write does to records of file groups under pending clustering: refuse (the write fails, naming the "
    "clustering instant; run or wait for the clustering and write again).")

# ---- Hudi settings of which pyhudi implements one value (the others are refused) -------------

_ONE_VALUE = [
    ("hoodie.combine.before.insert", off("deduplicating inserts"), ()),
    (W + "insert.drop.duplicates", off("dropping inserted records whose keys the table holds"), ()),
    (W + "reconcile.schema", off("schema reconciliation"), ()),
    ("hoodie.clean.async.enabled", off("asynchronous cleaning"), ("hoodie.clean.async",)),
    ("hoodie.archive.async", off("asynchronous archiving"), ()),
    ("hoodie.clustering.async.enabled", off("asynchronous clustering"),
     ("hoodie.datasource.clustering.async.enable",)),
    ("hoodie.write.table.version", only("8", ("6", "8", "9"), "another table version than 8"), ()),
]
POPULATE_META_FIELDS = define("hoodie.populate.meta.fields", "true",
                               only("true", ("true", "false"), "tables without meta fields"),
                               "Write the _hoodie_* meta columns (only true).")
DROP_PARTITION_COLUMNS = define(W + "drop.partition.columns", "false",
                                 off("dropping partition columns from data files"),
                                 "Leave partition columns out of data files (only false).")
ONE_VALUE = [define(key, None, parse, "Apache Hudi setting of which pyhudi implements one value.", *alts)
             for key, parse, alts in _ONE_VALUE]
