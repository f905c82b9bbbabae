"""The table's index definitions (Apache Hudi 1.0's HoodieIndexMetadata): which column each secondary
index covers, in the JSON file `hoodie.table.index.defs.path` names (`.hoodie/.index_defs/index.json`),
written as Jackson's pretty printer writes it. Readers (the connector, Apache Hudi) learn from it which
`secondary_index_<name>` partition answers filters on which column; table version 8 definitions carry no
`version` (V1)."""
from __future__ import annotations

import json
import posixpath
from typing import Any

from pyhudi.errors import HudiError
from pyhudi.storage import Storage
from pyhudi.table import properties

DEFS_PATH_KEY = "hoodie.table.index.defs.path"
DEFAULT_DEFS_PATH = ".hoodie/.index_defs/index.json"
SECONDARY_INDEX_TYPE = "secondary_index"
COLUMN_STATS = "column_stats"


class IndexDefinitionError(HudiError, ValueError):
    pass


def load(storage: Storage, base: str, props: dict[str, str]) -> dict[str, dict[str, Any]]:
    """Index name (= MDT partition) -> definition; empty when the table defines none."""
    rel = props.get(DEFS_PATH_KEY)
    if not rel or not storage.exists(posixpath.join(base, rel)):
        return {}
    try:
        return dict(json.loads(storage.read(posixpath.join(base, rel)))["indexDefinitions"])
    except (ValueError, KeyError, TypeError) as e:
        raise IndexDefinitionError(f"{posixpath.join(base, rel)} is not an index definitions file: {e}") from None


def secondary_column(definitions: dict[str, dict[str, Any]], partition: str) -> str | None:
    """The column secondary index `partition` covers, or None when it is not defined."""
    d = definitions.get(partition)
    if not d or d.get("indexType") != SECONDARY_INDEX_TYPE or len(d.get("sourceFields") or ()) != 1:
        return None
    return d["sourceFields"][0]


def define_secondary(storage: Storage, base: str, props: dict[str, str], partition: str, column: str) -> None:
    """Adds (or replaces) the definition of secondary index `partition` on `column`, and points
    hoodie.properties at the file."""
    definitions = load(storage, base, props)
    definitions[partition] = {"indexName": partition, "indexType": SECONDARY_INDEX_TYPE, "indexFunction": "identity",
                              "sourceFields": [column], "indexOptions": {}}
    _save(storage, base, props, definitions)


def define_column_stats(storage: Storage, base: str, props: dict[str, str], columns: list[str]) -> None:
    """Defines the column_stats index over `columns`, as Apache Hudi 1.0 does when it builds the partition:
    its partition-stats pruning (PartitionStatsIndexSupport) reads the indexed columns from this definition
    and fails a filtered query on a table whose definitions file lacks it."""
    definitions = load(storage, base, props)
    wanted = {"indexName": COLUMN_STATS, "indexType": COLUMN_STATS, "indexFunction": COLUMN_STATS,
              "sourceFields": list(columns), "indexOptions": {}}
    if definitions.get(COLUMN_STATS) != wanted:
        definitions[COLUMN_STATS] = wanted
        _save(storage, base, props, definitions)


def remove(storage: Storage, base: str, props: dict[str, str], partition: str) -> None:
    definitions = load(storage, base, props)
    if definitions.pop(partition, None) is not None:
        _save(storage, base, props, definitions)


def _save(storage: Storage, base: str, props: dict[str, str], definitions: dict[str, dict[str, Any]]) -> None:
    rel = props.get(DEFS_PATH_KEY) or DEFAULT_DEFS_PATH
    storage.write(posixpath.join(base, rel), jackson({"indexDefinitions": definitions}).encode("utf-8"))
    if props.get(DEFS_PATH_KEY) != rel:
        current = properties.load(storage, base)
        current[DEFS_PATH_KEY] = rel
        properties.save(storage, base, current, updated=True)
        props[DEFS_PATH_KEY] = rel


def jackson(value: Any, indent: str = "") -> str:
    """JSON as Jackson's default pretty printer writes it: two-space indents, `" : "`, arrays inline."""
    inner = indent + "  "
    if isinstance(value, dict):
        if not value:
            return "{ }"
        items = ",\n".join(f"{inner}{json.dumps(k)} : {jackson(v, inner)}" for k, v in value.items())
        return "{\n" + items + "\n" + indent + "}"
    if isinstance(value, list):
        return "[ " + ", ".join(jackson(v, indent) for v in value) + " ]" if value else "[ ]"
    return json.dumps(value)
