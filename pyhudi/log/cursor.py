"""Bounds-checked big-endian reading of log bytes, shared by block framing and block contents,
and the error every malformed log raises."""
from __future__ import annotations

import struct

from pyhudi.errors import HudiError


class LogFormatError(HudiError, ValueError):
    pass


class Cursor:
    """Reads `data[pos:end]` front to back; running past `end` is a LogFormatError naming the field."""

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
        """A header/footer map: int32 count, then per entry int32 key, int32 length, UTF-8 value."""
        out = {}
        count = self.int32(f"{what} entry count")
        if count < 0:
            raise LogFormatError(f"{what} entry count {count} at offset {self.pos - 4} is negative")
        for _ in range(count):
            key = self.int32(f"{what} key")
            at = self.pos
            try:
                out[key] = self.take(self.int32(f"{what} value length"), f"{what} value").decode("utf-8")
            except UnicodeDecodeError:
                raise LogFormatError(f"{what} value of key {key} at offset {at} is not UTF-8") from None
        return out
