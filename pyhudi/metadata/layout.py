"""Where the metadata table (MDT) lives and how the data table points at it (docs/format.md §2.3,
§5): `<base>/.hoodie/metadata`, its own hoodie.properties, the partition-initialisation instants,
and the data table's `hoodie.table.metadata.partitions[.inflight]` properties."""
from __future__ import annotations

from typing import Mapping

from pyhudi.metadata.errors import MetadataTableError
from pyhudi.metadata.keys import (
    BLOOM_FILTERS,
    COLUMN_STATS,
    FILES,
    PARTITION_ORDER,
    PARTITION_STATS,
    RECORD_INDEX,
    is_secondary_index,
)
from pyhudi.table import properties

METADATA_FOLDER = "metadata"
INIT_INSTANT_PREFIX = "00000000000000"  # Hudi's SOLO_COMMIT_TIMESTAMP; init instants add 3 digits
PAYLOAD_CLASS = "org.apache.hudi.metadata.HoodieMetadataPayload"
PAYLOAD_BASED_MERGE_STRATEGY = "00000000-0000-0000-0000-000000000000"
PARTITIONS_KEY = properties.METADATA_PARTITIONS
INFLIGHT_PARTITIONS_KEY = properties.METADATA_PARTITIONS_INFLIGHT
# the MDT partitions this writer can maintain, and the ones it maintains unless told otherwise
DEFAULT_PARTITIONS = (FILES, COLUMN_STATS, BLOOM_FILTERS, PARTITION_STATS)
SUPPORTED_PARTITIONS = DEFAULT_PARTITIONS + (RECORD_INDEX,)
# built from the data table's records, not from a listing: by a Spark job (pyhudi.write.record_index)
RECORD_BUILT_PARTITIONS = (RECORD_INDEX,)


def record_built(partition: str) -> bool:
    return partition in RECORD_BUILT_PARTITIONS or is_secondary_index(partition)


def metadata_path(base_path: str) -> str:
    return f"{base_path}/.hoodie/{METADATA_FOLDER}"


def metadata_table_properties(data_props: Mapping[str, str]) -> dict[str, str]:
    """The MDT's hoodie.properties (docs/format.md §5): no database name, so the checksum is the
    CRC32 of ".<table>_metadata"."""
    props = {
        properties.NAME: f"{data_props[properties.NAME]}_metadata",
        properties.TYPE: "MERGE_ON_READ",
        properties.VERSION: str(properties.TABLE_VERSION),
        properties.INITIAL_VERSION: str(properties.TABLE_VERSION),
        properties.TIMELINE_LAYOUT: "2",
        properties.TIMELINE_PATH: "timeline",
        properties.HISTORY_PATH: "history",
        properties.ARCHIVE_FOLDER: "history",
        properties.BASE_FILE_FORMAT: "HFILE",
        properties.KEYGEN_TYPE: "HOODIE_TABLE_METADATA",
        properties.RECORD_KEY_FIELDS: "key",
        properties.POPULATE_META_FIELDS: "false",
        properties.MERGE_MODE: "CUSTOM",
        properties.MERGE_STRATEGY: PAYLOAD_BASED_MERGE_STRATEGY,
        properties.PAYLOAD_CLASS: PAYLOAD_CLASS,
        properties.DROP_PARTITION_COLUMNS: "false",
    }
    props[properties.CHECKSUM_KEY] = str(properties.checksum(props))
    return props


def next_init_instant(mdt_instants) -> str:
    """The first initialisation instant not yet on the MDT timeline (Hudi's generateUniqueInstantTime)."""
    used = {t for t in mdt_instants if t.startswith(INIT_INSTANT_PREFIX)}
    offset = 0
    while init_instant(offset) in used:
        offset += 1
    return init_instant(offset)


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


def is_supported(partition: str) -> bool:
    """Whether this writer can maintain an MDT partition: the fixed ones and every secondary index."""
    return partition in SUPPORTED_PARTITIONS or is_secondary_index(partition)


def validate_partitions(partitions: list[str]) -> list[str]:
    """The partitions a writer is asked to maintain, checked, in initialisation order (secondary
    indexes last, as given)."""
    unknown = [p for p in partitions if not is_supported(p)]
    if unknown or FILES not in partitions:
        raise MetadataTableError(f"metadata partitions {partitions} are not valid: 'files' is required and "
                                 f"the supported ones are {', '.join(SUPPORTED_PARTITIONS)}, secondary_index_<name>")
    if PARTITION_STATS in partitions and COLUMN_STATS not in partitions:
        raise MetadataTableError("partition_stats needs column_stats")
    return [p for p in PARTITION_ORDER if p in partitions] + list(dict.fromkeys(p for p in partitions
                                                                              if is_secondary_index(p)))
