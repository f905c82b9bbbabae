"""Content of an Avro (or CDC) data block (docs/format.md §2):

  int32 version 3 | int32 count | count x (int32 length | Avro binary of one record)
"""
from __future__ import annotations

import io
import struct
from typing import Any, Iterable, Mapping

import fastavro
import pyarrow as pa

from pyhudi.avro import columnar
from pyhudi.avro.schema import DECODE_ERRORS, compiled, parse, to_json
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


# below this many rows the column-at-a-time encoder's fixed cost (about 2 ms) exceeds fastavro's per-row cost
COLUMNAR_MIN_ROWS = 64


def encode_avro_table(table: pa.Table, schema: str | dict) -> bytes | None:
    """The content of an Avro data block holding an Arrow table's rows, encoded a column at a time; None
    when the schema has a field only the record-by-record encoder writes, or the rows are few."""
    if table.num_rows < COLUMNAR_MIN_ROWS:
        return None
    rows = columnar.encode_rows(table, parse(schema))
    if rows is None:
        return None
    return struct.pack(">ii", CONTENT_VERSION, table.num_rows) + columnar.framed(rows)


def decode_avro_content(content: bytes) -> list[bytes]:
    c = Cursor(content, 0, len(content))
    version = c.int32("content version")
    if version not in (2, 3):  # v2 had the same layout; v1 (no per-record lengths) is not read
        raise LogFormatError(f"Avro data block content version {version} is not supported")
    count = c.int32("record count")
    if count < 0:
        raise LogFormatError(f"Avro data block claims {count} records")
    recs = [c.take(c.int32("record length"), "record") for _ in range(count)]
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
    """Records (dicts) from their Avro binary under the schema text; each must fill its bytes
    exactly. Anything that does not decode is a LogFormatError."""
    try:
        parsed = compiled(schema)
    except DECODE_ERRORS as e:
        raise LogFormatError(f"SCHEMA header is not an Avro schema ({type(e).__name__}: {e})") from None
    out: list[Any] = []  # what fastavro decodes: dicts under a data block's record schema
    for i, raw in enumerate(record_bytes):
        buf = io.BytesIO(raw)
        try:
            out.append(fastavro.schemaless_reader(buf, parsed))
        except DECODE_ERRORS as e:
            raise LogFormatError(f"record {i} does not decode under the SCHEMA header ({type(e).__name__}: {e})") \
                from None
        if buf.tell() != len(raw):
            raise LogFormatError(f"record {i} has {len(raw) - buf.tell()} bytes its SCHEMA header does not read")
    return out
