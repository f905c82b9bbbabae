"""MDT compaction: each file group's latest slice merged into a new base HFile
(compaction.requested with a HoodieCompactionPlan, inflight, completed as commit)."""
from __future__ import annotations

import time
from operator import itemgetter

from pyhudi.metadata import contents
from pyhudi.metadata.codec import decode_record, encode_record, renamer
from pyhudi.metadata.context import MdtContext
from pyhudi.metadata.reader import SliceRead, read_for_rewrite
from pyhudi.metadata.schema import schema_text_without_meta_fields
from pyhudi.metadata.state import MdtState
from pyhudi.table import file_names
from pyhudi.table import instant_metadata as im
from pyhudi.table.file_slices import FileSlice, file_id_and_instant
from pyhudi.table.timeline import Instant

DEFAULT_MAX_DELTACOMMITS = 10  # hoodie.metadata.compact.max.delta.commits
MAX_PARQUET_FILE_SIZE = 120 * 1024 * 1024  # hoodie.parquet.max.file.size, used by compaction metrics
MB = 1024 * 1024


def deltacommits_since_compaction(state: MdtState) -> int:
    last = max((t for t, i in state.completed.items() if i.action == "commit"), default="")
    return sum(1 for t, i in state.completed.items() if i.action == "deltacommit" and t > last)


def _operation(state: MdtState, part: str, fid: str, sl: FileSlice) -> dict:
    """The plan's operation for one slice, with Hudi's IO metrics."""
    log_size = sum(state.size(part, n) for n in sl.logs)
    base_size = state.size(part, sl.base) if sl.base else 0
    read_mb = (base_size + log_size) // MB
    write_mb = (base_size if sl.base else MAX_PARQUET_FILE_SIZE) // MB
    return {"baseInstantTime": sl.base_instant, "deltaFilePaths": list(sl.logs), "dataFilePath": sl.base,
            "fileId": fid, "partitionPath": part,
            "metrics": {"TOTAL_LOG_FILES": float(len(sl.logs)), "TOTAL_IO_MB": float(read_mb + write_mb),
                        "TOTAL_IO_READ_MB": float(read_mb), "TOTAL_LOG_FILES_SIZE": float(log_size),
                        "TOTAL_IO_WRITE_MB": float(write_mb)},
            "bootstrapFilePath": None}


def compact(ctx: MdtContext, partitions: list[str]) -> str | None:
    """Merges the latest slice of every file group of `partitions` (the writer has rolled back what failed);
    None when there is nothing to merge or a data instant at or before the latest MDT deltacommit is pending
    (its blocks may still become valid or be rolled back: Hudi's rule)."""
    state = MdtState(ctx)
    latest = max((t for t, i in state.completed.items() if i.action == "deltacommit"), default=None)
    if latest and any(t <= latest for t in state.data.pending):
        return None
    slices = [(part, fid, sl) for part in partitions for fid, sl in sorted(state.latest(part).items())
              if sl.logs]  # a slice without logs has nothing to merge
    if not slices:
        return None
    tl = state.timeline
    c = tl.new_instant_time()
    plan = {"operations": [_operation(state, *s) for s in slices], "extraMetadata": {}, "version": 2,
            "strategy": None, "preserveHoodieMetadata": False, "missingSchedulePartitions": []}
    requested = tl.create_requested("compaction", im.encode(im.COMPACTION_PLAN, plan), requested_time=c)
    inflight = tl.transition_to_inflight(requested, b"")
    stats: dict[str, list[dict]] = {}
    for task, (part, _, sl) in enumerate(slices):
        stat = compact_slice(ctx, state, part, sl, c, task)
        if stat is not None:
            stats.setdefault(part, []).append(stat)
    meta = im.commit_metadata(stats, "COMPACT", schema_text_without_meta_fields(), compacted=True)
    tl.complete(inflight, im.encode(im.COMMIT, meta))
    return c


def compact_slice(ctx: MdtContext, state: MdtState, part: str, sl: FileSlice, instant: str,
                  task: int) -> dict | None:
    """Writes the merged base HFile of one slice; returns its write stat (None: nothing to write)."""
    start = time.monotonic()
    read = read_for_rewrite(state, part, sl)
    scan = contents.millis_since(start)
    if not sl.base and not read.log_records:
        return None
    name = str(file_names.BaseFileName(sl.file_id, f"{task}-2-{task}", instant, "hfile"))
    cells = _merged_cells(read, name)
    data = contents.base_hfile_of_cells(cells, ctx.compression)
    ctx.storage.write(f"{ctx.mdt_path}/{part}/{name}", data)
    keys = {k for k, r in read.records.items() if not r.deleted}  # the untouched are in no log: no update or insert
    deleted = sum(1 for r in read.records.values() if r.deleted and (r.key in read.base_keys or r.key in read.log_keys))
    return contents.write_stat(
        fileId=sl.file_id, path=f"{part}/{name}", prevCommit=sl.base_instant if sl.base else "null",
        numWrites=len(cells), numDeletes=deleted, numUpdateWrites=len(keys & read.base_keys & read.log_keys),
        totalWriteBytes=len(data), partitionPath=part, totalLogRecords=read.log_records,
        totalUpdatedRecordsCompacted=len(read.log_keys), numInserts=len(keys & (read.log_keys - read.base_keys)),
        totalLogBlocks=read.log_blocks, totalRollbackBlocks=read.rollback_blocks, fileSizeInBytes=len(data),
        prevBaseFile=sl.base, runtimeStats=contents.runtime(scan=scan, upsert=contents.millis_since(start)),
        totalLogFilesCompacted=len(sl.logs), totalLogSizeCompacted=sum(state.size(part, n) for n in sl.logs))


def _merged_cells(read: SliceRead, name: str) -> list[tuple[bytes, bytes]]:
    """The new base file's cells in key order: untouched base cells renamed to `name` as they are,
    merged records encoded."""
    rename = renamer(name)
    cells = [(r.key.encode("utf-8"), encode_record(r, name)) for r in read.records.values() if not r.deleted]
    for row, value in read.untouched or ():
        renamed = rename(value)
        if renamed is None:  # not laid out as ours are: decoded and encoded
            key = row.decode("utf-8")
            renamed = encode_record(decode_record(key, value), name)
        cells.append((row, renamed))
    cells.sort(key=itemgetter(0))
    return cells


def rollback_compaction(ctx: MdtContext, inst: Instant) -> None:
    """Removes the base files of a compaction that never completed, then its instant files."""
    for part in ctx.partition_dirs():
        for e in ctx.storage.list(f"{ctx.mdt_path}/{part}"):
            parsed = None if e.is_dir else file_id_and_instant(e.name)
            if parsed and parsed[1] == inst.requested_time and not parsed[2]:
                ctx.storage.delete(f"{ctx.mdt_path}/{part}/{e.name}")
    ctx.mdt_timeline().delete_pending(inst)
