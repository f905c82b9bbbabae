"""Hudi log files: block framing and block contents (FORMAT-NOTES §1-§2), written and read.

A log file is a concatenation of blocks; integers are big-endian:

  "#HUDI#" | int64 blockLength | int32 formatVersion (1) | int32 blockType
  | header map | int64 contentLength | content | footer map | int64 totalLength

blockLength counts the bytes after its own field through the trailing totalLength; totalLength
counts from the magic through the footer, i.e. every byte of the block before itself
(= blockLength + 6). A map is int32 count, then per entry int32 key
ordinal, int32 value length, UTF-8 value. Contents:

* Avro / CDC data block: int32 version 3 | int32 count | count x (int32 length | Avro binary)
* Parquet data block: a whole Parquet file
* HFile data block: a whole HFile (built elsewhere; passed through here)
* delete block: int32 version 3 | int32 length | Avro binary of HoodieDeleteRecordList
* command block: empty; header COMMAND_BLOCK_TYPE "0" = rollback of TARGET_INSTANT_TIME
"""
from __future__ import annotations

import datetime as dt
import decimal
import functools
import io
import json
import struct
from dataclasses import dataclass, field
from enum import IntEnum
from typing import Any, Iterable, Mapping

import fastavro
from pyhudi.avro.binary import avro_bytes as _avro_bytes, zigzag as _zigzag

MAGIC = b"#HUDI#"
LOG_FORMAT_VERSION = 1
CONTENT_VERSION = 3   # Avro data block and delete block content version written by Hudi 1.0
ROLLBACK_COMMAND = "0"


class BlockType(IntEnum):
    COMMAND = 0
    DELETE = 1
    CORRUPT = 2
    AVRO_DATA = 3
    HFILE_DATA = 4
    PARQUET_DATA = 5
    CDC_DATA = 6


class HeaderKey(IntEnum):
    INSTANT_TIME = 0
    TARGET_INSTANT_TIME = 1
    SCHEMA = 2
    COMMAND_BLOCK_TYPE = 3
    COMPACTED_BLOCK_TIMES = 4
    RECORD_POSITIONS = 5
    BLOCK_IDENTIFIER = 6
    IS_PARTIAL = 7
    BASE_FILE_INSTANT_TIME_OF_RECORD_POSITIONS = 8


class LogFormatError(ValueError):
    pass


@dataclass
class LogBlock:
    """One block. `header`/`footer` map key ordinals to strings; their order is kept on write."""
    block_type: int
    header: dict[int, str]
    content: bytes = b""
    footer: dict[int, str] = field(default_factory=dict)
    format_version: int = LOG_FORMAT_VERSION
    offset: int | None = None  # position in the file it was read from

    @property
    def instant_time(self) -> str | None:
        return self.header.get(HeaderKey.INSTANT_TIME)

    @property
    def schema(self) -> str | None:
        return self.header.get(HeaderKey.SCHEMA)

    @property
    def target_instant_time(self) -> str | None:
        return self.header.get(HeaderKey.TARGET_INSTANT_TIME)

    def is_rollback(self) -> bool:
        return (self.block_type == BlockType.COMMAND
                and self.header.get(HeaderKey.COMMAND_BLOCK_TYPE) == ROLLBACK_COMMAND)

    def record_bytes(self) -> list[bytes]:
        """Raw Avro records of an Avro/CDC data block."""
        self._expect(BlockType.AVRO_DATA, BlockType.CDC_DATA)
        return decode_avro_content(self.content)

    def records(self) -> list[dict]:
        """Decoded records of an Avro/CDC data block, under the block's SCHEMA header."""
        if self.schema is None:
            raise LogFormatError("data block has no SCHEMA header")
        parsed = _parsed_schema(self.schema)
        return [fastavro.schemaless_reader(io.BytesIO(b), parsed) for b in self.record_bytes()]

    def deletes(self) -> list["DeleteRecord"]:
        self._expect(BlockType.DELETE)
        return decode_delete_content(self.content)

    def _expect(self, *types: int) -> None:
        if self.block_type not in types:
            names = ", ".join(BlockType(t).name for t in types)
            raise LogFormatError(f"block is {_type_name(self.block_type)}, expected {names}")


def _type_name(t: int) -> str:
    try:
        return BlockType(t).name
    except ValueError:
        return f"unknown type {t}"


# ---------------------------------------------------------------- framing


def encode_map(entries: Mapping[int, str]) -> bytes:
    out = [struct.pack(">i", len(entries))]
    for key, value in entries.items():
        raw = value.encode("utf-8")
        out.append(struct.pack(">ii", int(key), len(raw)))
        out.append(raw)
    return b"".join(out)


def encode_block(block: LogBlock) -> bytes:
    """The block's bytes in a log file."""
    if block.format_version != LOG_FORMAT_VERSION:
        raise LogFormatError(f"only log format version {LOG_FORMAT_VERSION} is written")
    body = b"".join([struct.pack(">ii", block.format_version, int(block.block_type)),
                     encode_map(block.header),
                     struct.pack(">q", len(block.content)), block.content,
                     encode_map(block.footer)])
    # blockLength includes the trailing int64; totalLength covers everything before that int64
    return MAGIC + struct.pack(">q", len(body) + 8) + body + struct.pack(">q", len(MAGIC) + 8 + len(body))


def encode_blocks(blocks: Iterable[LogBlock]) -> bytes:
    return b"".join(encode_block(b) for b in blocks)


class _Cursor:
    def __init__(self, data: bytes, pos: int, end: int):
        self.data, self.pos, self.end = data, pos, end

    def take(self, n: int, what: str) -> bytes:
        if n < 0 or self.pos + n > self.end:
            raise LogFormatError(f"block truncated reading {what} at offset {self.pos}")
        chunk = self.data[self.pos: self.pos + n]
        self.pos += n
        return chunk

    def int32(self, what: str) -> int:
        return struct.unpack(">i", self.take(4, what))[0]

    def int64(self, what: str) -> int:
        return struct.unpack(">q", self.take(8, what))[0]

    def map(self, what: str) -> dict[int, str]:
        out = {}
        for _ in range(self.int32(f"{what} entry count")):
            key = self.int32(f"{what} key")
            out[key] = self.take(self.int32(f"{what} value length"), f"{what} value").decode("utf-8")
        return out


def read_blocks(data: bytes) -> list[LogBlock]:
    """Every block of a log file's bytes; LogFormatError names the offset of a bad block."""
    blocks, pos = [], 0
    while pos < len(data):
        block, pos = _read_block(data, pos)
        blocks.append(block)
    return blocks


def _read_block(data: bytes, start: int) -> tuple[LogBlock, int]:
    if data[start: start + 6] != MAGIC:
        raise LogFormatError(f"no log block magic at offset {start}")
    head = _Cursor(data, start + 6, len(data))
    length = head.int64("block length")
    end = head.pos + length - 8  # end of the footer; the trailing total length follows
    if length < 16 or end + 8 > len(data):
        raise LogFormatError(f"block at offset {start} claims {length} bytes; the file ends first")
    c = _Cursor(data, head.pos, end)
    version = c.int32("format version")
    if version != LOG_FORMAT_VERSION:
        raise LogFormatError(f"block at offset {start}: log format version {version} is not supported")
    block_type = c.int32("block type")
    header = c.map("header")
    content = c.take(c.int64("content length"), "content")
    footer = c.map("footer")
    if c.pos != end:
        raise LogFormatError(f"block at offset {start}: {end - c.pos} unread bytes before its end")
    total = struct.unpack(">q", data[end: end + 8])[0]
    if total != end - start:
        raise LogFormatError(f"block at offset {start}: total length {total} != {end - start} (torn write?)")
    return LogBlock(block_type, header, content, footer, version, start), end + 8


def read_log_file(path: str, filesystem=None) -> list[LogBlock]:
    """Blocks of a log file on local disk or, with a pyarrow filesystem, anywhere."""
    if filesystem is None:
        with open(path, "rb") as f:
            return read_blocks(f.read())
    with filesystem.open_input_stream(path) as f:
        return read_blocks(f.read())


# ---------------------------------------------------------------- headers


def make_header(instant_time: str, schema: str | dict | None = None,
                block_identifier: str | None = None,
                extra: Mapping[int, str] | None = None) -> dict[int, str]:
    header: dict[int, str] = {HeaderKey.INSTANT_TIME: instant_time}
    if schema is not None:
        header[HeaderKey.SCHEMA] = schema if isinstance(schema, str) else _schema_text(schema)
    if block_identifier is not None:
        header[HeaderKey.BLOCK_IDENTIFIER] = block_identifier
    for k, v in (extra or {}).items():
        header[int(k)] = v
    return header


def _schema_text(schema: dict) -> str:
    return json.dumps(schema, separators=(",", ":"), ensure_ascii=False)


# ---------------------------------------------------------------- Avro data blocks


@functools.lru_cache(maxsize=32)
def _parsed_schema(text: str):
    return fastavro.parse_schema(json.loads(text))


def encode_avro_content(record_bytes: Iterable[bytes], version: int = CONTENT_VERSION) -> bytes:
    recs = list(record_bytes)
    out = [struct.pack(">ii", version, len(recs))]
    for r in recs:
        out.append(struct.pack(">i", len(r)))
        out.append(r)
    return b"".join(out)


def decode_avro_content(content: bytes) -> list[bytes]:
    c = _Cursor(content, 0, len(content))
    version = c.int32("content version")
    if version not in (2, 3):  # v2 had the same layout; v1 (no per-record lengths) is not read
        raise LogFormatError(f"Avro data block content version {version} is not supported")
    recs = [c.take(c.int32("record length"), "record") for _ in range(c.int32("record count"))]
    if c.pos != len(content):
        raise LogFormatError(f"{len(content) - c.pos} bytes after the last record of an Avro data block")
    return recs


def encode_avro_records(records: Iterable[Mapping[str, Any]], schema: str | dict) -> list[bytes]:
    """Avro binary of each record (dict) under `schema`."""
    parsed = _parsed_schema(schema if isinstance(schema, str) else _schema_text(schema))
    out = []
    for rec in records:
        buf = io.BytesIO()
        fastavro.schemaless_writer(buf, parsed, rec)
        out.append(buf.getvalue())
    return out


def avro_data_block(records, schema: str | dict, instant_time: str, *,
                    block_identifier: str | None = None, extra_header: Mapping[int, str] | None = None,
                    block_type: int = BlockType.AVRO_DATA) -> LogBlock:
    """An Avro data block. `records`: dicts, raw Avro record bytes, or a pyarrow Table."""
    text = schema if isinstance(schema, str) else _schema_text(schema)
    records = _as_records(records)
    if records and not isinstance(records[0], (bytes, bytearray)):
        records = encode_avro_records(records, text)
    header = make_header(instant_time, text, block_identifier, extra_header)
    return LogBlock(block_type, header, encode_avro_content(records))


def _as_records(records) -> list:
    if hasattr(records, "to_pylist"):  # pyarrow Table/RecordBatch: Avro maps want dicts
        return records.to_pylist(maps_as_pydicts="strict")
    return list(records)


# ---------------------------------------------------------------- Parquet and HFile data blocks


def parquet_data_block(table, schema: str | dict, instant_time: str, *,
                       compression: str = "zstd", block_identifier: str | None = None,
                       extra_header: Mapping[int, str] | None = None, **writer_options) -> LogBlock:
    """A Parquet data block: the records (with meta columns) as one in-memory Parquet file,
    without bloom/min/max footer keys (Hudi's Parquet log blocks carry none)."""
    from pyhudi.write.base_file import BaseFileWriter  # local: base_file pulls in pyarrow.parquet

    buf = io.BytesIO()
    writer = BaseFileWriter(buf, schema, compression=compression, bloom_type=None, **writer_options)
    with writer:
        writer.write(table)
        writer.close()
    return LogBlock(BlockType.PARQUET_DATA,
                    make_header(instant_time, writer.avro_json, block_identifier, extra_header),
                    buf.getvalue())


def hfile_data_block(hfile_bytes: bytes, schema: str | dict, instant_time: str, *,
                     block_identifier: str | None = None,
                     extra_header: Mapping[int, str] | None = None) -> LogBlock:
    """An HFile data block around an HFile built by the caller (metadata-table logs)."""
    return LogBlock(BlockType.HFILE_DATA, make_header(instant_time, schema, block_identifier, extra_header),
                    bytes(hfile_bytes))


# ---------------------------------------------------------------- command blocks


def rollback_block(instant_time: str, target_instant_time: str) -> LogBlock:
    """Command block rolling back the blocks `target_instant_time` wrote to this file slice."""
    header = {HeaderKey.INSTANT_TIME: instant_time, HeaderKey.TARGET_INSTANT_TIME: target_instant_time,
              HeaderKey.COMMAND_BLOCK_TYPE: ROLLBACK_COMMAND}
    return LogBlock(BlockType.COMMAND, header)


# ---------------------------------------------------------------- delete blocks

# orderingVal union of HoodieDeleteRecord in Hudi 1.0: null, then one wrapper record per type
# (each `{value: T}`); the branch index is what lands on disk.
WRAPPERS = ("boolean", "int", "long", "float", "double", "bytes", "string", "date", "decimal",
            "time-micros", "timestamp-micros")
_WRAPPER_INDEX = {name: i + 1 for i, name in enumerate(WRAPPERS)}
_DECIMAL_SCALE = 15  # DecimalWrapper: decimal(30, 15)
_EPOCH = dt.datetime(1970, 1, 1, tzinfo=dt.timezone.utc)


@dataclass(frozen=True)
class DeleteRecord:
    """A deleted key. `ordering_type` names the Java wrapper (see WRAPPERS); None infers it
    from the Python value. Hudi writes IntWrapper(0) when there is no ordering value, which is
    the default here; `ordering_value=None` writes the null branch."""
    record_key: str | None
    partition_path: str | None
    ordering_value: Any = 0
    ordering_type: str | None = None

    def wrapper(self) -> str | None:
        if self.ordering_value is None:
            return None
        if self.ordering_type is not None:
            if self.ordering_type not in _WRAPPER_INDEX:
                raise LogFormatError(f"unknown ordering type {self.ordering_type!r}; valid: {', '.join(WRAPPERS)}")
            return self.ordering_type
        return infer_ordering_type(self.ordering_value)


def infer_ordering_type(value: Any) -> str:
    """The wrapper Java would pick for the value's natural Java type."""
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "int" if -2**31 <= value < 2**31 else "long"
    if isinstance(value, float):
        return "double"
    if isinstance(value, (bytes, bytearray)):
        return "bytes"
    if isinstance(value, str):
        return "string"
    if isinstance(value, dt.datetime):
        return "timestamp-micros"
    if isinstance(value, dt.date):
        return "date"
    if isinstance(value, dt.time):
        return "time-micros"
    if isinstance(value, decimal.Decimal):
        return "decimal"
    raise LogFormatError(f"no Hudi ordering-value wrapper for {type(value).__name__}")


def ordering_type_for_avro(field_type) -> str:
    """Wrapper for an ordering field of this Avro type (what Spark hands Hudi's writer)."""
    if isinstance(field_type, list):
        rest = [t for t in field_type if t != "null"]
        field_type = rest[0] if len(rest) == 1 else field_type
    if isinstance(field_type, dict):
        logical, base = field_type.get("logicalType"), field_type.get("type")
        if logical == "decimal":
            return "decimal"
        field_type = base
    mapping = {"boolean": "boolean", "int": "int", "long": "long", "float": "float", "double": "double",
               "bytes": "bytes", "string": "string"}
    if field_type not in mapping:
        raise LogFormatError(f"no ordering-value wrapper for Avro type {field_type!r}")
    return mapping[field_type]


def _optional_string(s: str | None) -> bytes:
    return b"\x00" if s is None else b"\x02" + _avro_bytes(s.encode("utf-8"))


def _twos_complement(n: int) -> bytes:
    """Big-endian minimal two's complement, like Java's BigInteger.toByteArray()."""
    return n.to_bytes(((n if n >= 0 else ~n).bit_length() // 8) + 1, "big", signed=True)


def _encode_wrapped(kind: str, v: Any) -> bytes:
    if kind == "boolean":
        return b"\x01" if v else b"\x00"
    if kind in ("int", "long"):
        return _zigzag(int(v))
    if kind == "float":
        return struct.pack("<f", v)
    if kind == "double":
        return struct.pack("<d", v)
    if kind == "bytes":
        return _avro_bytes(bytes(v))
    if kind == "string":
        return _avro_bytes(str(v).encode("utf-8"))
    if kind == "date":
        return _zigzag(v.toordinal() - dt.date(1970, 1, 1).toordinal() if isinstance(v, dt.date) else int(v))
    if kind == "decimal":
        with decimal.localcontext(prec=80):  # wide enough for decimal(30, 15) without rounding
            unscaled = int(decimal.Decimal(v).scaleb(_DECIMAL_SCALE).to_integral_value())
        return _avro_bytes(_twos_complement(unscaled))
    if kind == "time-micros":
        if isinstance(v, dt.time):
            v = ((v.hour * 60 + v.minute) * 60 + v.second) * 10**6 + v.microsecond
        return _zigzag(int(v))
    if kind == "timestamp-micros":
        if isinstance(v, dt.datetime):
            v = v if v.tzinfo else v.replace(tzinfo=dt.timezone.utc)
            delta = v - _EPOCH
            v = (delta.days * 86400 + delta.seconds) * 10**6 + delta.microseconds
        return _zigzag(int(v))
    raise LogFormatError(f"unknown ordering type {kind!r}")


def encode_delete_list(deletes: Iterable[DeleteRecord]) -> bytes:
    """Avro binary of HoodieDeleteRecordList{deleteRecordList: [HoodieDeleteRecord]}."""
    items = list(deletes)
    out = bytearray()
    if items:
        out += _zigzag(len(items))  # one array block, like Java's encoder
        for d in items:
            out += _optional_string(d.record_key)
            out += _optional_string(d.partition_path)
            kind = d.wrapper()
            out += b"\x00" if kind is None else _zigzag(_WRAPPER_INDEX[kind]) + _encode_wrapped(kind, d.ordering_value)
    out += b"\x00"
    return bytes(out)


def encode_delete_content(deletes: Iterable[DeleteRecord]) -> bytes:
    payload = encode_delete_list(deletes)
    return struct.pack(">ii", CONTENT_VERSION, len(payload)) + payload


def delete_block(deletes: Iterable[DeleteRecord], instant_time: str, schema: str | dict | None = None, *,
                 block_identifier: str | None = None,
                 extra_header: Mapping[int, str] | None = None) -> LogBlock:
    """A delete block; data-table deletes carry the writer SCHEMA header, metadata-table
    bootstrap blocks carry only INSTANT_TIME."""
    return LogBlock(BlockType.DELETE, make_header(instant_time, schema, block_identifier, extra_header),
                    encode_delete_content(deletes))


class _AvroReader:
    def __init__(self, data: bytes):
        self.data, self.pos = data, 0

    def long(self) -> int:
        shift = result = 0
        while True:
            if self.pos >= len(self.data):
                raise LogFormatError("delete block payload truncated")
            b = self.data[self.pos]
            self.pos += 1
            result |= (b & 0x7F) << shift
            if not b & 0x80:
                return (result >> 1) ^ -(result & 1)
            shift += 7

    def raw(self, n: int) -> bytes:
        if n < 0 or self.pos + n > len(self.data):
            raise LogFormatError("delete block payload truncated")
        chunk = self.data[self.pos: self.pos + n]
        self.pos += n
        return chunk

    def bytes_(self) -> bytes:
        return self.raw(self.long())

    def optional_string(self) -> str | None:
        branch = self.long()
        if branch not in (0, 1):
            raise LogFormatError(f"bad union branch {branch} for a [null, string] field")
        return None if branch == 0 else self.bytes_().decode("utf-8")


def _decode_wrapped(r: _AvroReader, kind: str) -> Any:
    if kind == "boolean":
        return r.raw(1) != b"\x00"
    if kind in ("int", "long", "time-micros", "timestamp-micros"):
        return r.long()  # time/timestamp values stay epoch micros (exact round trip)
    if kind == "float":
        return struct.unpack("<f", r.raw(4))[0]
    if kind == "double":
        return struct.unpack("<d", r.raw(8))[0]
    if kind == "bytes":
        return r.bytes_()
    if kind == "string":
        return r.bytes_().decode("utf-8")
    if kind == "date":
        return dt.date(1970, 1, 1) + dt.timedelta(days=r.long())
    if kind == "decimal":
        unscaled = int.from_bytes(r.bytes_(), "big", signed=True)
        return decimal.Decimal(unscaled).scaleb(-_DECIMAL_SCALE)
    raise LogFormatError(f"unknown ordering type {kind!r}")


def decode_delete_list(payload: bytes) -> list[DeleteRecord]:
    r = _AvroReader(payload)
    out = []
    while True:
        count = r.long()
        if count == 0:
            break
        if count < 0:  # a block with its byte size (Avro allows it; Java does not write it)
            count = -count
            r.long()
        for _ in range(count):
            key, part = r.optional_string(), r.optional_string()
            branch = r.long()
            if branch == 0:
                out.append(DeleteRecord(key, part, None))
                continue
            if not 1 <= branch <= len(WRAPPERS):
                raise LogFormatError(f"orderingVal union branch {branch} is not a Hudi 1.0 wrapper")
            kind = WRAPPERS[branch - 1]
            out.append(DeleteRecord(key, part, _decode_wrapped(r, kind), kind))
    if r.pos != len(payload):
        raise LogFormatError(f"{len(payload) - r.pos} bytes after the delete record list")
    return out


def decode_delete_content(content: bytes) -> list[DeleteRecord]:
    c = _Cursor(content, 0, len(content))
    version = c.int32("delete block version")
    if version != CONTENT_VERSION:
        raise LogFormatError(f"delete block version {version} (Java-serialized keys) is not supported")
    payload = c.take(c.int32("delete payload length"), "delete payload")
    if c.pos != len(content):
        raise LogFormatError(f"{len(content) - c.pos} bytes after the delete payload")
    return decode_delete_list(payload)
