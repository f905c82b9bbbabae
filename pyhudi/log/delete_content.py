"""Content of a delete block (docs/format.md §2.4):

  int32 version 3 | int32 length | Avro binary of HoodieDeleteRecordList

The record list is written and read by hand: each HoodieDeleteRecord is [null, string]
recordKey, [null, string] partitionPath and the orderingVal union, whose wrappers are in
pyhudi.log.ordering.
"""
from __future__ import annotations

import struct
from dataclasses import dataclass
from typing import Any, Iterable

from pyhudi.avro.binary import AvroReader, optional_string, zigzag
from pyhudi.log.cursor import Cursor, LogFormatError
from pyhudi.log.ordering import WRAPPER_INDEX, WRAPPERS, decode_wrapped, encode_wrapped, infer_ordering_type

CONTENT_VERSION = 3  # Avro-encoded keys (Hudi 1.0); earlier versions hold Java-serialized keys


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
            if self.ordering_type not in WRAPPER_INDEX:
                raise LogFormatError(f"unknown ordering type {self.ordering_type!r}; valid: {', '.join(WRAPPERS)}")
            return self.ordering_type
        return infer_ordering_type(self.ordering_value)


def encode_delete_list(deletes: Iterable[DeleteRecord]) -> bytes:
    """Avro binary of HoodieDeleteRecordList{deleteRecordList: [HoodieDeleteRecord]}."""
    items = list(deletes)
    out = bytearray()
    if items:
        out += zigzag(len(items))  # one array block, like Java's encoder
        for d in items:
            out += optional_string(d.record_key)
            out += optional_string(d.partition_path)
            kind = d.wrapper()
            out += b"\x00" if kind is None else zigzag(WRAPPER_INDEX[kind]) + encode_wrapped(kind, d.ordering_value)
    out += b"\x00"
    return bytes(out)


def encode_delete_content(deletes: Iterable[DeleteRecord]) -> bytes:
    payload = encode_delete_list(deletes)
    return struct.pack(">ii", CONTENT_VERSION, len(payload)) + payload


def decode_delete_list(payload: bytes) -> list[DeleteRecord]:
    r = AvroReader(payload, "delete block payload", LogFormatError)
    out: list[DeleteRecord] = []
    while True:
        count = r.long()
        if count == 0:
            break
        if count < 0:  # a block with its byte size (Avro allows it; Java does not write it)
            count = -count
            r.long()
        out.extend(_decode_record(r) for _ in range(count))
    if r.pos != len(payload):
        raise LogFormatError(f"{len(payload) - r.pos} bytes after the delete record list")
    return out


def _decode_record(r: AvroReader) -> DeleteRecord:
    key, part = r.optional_string(), r.optional_string()
    branch = r.long()
    if branch == 0:
        return DeleteRecord(key, part, None)
    if not 1 <= branch <= len(WRAPPERS):
        raise LogFormatError(f"orderingVal union branch {branch} is not a Hudi 1.0 wrapper")
    kind = WRAPPERS[branch - 1]
    return DeleteRecord(key, part, decode_wrapped(r, kind), kind)


def decode_delete_content(content: bytes) -> list[DeleteRecord]:
    c = Cursor(content, 0, len(content))
    version = c.int32("delete block version")
    if version != CONTENT_VERSION:
        raise LogFormatError(f"delete block version {version} (Java-serialized keys) is not supported")
    payload = c.take(c.int32("delete payload length"), "delete payload")
    if c.pos != len(content):
        raise LogFormatError(f"{len(content) - c.pos} bytes after the delete payload")
    return decode_delete_list(payload)
