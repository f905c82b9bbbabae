"""Where the metadata table (MDT) lives and how the data table points at it (FORMAT-NOTES §2.3,
§5): `<base>/.hoodie/metadata`, its own hoodie.properties, the partition-initialisation instants,
and the data table's `hoodie.table.metadata.partitions[.inflight]` properties."""
from __future__ import annotations

from typing import Mapping

from pyhudi.metadata.errors import MetadataTableError
from pyhudi.metadata.keys import BLOOM_FILTERS, COLUMN_STATS, FILES, PARTITION_ORDER, PARTITION_STATS
from pyhudi.table import properties

METADATA_FOLDER = "metadata"
INIT_INSTANT_PREFIX = "00000000000000"  # Hudi's SOLO_COMMIT_TIMESTAMP; init instants add 3 digits
PAYLOAD_CLASS = "org.apache.hudi.metadata.HoodieMetadataPayload"
PAYLOAD_BASED_MERGE_STRATEGY = "00000000-0000-0000-0000-000000000000"
PARTITIONS_KEY = properties.METADATA_PARTITIONS
INFLIGHT_PARTITIONS_KEY = properties.METADATA_PARTITIONS_INFLIGHT
# the MDT partitions this writer can maintain, and the ones it maintains unless told otherwise
DEFAULT_PARTITIONS = (FILES, COLUMN_STATS, BLOOM_FILTERS, PARTITION_STATS)
SUPPORTED_PARTITIONS = DEFAULT_PARTITIONS


def metadata_path(base_path: str) -> str:
    return f"{base_path}/.hoodie/{METADATA_FOLDER}"


def metadata_table_properties(data_props: Mapping[str, str]) -> dict[str, str]:
    """The MDT's hoodie.properties (FORMAT-NOTES §5): no database name, so the checksum is the
    CRC32 of ".<table>_metadata"."""
    props = {
        "hoodie.table.name": f"{data_props['hoodie.table.name']}_metadata",
        "hoodie.table.type": "MERGE_ON_READ",
        "hoodie.table.version": str(properties.TABLE_VERSION),
        "hoodie.table.initial.version": str(properties.TABLE_VERSION),
        "hoodie.timeline.layout.version": "2",
        "hoodie.timeline.path": "timeline",
        "hoodie.timeline.history.path": "history",
        "hoodie.archivelog.folder": "history",
        "hoodie.table.base.file.format": "HFILE",
        "hoodie.table.keygenerator.type": "HOODIE_TABLE_METADATA",
        "hoodie.table.recordkey.fields": "key",
        "hoodie.populate.meta.fields": "false",
        "hoodie.record.merge.mode": "CUSTOM",
        "hoodie.record.merge.strategy.id": PAYLOAD_BASED_MERGE_STRATEGY,
        "hoodie.compaction.payload.class": PAYLOAD_CLASS,
        "hoodie.datasource.write.drop.partition.columns": "false",
    }
    props[properties.CHECKSUM_KEY] = str(properties.checksum(props))
    return props


def init_instant(offset: int) -> str:
    """`instantTimePlusMillis("00000000000000", offset)`: the partition-initialisation instants."""
    if not 0 <= offset < 1000:
        raise MetadataTableError(f"initialisation instant offset {offset} out of range")
    return f"{INIT_INSTANT_PREFIX}{offset:03d}"


def csv(value: str | None) -> list[str]:
    return [p.strip() for p in (value or "").split(",") if p.strip()]


def completed_partitions(data_props: Mapping[str, str]) -> list[str]:
    """The MDT partitions the data table lists as built (not inflight), in initialisation order;
    partitions this writer does not know come last, as listed."""
    listed = [p for p in csv(data_props.get(PARTITIONS_KEY))
              if p not in set(csv(data_props.get(INFLIGHT_PARTITIONS_KEY)))]
    return [p for p in PARTITION_ORDER if p in listed] + [p for p in listed if p not in PARTITION_ORDER]


def validate_partitions(partitions: list[str]) -> list[str]:
    """The partitions a writer is asked to maintain, checked, in initialisation order."""
    unknown = [p for p in partitions if p not in SUPPORTED_PARTITIONS]
    if unknown or FILES not in partitions:
        raise MetadataTableError(f"metadata partitions {partitions} are not valid: 'files' is required and "
                                 f"the supported ones are {', '.join(SUPPORTED_PARTITIONS)}")
    if PARTITION_STATS in partitions and COLUMN_STATS not in partitions:
        raise MetadataTableError("partition_stats needs column_stats")
    return [p for p in PARTITION_ORDER if p in partitions]
