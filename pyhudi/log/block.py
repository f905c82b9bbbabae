"""A log block as pyhudi handles it: its type, its header and footer maps, its content, and
access to the content by block type (docs/format.md §1-§2). Bytes on disk: pyhudi.log.framing."""
from __future__ import annotations

from dataclasses import dataclass, field
from enum import IntEnum
from typing import Mapping

from pyhudi.log.avro_content import decode_avro_content, decode_avro_records, schema_text
from pyhudi.log.cursor import LogFormatError
from pyhudi.log.delete_content import DeleteRecord, decode_delete_content

LOG_FORMAT_VERSION = 1
ROLLBACK_COMMAND = "0"  # COMMAND_BLOCK_TYPE of a rollback command block


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


@dataclass
class LogBlock:
    """One block. `header`/`footer` map key ordinals to strings; their order is kept on write."""
    block_type: int
    header: dict[int, str]
    content: bytes = b""
    footer: dict[int, str] = field(default_factory=dict)
    format_version: int = LOG_FORMAT_VERSION
    offset: int | None = None  # position in the file it was read from
    source: str | None = None  # the file it was read from, for messages
    # a built Parquet block's key summary, serialized (its footer holds it): the writer's metadata-table entry
    key_filter: str | None = field(default=None, compare=False, repr=False)

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
        return self._decoded(decode_avro_content, self.content)

    def records(self) -> list[dict]:
        """Decoded records of an Avro/CDC data block, under the block's SCHEMA header."""
        if self.schema is None:
            raise LogFormatError(f"{self.where()} has no SCHEMA header")
        return self._decoded(decode_avro_records, self.record_bytes(), self.schema)

    def deletes(self) -> list[DeleteRecord]:
        self._expect(BlockType.DELETE)
        return self._decoded(decode_delete_content, self.content)

    def where(self) -> str:
        """The block in messages: type, offset and file."""
        at = "" if self.offset is None else f" at offset {self.offset}"
        return f"{_type_name(self.block_type)} block{at} of {self.source or 'input'}"

    def _decoded(self, decode, *args):
        """decode(*args), its LogFormatError naming this block."""
        try:
            return decode(*args)
        except LogFormatError as e:
            raise LogFormatError(f"{self.where()}: {e}") from None

    def _expect(self, *types: int) -> None:
        if self.block_type not in types:
            names = ", ".join(BlockType(t).name for t in types)
            raise LogFormatError(f"block is {_type_name(self.block_type)}, expected {names}")


def _type_name(t: int) -> str:
    try:
        return BlockType(t).name
    except ValueError:
        return f"unknown type {t}"


def make_header(instant_time: str, schema: str | dict | None = None,
                block_identifier: str | None = None,
                extra: Mapping[int, str] | None = None) -> dict[int, str]:
    """INSTANT_TIME, then SCHEMA and BLOCK_IDENTIFIER when given, then `extra`, in that order."""
    header: dict[int, str] = {HeaderKey.INSTANT_TIME: instant_time}
    if schema is not None:
        header[HeaderKey.SCHEMA] = schema_text(schema)
    if block_identifier is not None:
        header[HeaderKey.BLOCK_IDENTIFIER] = block_identifier
    for k, v in (extra or {}).items():
        header[int(k)] = v
    return header
