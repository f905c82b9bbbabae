"""The metadata table's Avro schema, `schemas/HoodieMetadata.avsc`: the `HoodieMetadataRecord`
schema with the five `_hoodie_*` meta fields first, as Hudi stores it on disk."""
from __future__ import annotations

import functools
import json
from pathlib import Path

from pyhudi.metadata.errors import MetadataRecordError

SCHEMA_PATH = Path(__file__).resolve().parents[1] / "schemas" / "HoodieMetadata.avsc"


@functools.cache
def schema() -> dict:
    """The on-disk writer schema (meta fields first), as a JSON object."""
    with open(SCHEMA_PATH, encoding="utf-8") as f:
        return json.load(f)


@functools.cache
def schema_text() -> str:
    """The writer schema exactly as Hudi stores it (HFile file info `schema`, block SCHEMA header)."""
    return json.dumps(schema(), separators=(",", ":"), ensure_ascii=False)


@functools.cache
def schema_text_without_meta_fields() -> str:
    """The `HoodieMetadataRecord` schema alone: what MDT commit metadata keeps under `schema`."""
    s = dict(schema())
    s["fields"] = [f for f in s["fields"] if not f["name"].startswith("_hoodie_")]
    return json.dumps(s, separators=(",", ":"), ensure_ascii=False)


def union_record_names(record: str, field_name: str) -> list[str]:
    """The branch names ("null" included) of a union field of a record of the schema."""
    for f in record_schema(record)["fields"]:
        if f["name"] == field_name:
            return [(t if isinstance(t, str) else t["name"]).rsplit(".", 1)[-1] for t in f["type"]]
    raise MetadataRecordError(f"{record} has no field {field_name}")


def _find_record(node, name: str) -> dict | None:
    if isinstance(node, list):
        return next(filter(None, (_find_record(n, name) for n in node)), None)
    if not isinstance(node, dict):
        return None
    if node.get("type") == "record":
        if node["name"] == name:
            return node
        found = _find_record([f["type"] for f in node["fields"]], name)
        if found:
            return found
    return _find_record([node[k] for k in ("items", "values") if k in node], name)


def record_schema(name: str) -> dict:
    """The definition of the named record anywhere in the schema."""
    found = _find_record(schema(), name)
    if found is None:
        raise MetadataRecordError(f"no record {name} in HoodieMetadata.avsc")
    return found
