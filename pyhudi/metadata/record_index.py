"""The `record_index` partition of the metadata table (RFC-08): record key -> the data partition, file
group and instant of the record, in `record-index-NNNN-0` file groups by the key's Java hash
(docs/format.md §7.5-7.7). What one file group's files hold; the Spark jobs that write them are in
`pyhudi.write.record_index`."""
from __future__ import annotations

import re
import uuid
from dataclasses import dataclass

from pyhudi.metadata import contents
from pyhudi.metadata.records import TYPE_RECORD_INDEX, MetadataRecord
from pyhudi.table.timeline import parse_instant_time

AVERAGE_RECORD_SIZE = 48  # bytes per entry Hudi sizes file groups by (RECORD_INDEX_AVERAGE_RECORD_SIZE)
_UUID_FILE_ID = re.compile(r"^([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})-(\d+)$")


@dataclass(frozen=True)
class Sizing:
    """Hudi's record-index sizing keys (hoodie.metadata.record.index.*)."""
    min_count: int = 10
    max_count: int = 10000
    max_group_bytes: int = 1 << 30
    growth_factor: float = 2.0

    def file_group_count(self, records: int) -> int:
        """`HoodieTableMetadataUtil.estimateFileGroupCount`: room for `growth_factor` times the
        records at `AVERAGE_RECORD_SIZE` bytes each, no group above `max_group_bytes`."""
        if self.min_count == self.max_count and self.min_count:
            return self.min_count
        expected = int(-(-(records * self.growth_factor) // 1))
        per_group = self.max_group_bytes // AVERAGE_RECORD_SIZE
        estimate = expected // per_group
        if estimate >= self.max_count:
            return self.max_count
        return self.min_count if estimate <= self.min_count else max(1, estimate)


def instant_millis(instant: str) -> int:
    """An instant time as epoch milliseconds, read in the local time zone as Hudi's generator writes it."""
    return int(parse_instant_time(instant).timestamp() * 1000)


def file_id_fields(file_id: str) -> dict:
    """HoodieRecordIndexInfo's file-id fields: a `<uuid>-<n>` id as two signed longs and the index
    (encoding 0), any other id as itself (encoding 1)."""
    m = _UUID_FILE_ID.match(file_id)
    if not m:
        return {"fileIdHighBits": None, "fileIdLowBits": None, "fileIndex": None, "fileId": file_id,
                "fileIdEncoding": 1}
    bits = uuid.UUID(m[1]).int
    return {"fileIdHighBits": _signed(bits >> 64), "fileIdLowBits": _signed(bits & (2**64 - 1)),
            "fileIndex": int(m[2]), "fileId": "", "fileIdEncoding": 0}


def _signed(u: int) -> int:
    return u - 2**64 if u >= 2**63 else u


def location_record(key: str, partition: str, file_id: str, millis: int) -> MetadataRecord:
    """The entry of `key`: its record lives in `file_id` of data `partition` since `millis`."""
    info = {"partitionName": partition, **file_id_fields(file_id), "instantTime": millis, "position": None}
    return MetadataRecord(key, TYPE_RECORD_INDEX, record_index=info)


def location_of(record: MetadataRecord) -> tuple[str, str, int] | None:
    """(partition, file id, instant millis) of an entry; None for a deletion."""
    info = record.record_index
    if record.deleted or info is None:
        return None
    if info.get("fileIdEncoding") == 1:
        fid = info.get("fileId") or ""
    else:
        bits = (info["fileIdHighBits"] % 2**64) << 64 | info["fileIdLowBits"] % 2**64
        fid = f"{uuid.UUID(int=bits)}-{info['fileIndex']}"
    return info.get("partitionName") or "", fid, int(info.get("instantTime") or 0)


def sorted_records(rows, millis: int | None = None) -> list[MetadataRecord]:
    """Entries of (key, partition, file id[, millis]) rows, one per key (the last wins), sorted by key bytes."""
    by_key = {}
    for row in rows:
        by_key[row[0]] = location_record(row[0], row[1], row[2], millis if millis is not None else row[3])
    return [by_key[k] for k in sorted(by_key, key=lambda k: k.encode("utf-8"))]


def log_file(rows, deletes: list[str], instant: str, compression: str) -> bytes:
    """A record_index log file of one deltacommit: an HFile block of the new locations, a delete block
    of the keys gone (a key moved in the same commit is not deleted)."""
    records = sorted_records(rows, instant_millis(instant))
    moved = {r.key for r in records}
    return contents.log_blocks("record_index", records, [k for k in dict.fromkeys(deletes) if k not in moved],
                               instant, compression)


def base_file(rows, file_name: str, compression: str) -> bytes:
    """A record_index base HFile from (key, partition, file id, millis) rows."""
    return contents.base_hfile(sorted_records(rows), file_name, compression)
