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
from collections import OrderedDict

from pyhudi.metadata.records import MetadataRecord

MAX_RECORDS = 200_000  # about 300 MB of decoded column statistics at most


class FileRecords:
    """What is known of one base file: records by key (None: looked up, not there); `complete`
    once every record of the file is in."""

    def __init__(self):
        self.records: dict[str, MetadataRecord | None] = {}
        self.complete = False

    def missing(self, keys) -> list[str]:
        return [] if self.complete else [k for k in keys if k not in self.records]


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
            held = sum(len(f.records) for f in self._files.values())
            while self._files and held > self.max_records:
                _, dropped = self._files.popitem(last=False)
                held -= len(dropped.records)

    def clear(self) -> None:
        with self._lock:
            self._files.clear()


BASE_RECORDS = BaseRecordCache()
