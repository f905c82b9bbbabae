"""Decoded records of metadata-table base HFiles, kept across operations in this process.

A base HFile never changes once written, so a long-running writer (a loop of upserts, a stream)
need not decode the same records again at every commit: partition statistics read the column
stats of every file of the partitions they touch, the cleaner the `files` partition's listing.
RFC-03 keeps the data table's view in memory for the same reason. Records are held per file, known
by path, size and modification time (`MdtState.identity`: a rebuilt metadata table reuses file
names), least recently used files dropped past `MAX_RECORDS`. Records are shared: callers must not
change them (nothing does: merging builds new records)."""
from __future__ import annotations

import threading
from bisect import bisect_left
from collections import OrderedDict

from pyhudi.metadata.codec import decode_record
from pyhudi.metadata.records import MetadataRecord

MAX_RECORDS = 200_000  # about 300 MB of decoded column statistics at most


class FileRecords:
    """What is known of one base file: records by key (None: looked up, not there); `complete`
    once every record of the file is in. A keyed lookup reads whole HFile blocks: their other cells
    are kept undecoded (`raw`) with the key ranges the blocks cover, so a later lookup of a key in
    those ranges - a file another commit just added to the partition - reads nothing."""

    def __init__(self):
        self.records: dict[str, MetadataRecord | None] = {}
        self.complete = False
        self.raw: dict[str, bytes] = {}
        self.schema: str | None = None  # of the raw cells: the file's writer schema
        self._lowers: list[bytes] = []  # sorted, with the matching upper bounds (exclusive both)
        self._uppers: list[bytes | None] = []

    def missing(self, keys) -> list[str]:
        return [] if self.complete else [k for k in keys if k not in self.records and not self._covered(k)]

    def get(self, key: str) -> MetadataRecord | None:
        """The record of a key `missing` did not return (decoded now when it was kept raw)."""
        if key not in self.records:
            value = self.raw.pop(key, None)
            self.records[key] = None if value is None else decode_record(key, value, self.schema)
        return self.records[key]

    def add_blocks(self, cells: dict[str, bytes], ranges: list[tuple[bytes, bytes | None]], schema: str | None
                   ) -> None:
        """Whole blocks' cells not decoded yet, and the key ranges they cover."""
        self.schema = schema
        self.raw.update((k, v) for k, v in cells.items() if k not in self.records)
        for lower, upper in ranges:
            i = bisect_left(self._lowers, lower)
            if i == len(self._lowers) or self._lowers[i] != lower:
                self._lowers.insert(i, lower)
                self._uppers.insert(i, upper)

    def size(self) -> int:
        return len(self.records) + len(self.raw)

    def _covered(self, key: str) -> bool:
        if not self._lowers:
            return False
        row = key.encode("utf-8")  # HFile rows sort as bytes; UTF-8 keeps the code point order
        i = bisect_left(self._lowers, row) - 1
        return i >= 0 and self._lowers[i] < row and ((upper := self._uppers[i]) is None or row < upper)


class BaseRecordCache:
    def __init__(self, max_records: int = MAX_RECORDS):
        self.max_records = max_records
        self._files: OrderedDict[tuple, FileRecords] = OrderedDict()
        self._lock = threading.Lock()

    def file(self, identity: tuple | None) -> FileRecords:
        """The entry of a file (a fresh one, not kept, when the file has no identity)."""
        if identity is None:
            return FileRecords()
        with self._lock:
            entry = self._files.get(identity)
            if entry is None:
                entry = self._files[identity] = FileRecords()
            self._files.move_to_end(identity)
            return entry

    def trim(self) -> None:
        """Drops the least recently used files until the records held fit the bound."""
        with self._lock:
            held = sum(f.size() for f in self._files.values())
            while self._files and held > self.max_records:
                _, dropped = self._files.popitem(last=False)
                held -= dropped.size()

    def clear(self) -> None:
        with self._lock:
            self._files.clear()


BASE_RECORDS = BaseRecordCache()
