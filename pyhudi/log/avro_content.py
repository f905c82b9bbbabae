"""Content of an Avro (or CDC) data block (docs/format.md §2):

  int32 version 3 | int32 count | count x (int32 length | Avro binary of one record)
"""
from __future__ import annotations

import io
import struct
from typing import Any, Iterable, Mapping

import fastavro

from pyhudi.avro.schema import compiled, to_json
from pyhudi.log.cursor import Cursor, LogFormatError

CONTENT_VERSION = 3  # written by Hudi 1.0


def schema_text(schema: str | dict) -> str:
    """Schema JSON text as a header carries it; text is kept as given."""
    return schema if isinstance(schema, str) else to_json(schema)


def encode_avro_content(record_bytes: Iterable[bytes], version: int = CONTENT_VERSION) -> bytes:
    recs = list(record_bytes)
    out = [struct.pack(">ii", version, len(recs))]
    for r in recs:
        out.append(struct.pack(">i", len(r)))
        out.append(r)
    return b"".join(out)


def decode_avro_content(content: bytes) -> list[bytes]:
    c = Cursor(content, 0, len(content))
    version = c.int32("content version")
    if version not in (2, 3):  # v2 had the same layout; v1 (no per-record lengths) is not read
        raise LogFormatError(f"Avro data block content version {version} is not supported")
    recs = [c.take(c.int32("record length"), "record") for _ in range(c.int32("record count"))]
    if c.pos != len(content):
        raise LogFormatError(f"{len(content) - c.pos} bytes after the last record of an Avro data block")
    return recs


def encode_avro_records(records: Iterable[Mapping[str, Any]], schema: str | dict) -> list[bytes]:
    """Avro binary of each record (dict) under `schema`."""
    parsed = compiled(schema_text(schema))
    out = []
    for rec in records:
        buf = io.BytesIO()
        fastavro.schemaless_writer(buf, parsed, rec)
        out.append(buf.getvalue())
    return out


def decode_avro_records(record_bytes: Iterable[bytes], schema: str) -> list[dict]:
    """Records (dicts) from their Avro binary under the schema text."""
    parsed = compiled(schema)
    return [fastavro.schemaless_reader(io.BytesIO(b), parsed) for b in record_bytes]
