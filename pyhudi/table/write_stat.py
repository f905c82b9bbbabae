"""What a write learnt about one file it wrote: the executors' stats row, typed. The commit
metadata takes it as a HoodieWriteStat (`to_commit_stat`); the metadata table takes it whole
(file size, column statistics, bloom filter)."""
from __future__ import annotations

import posixpath
from dataclasses import dataclass
from typing import Any, Mapping

from pyhudi.table import instant_metadata as im


@dataclass(frozen=True, kw_only=True)
class WriteStat:
    partition: str                    # "" when the table is not partitioned
    file_id: str
    path: str                         # relative to the table's base path
    file_size: int = 0                # bytes, after the write
    is_log: bool = False
    num_writes: int = 0
    num_deletes: int = 0
    num_inserts: int = 0
    num_update_writes: int = 0
    prev_commit: str = "null"         # the base instant the file follows; "null" for a new file group
    min_key: str | None = None
    max_key: str | None = None
    base_file: str = ""               # a log file's base file ("" when its group has none)
    column_stats: str | None = None   # JSON from pyhudi.metadata.stats.column_stats_json
    bloom: str | None = None          # Base64 bloom filter of a base file (of a log file: log-file indexing)
    bloom_type: str | None = None     # None: the metadata writer's default
    cdc_path: str | None = None       # the CDC log file written beside a rewritten base file
    cdc_size: int | None = None       # its bytes

    @classmethod
    def from_row(cls, row: Mapping[str, Any]) -> "WriteStat":
        """From a stats row (pyhudi.write.executor.STATS_SCHEMA) or any mapping of these fields."""
        return cls(**row)

    def to_commit_stat(self) -> dict:
        """The HoodieWriteStat commit metadata lists for this file."""
        stat = im.write_stat(
            fileId=self.file_id, path=self.path, prevCommit=self.prev_commit, numWrites=self.num_writes,
            numDeletes=self.num_deletes, numUpdateWrites=self.num_update_writes, numInserts=self.num_inserts,
            totalWriteBytes=self.file_size, totalWriteErrors=0, partitionPath=self.partition,
            fileSizeInBytes=self.file_size, minEventTime=None, maxEventTime=None,
            cdcStats={self.cdc_path: self.cdc_size} if self.cdc_path else None)
        if self.is_log:
            stat.update(logVersion=1, logOffset=0, baseFile=self.base_file or "",
                        logFiles=[posixpath.basename(self.path)])
        return stat


def by_partition(stats: list[WriteStat]) -> dict[str, list[dict]]:
    """partition -> HoodieWriteStats, as commit metadata holds them."""
    out: dict[str, list[dict]] = {}
    for s in stats:
        out.setdefault(s.partition, []).append(s.to_commit_stat())
    return out


@dataclass(frozen=True)
class Counts:
    """The records a commit inserted, updated and deleted (the sums of its HoodieWriteStats), as SQL DML
    reports them."""
    instant: str
    inserted: int
    updated: int
    deleted: int

    @classmethod
    def of(cls, instant: str, stats: list[WriteStat]) -> "Counts":
        return cls(instant, sum(s.num_inserts for s in stats), sum(s.num_update_writes for s in stats),
                   sum(s.num_deletes for s in stats))


def summary(operation: str, counts: Counts, files: int, seconds: float) -> str:
    """One line of what a commit did: "upsert 2026...: 1,000 inserted, 50 updated, 3 deleted, 12 files, 2.1 s"."""
    return (f"{operation} {counts.instant}: {counts.inserted:,} inserted, {counts.updated:,} updated, "
            f"{counts.deleted:,} deleted, {files:,} files, {seconds:.1f} s")
