"""What pyhudi does with each `hoodie.*` option a user brings from an Apache Hudi job.

* honoured: an option of `pyhudi.config.options` (its alternatives included);
* ignored with a logged warning: an Apache Hudi option whose effect cannot change the data or the
  layout of the table pyhudi writes (monitoring, notifications, catalog sync, tuning of Hudi's JVM
  writer, settings of Hudi Streamer or of reads) -- the rules are `WARN_GROUPS` and `WARN_KEYS`;
* refused: any other Apache Hudi option ("<key> is an Apache Hudi option pyhudi does not support
  yet"), since ignoring it could write something else than the job asks for;
* refused as unknown, with the nearest known key: a `hoodie.*` key that Apache Hudi 1.x does not
  define (`hudi-option-keys.tsv`) and pyhudi does not honour.

pyhudi's own options (`pyhudi.*`, settings Apache Hudi has no key for) are honoured or refused as
unknown. Other keys (Spark's own, "path") are not checked.
"""
from __future__ import annotations

import difflib
import logging
import zipfile
from pathlib import Path
from typing import Iterable, Mapping

from pyhudi.config.options import REGISTRY
from pyhudi.config.parsers import OptionError

log = logging.getLogger(__name__)
CATALOGUE = "io/hudimeta/spark/hudi-option-keys.tsv"


def _catalogue() -> dict[str, str]:
    """Apache Hudi's option keys -> the Hudi class defining each. One file serves both halves: the
    connector's resource hudi-option-keys.tsv (generated data), read from the source tree in a
    checkout and from the connector jar in an installed package."""
    source = Path(__file__).resolve().parents[2] / "connector/src/main/resources" / CATALOGUE
    if source.is_file():
        text = source.read_text(encoding="utf-8")
    else:
        from pyhudi import build

        with zipfile.ZipFile(build.build(quiet=True)) as jar:
            text = jar.read(CATALOGUE).decode("utf-8")
    return dict(line.split("\t", 1) for line in text.splitlines() if line and not line.startswith("#"))


KEYS = _catalogue()

OWN_PREFIX = "pyhudi."  # pyhudi's own options, for what Apache Hudi has no key for
HONOURED, WARN, UNSUPPORTED, UNKNOWN = "honoured", "ignored with a warning", "unsupported", "unknown"

_METRICS = "metrics reporting, which pyhudi does not do"
_SYNC = "catalog and metastore sync, which pyhudi does not do (the table is read by its path)"
_CALLBACK = "commit notifications, which pyhudi does not send"
_MEMORY = "memory and spilling of Hudi's JVM writer and readers"
_STREAMER = "a Hudi Streamer setting, which a datasource write does not read"
_READ = "a read option, which a write does not read"
_JVM = "tuning of Hudi's JVM client (file-system view, consistency checks, retries, buffering)"

# Apache Hudi config classes whose every option is safe to ignore
WARN_GROUPS = {
    **dict.fromkeys(("HoodieMetricsConfig", "HoodieMetricsDatadogConfig", "HoodieMetricsPrometheusConfig",
                     "HoodieMetricsGraphiteConfig", "HoodieMetricsJmxConfig", "HoodieMetricsM3Config",
                     "HoodieMetricsCloudWatchConfig"), _METRICS),
    **dict.fromkeys(("HoodieSyncConfig", "HiveSyncConfigHolder", "HiveSyncConfig", "GlobalHiveSyncConfig",
                     "GlueCatalogSyncClientConfig", "BigQuerySyncConfig", "DataHubSyncConfig", "DataHubTableProperties",
                     "AdbSyncConfig"), _SYNC),
    **dict.fromkeys(("HoodieWriteCommitCallbackConfig", "HoodieWriteCommitKafkaCallbackConfig",
                     "HoodieWriteCommitPulsarCallbackConfig"), _CALLBACK),
    "HoodieMemoryConfig": _MEMORY,
    **dict.fromkeys(("DataSourceReadOptions", "HoodieReaderConfig"), _READ),
    **dict.fromkeys(("FileSystemViewStorageConfig", "ConsistencyGuardConfig", "FileSystemRetryConfig"), _JVM),
    "HoodieAWSConfig": "AWS credentials of Hudi's AWS integrations (sync, metrics), which pyhudi does not use",
    "HoodieHBaseIndexConfig": "a setting of the HBase index, which hoodie.index.type cannot select in pyhudi",
    **dict.fromkeys(("HoodieStreamerConfig", "HoodieIngestionService", "KafkaSourceConfig", "PulsarSourceConfig",
                     "JsonKafkaPostProcessorConfig", "JsonKafkaSource", "CloudSourceConfig", "S3SourceConfig",
                     "S3EventsHoodieIncrSourceConfig", "GCSEventsSourceConfig", "DFSPathSelectorConfig",
                     "DatePartitionPathSelectorConfig", "ParquetDFSSourceConfig", "HoodieIncrSourceConfig",
                     "HiveIncrPullSourceConfig", "JdbcSourceConfig", "SqlSourceConfig", "SqlFileBasedSourceConfig",
                     "SqlTransformerConfig", "HoodieSchemaProviderConfig", "FilebasedSchemaProviderConfig",
                     "HiveSchemaProviderConfig", "JdbcbasedSchemaProviderConfig",
                     "ProtoClassBasedSchemaProviderConfig", "SchemaProviderPostProcessorConfig",
                     "JsonToAvroSchemaConverterConfig"), _STREAMER),
}

# single keys and key prefixes (ending in ".") safe to ignore, whatever class defines them
WARN_KEYS = {
    "hoodie.embed.timeline.server.": "tuning of the embedded timeline server (threads, compression, reuse)",
    "hoodie.instant_state.timeline_server_based.": "the embedded timeline server, which pyhudi does not run",
    "hoodie.write.markers.type": "how Hudi's JVM writer creates markers; pyhudi writes direct markers",
    "hoodie.markers.timeline_server_based.": "how Hudi's JVM writer creates markers; pyhudi writes direct markers",
    "hoodie.client.heartbeat.": "writer heartbeat timing",
    "hoodie.write.executor.": _JVM,
    "hoodie.write.buffer.": _JVM,
    "hoodie.release.resource.on.completion.enable": _JVM,
    "hoodie.auto.commit": "the datasource commits every write itself",
    "hoodie.sensitive.config.keys": "masking of option values in Hudi's logs",
    "hoodie.datasource.write.streaming.": "a streaming-sink setting; pyhudi writes batches",
    "hoodie.datasource.compaction.async.enable": "asynchronous compaction of streaming writes; a batch write "
                                                 "never runs it",
    "hoodie.spark.sql.": "a setting of Hudi's Spark SQL commands, which a datasource write does not read",
    "hoodie.sql.": "a setting of Hudi's Spark SQL commands, which a datasource write does not read",
    "hoodie.meta.sync.client.tool.class": _SYNC,
    "hoodie.metadata.metrics.enable": _METRICS,
    "hoodie.metadata.max.reader.": _MEMORY,
    "hoodie.metadata.spillable.map.path": _MEMORY,
    "hoodie.metadata.file.cache.max.size.mb": _MEMORY,
    "hoodie.metadata.streaming.write.": "when Hudi's JVM writer computes metadata-table updates; the metadata "
                                       "table holds the same records",
    "hoodie.common.spillable.diskmap.type": _MEMORY,
    "hoodie.common.diskmap.compression.enabled": _MEMORY,
    "hoodie.memory.": _MEMORY,
    "hoodie.file.index.cache.": _MEMORY,
    "hoodie.cdc.file.group.iterator.memory.spill.bytes": _MEMORY,
    **dict.fromkeys(("hoodie.bloom.index.use.metadata", "hoodie.bloom.index.use.caching",
                     "hoodie.bloom.index.bucketized.checking", "hoodie.bloom.index.keys.per.bucket",
                     "hoodie.bloom.index.fileid.key.sorting.enable", "hoodie.bloom.index.use.treebased.filter"),
                    "how Hudi's JVM bloom index spreads and caches its lookups; pyhudi's finds the same keys"),
}
_PARALLELISM = "a parallelism hint; pyhudi sizes its tasks itself"
_STORAGE_LEVEL = "a Spark caching level of Hudi's JVM writer"


def _catalogued(key: str) -> str | None:
    """The Apache Hudi class defining `key` (some Hudi keys are prefixes ending in ".")."""
    if key in KEYS:
        return KEYS[key]
    return next((cls for k, cls in KEYS.items() if k.endswith(".") and key.startswith(k)), None)


def _warn_reason(key: str, group: str) -> str | None:
    for k, reason in WARN_KEYS.items():
        if key == k or (k.endswith(".") and key.startswith(k)) or key.startswith(k + "."):
            return reason
    if "parallelism" in key:
        return _PARALLELISM
    if key.endswith("storage.level"):
        return _STORAGE_LEVEL
    return WARN_GROUPS.get(group)


def classify(key: str) -> tuple[str, str | None]:
    """(what pyhudi does with `key`, why it ignores it or the nearest known key)."""
    if key in REGISTRY:
        return HONOURED, None
    group = None if key.startswith(OWN_PREFIX) else _catalogued(key)
    if group is None:
        return UNKNOWN, nearest(key)
    reason = _warn_reason(key, group)
    return (WARN, reason) if reason else (UNSUPPORTED, None)


def nearest(key: str) -> str | None:
    close = difflib.get_close_matches(key, sorted({*KEYS, *REGISTRY}), n=1, cutoff=0.8)
    return close[0] if close else None


def unsupported_message(key: str) -> str:
    return f"{key} is an Apache Hudi option pyhudi does not support yet"


def unknown_message(key: str, hint: str | None) -> str:
    what = "a pyhudi option" if key.startswith(OWN_PREFIX) else "an Apache Hudi option"
    if hint:
        return f"unknown option {key}: not {what}; did you mean {hint}?"
    return f"unknown option {key}: not {what}"


def check(options: Mapping[str, str] | Iterable[str]) -> None:
    """Refuses unknown and unsupported `hoodie.*` keys (every one, in one error) and logs a warning
    for each key ignored; honoured keys are left to their parsers."""
    problems = []
    for key in sorted(k for k in options if k.startswith(("hoodie.", OWN_PREFIX))):
        kind, detail = classify(key)
        if kind == UNKNOWN:
            problems.append(unknown_message(key, detail))
        elif kind == UNSUPPORTED:
            problems.append(unsupported_message(key))
        elif kind == WARN:
            log.warning("%s is an Apache Hudi option pyhudi ignores: %s", key, detail)
    if problems:
        raise OptionError("; ".join(problems))
