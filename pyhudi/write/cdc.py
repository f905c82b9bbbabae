"""Change data capture on write, as Apache Hudi's HoodieCDCLogger does it: on a table with
`hoodie.table.cdc.enabled`, a data write that rewrites a file group's base file also writes what
it changed there (inserts, updates, deletes) to a CDC log file of the group,
`.<fileId>_<instant>.log.1_<token>.cdc`, as one CDC data block (type 6, laid out as an Avro data
block, headers INSTANT_TIME and SCHEMA). The commit's write stat names it in `cdcStats`.

Writes that create new file groups or append to log files write none: CDC readers infer those
changes from the new base file or the log file (RFC-51), as Hudi's do.
"""
from __future__ import annotations

from dataclasses import dataclass

import pyarrow as pa

from pyhudi.avro import schema as avro_schema
from pyhudi.config import options as o
from pyhudi.log import BlockType, avro_data_block, encode_blocks

SUFFIX = ".cdc"  # HoodieCDCUtils.CDC_LOGFILE_SUFFIX
INSERT, UPDATE, DELETE = "i", "u", "d"  # HoodieCDCOperation values
KEY = "_hoodie_record_key"

# HoodieCDCUtils's fixed schema of OP_KEY_ONLY records
_OP_KEY_SCHEMA = {"type": "record", "name": "Record", "fields": [
    {"name": "op", "type": ["string", "null"]}, {"name": "record_key", "type": ["string", "null"]}]}


def table_properties(mode: str | None) -> dict[str, str]:
    """What a table created with CDC records in hoodie.properties (Hudi's HoodieTableConfig keys)."""
    return {o.CDC_ENABLED.key: "true", o.CDC_LOGGING_MODE.key: mode} if mode else {}


def schema(mode: str, writer_schema: str | dict) -> dict:
    """The CDC records' Avro schema (HoodieCDCUtils.schemaBySupplementalLoggingMode): images are
    the table's records without meta fields, nullable."""
    if mode == "OP_KEY_ONLY":
        return _OP_KEY_SCHEMA
    data = avro_schema.without_meta_fields(writer_schema)

    def field(name: str, kind) -> dict:
        return {"name": name, "type": ["null", kind], "doc": "", "default": None}

    fields = [field("op", "string")]
    if mode == "DATA_BEFORE_AFTER":
        fields += [field("ts_ms", "string"), field("before", data), field("after", avro_schema.full_name(data))]
    else:
        fields += [field("record_key", "string"), field("before", data)]
    out = {"type": "record", "name": "CDC", "doc": "", "fields": fields}
    if data.get("namespace"):
        out["namespace"] = data["namespace"]
    return out


@dataclass(frozen=True)
class Changes:
    """What a merge did to one file group: row indices into its old rows and its incoming rows."""
    updated: list[tuple[int, int]]  # (old, incoming)
    deleted: list[int]              # old
    inserted: list[int]             # incoming


def records(mode: str, instant: str, data_fields: list[str], old: pa.Table, new: pa.Table,
            changes: Changes) -> list[dict]:
    """The CDC records of one file group's merge, inserts first, then updates, then deletes."""
    def images(table: pa.Table, rows: list[int]) -> list[dict | None]:
        if not rows or mode == "OP_KEY_ONLY":
            return [None] * len(rows)
        present = [c for c in data_fields if c in table.column_names]
        taken = table.take(pa.array(rows, pa.int64())).select(present).to_pylist(maps_as_pydicts="strict")
        return [{c: r.get(c) for c in data_fields} for r in taken]

    def keys(table: pa.Table, rows: list[int]) -> list[str]:
        column = table.column(KEY)
        return [column[i].as_py() for i in rows]

    ins, upd = changes.inserted, changes.updated
    upd_old, upd_new = [j for j, _ in upd], [i for _, i in upd]
    ops = [INSERT] * len(ins) + [UPDATE] * len(upd) + [DELETE] * len(changes.deleted)
    key = keys(new, ins) + keys(old, upd_old) + keys(old, changes.deleted)
    before = [None] * len(ins) + images(old, upd_old) + images(old, changes.deleted)
    if mode == "DATA_BEFORE_AFTER":
        after = images(new, ins) + images(new, upd_new) + [None] * len(changes.deleted)
        return [{"op": p, "ts_ms": instant, "before": b, "after": a} for p, b, a in zip(ops, before, after)]
    if mode == "DATA_BEFORE":
        return [{"op": p, "record_key": k, "before": b} for p, k, b in zip(ops, key, before)]
    return [{"op": p, "record_key": k} for p, k in zip(ops, key)]


def log_file_bytes(mode: str, instant: str, writer_schema: str, old: pa.Table, new: pa.Table,
                   changes: Changes) -> bytes:
    """The CDC log file of one file group's merge: one CDC data block."""
    cdc_schema = schema(mode, writer_schema)
    data_fields = [f["name"] for f in avro_schema.without_meta_fields(writer_schema)["fields"]]
    recs = records(mode, instant, data_fields, old, new, changes)
    return encode_blocks([avro_data_block(recs, cdc_schema, instant, block_type=BlockType.CDC_DATA)])
