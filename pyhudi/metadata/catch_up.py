"""Catching up with the data timeline: the completed data writes the MDT misses get their MDT
deltacommit, from their commit metadata and the footers of the base files they wrote. A write is
missed when it completed while the MDT was being built (or in the moment before the build marked
it done)."""
from __future__ import annotations

import posixpath
from typing import Callable

from pyhudi.metadata.context import MdtContext
from pyhudi.metadata.layout import INIT_INSTANT_PREFIX
from pyhudi.metadata.state import MdtState
from pyhudi.table import file_names
from pyhudi.table import instant_metadata as im
from pyhudi.table.timeline import WRITE_ACTIONS, Instant, Timeline
from pyhudi.table.write_stat import WriteStat

# writes the MDT deltacommit of a completed data instant: (instant, action, write stats, replaced file ids,
# operation, schema), as MetadataWriter.commit_now does
Commit = Callable[..., object]


def catch_up(ctx: MdtContext, covered: Callable[[Instant], bool] | None, commit: Commit
             ) -> tuple[list[str], MdtState]:
    """Applies the missed writes in completion order until none is left; returns their instant
    times and the state it last read (current: nothing was applied after it). `covered(instant)`:
    whether the MDT's initial listing holds that instant's files (default: it completed no later
    than the initialisation)."""
    applied: list[str] = []
    while True:
        state = MdtState(ctx)
        covered_by = covered or covered_by_init(state)
        missed = sorted((i for i in state.data.completed.values()
                         if i.action in WRITE_ACTIONS and i.requested_time not in state.completed
                         and not covered_by(i)), key=lambda i: (i.completion_time or "", i.requested_time))
        if not missed:
            return applied, state
        for inst in missed:
            apply_data_instant(ctx, commit, state.data.timeline, inst)
            applied.append(inst.requested_time)


def covered_by_init(state: MdtState) -> Callable[[Instant], bool]:
    """Data instants that completed before the MDT's initialisation did (the initial listing
    holds their files)."""
    inits = [i.completion_time for t, i in state.completed.items() if t.startswith(INIT_INSTANT_PREFIX)]
    done = [i.completion_time for i in state.completed.values() if i.completion_time]
    mark = max(t for t in inits if t) if inits and all(inits) else min(done, default=None)
    if mark is None:
        return lambda i: True
    return lambda i: (i.completion_time or "") <= mark


def _write_stat_of(ctx: MdtContext, partition: str, s: dict) -> WriteStat:
    """A write stat as `commit` takes it, from a commit-metadata stat (and the file's footer)."""
    name = posixpath.basename(s["path"])
    is_log = file_names.is_log(name)
    col_stats = bloom = bloom_type = None
    if not is_log and name.endswith(".parquet"):
        col_stats, bloom, bloom_type = ctx.footer(partition, name)
    cdc_path, cdc_size = next(iter((s.get("cdcStats") or {}).items()), (None, None))
    return WriteStat(partition=partition, file_id=s.get("fileId") or "", path=s["path"],
                     file_size=s.get("fileSizeInBytes") or 0, is_log=is_log, num_writes=s.get("numWrites") or 0,
                     column_stats=col_stats, bloom=bloom, bloom_type=bloom_type, cdc_path=cdc_path,
                     cdc_size=cdc_size)


def apply_data_instant(ctx: MdtContext, commit: Commit, timeline: Timeline, inst: Instant) -> None:
    """Writes the MDT deltacommit of a completed data instant."""
    meta = im.decode(timeline.read(inst), layout_version=timeline.layout)
    stats = [_write_stat_of(ctx, partition, s) for partition, s in im.write_stats(meta) if s.get("path")]
    commit(inst.requested_time, inst.action, stats, im.replaced_file_ids(meta),
                      operation=meta.get("operationType"), schema=im.schema_of(meta))
