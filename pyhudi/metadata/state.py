"""Snapshots of the two timelines the metadata-table writer works from: the data table's
(`DataTimeline`, pyhudi.metadata.data_timeline) and the MDT's own with its file slices (`MdtState`).

Which MDT blocks count follows the readers' rule (connector `MetadataTable`, Hudi's
`getValidInstantTimestamps`): the block's instant is completed on the MDT, and it is a partition
initialisation, an MDT compaction, or an instant completed on the data timeline (or older than the
data timeline's first active instant).
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from pyhudi.metadata.data_timeline import DataTimeline
from pyhudi.metadata.validity import ABSENT, COMPLETED, PENDING, block_is_valid
from pyhudi.table.file_slices import FileSlice, build_slices, committed_rule
from pyhudi.table.timeline import Instant

if TYPE_CHECKING:
    from pyhudi.metadata.context import MdtContext
    from pyhudi.storage import Entry


class MdtState:
    """A snapshot of the MDT timeline and the data timeline, for one public operation."""

    def __init__(self, ctx: "MdtContext"):
        self.storage = ctx.storage
        self.mdt_path = ctx.mdt_path
        self.timeline = ctx.mdt_timeline()
        self.instants = self.timeline.instants()
        self.completed = {i.requested_time: i for i in self.instants if i.is_completed}
        self.pending = [i for i in self.instants if not i.is_completed]
        self._committed = committed_rule(self.instants)  # archived MDT instants count, as on the data table
        self.data = DataTimeline(ctx.data_timeline())
        self._listings: dict[str, dict[str, Entry]] = {}
        self._slices: dict[str, dict[str, list[FileSlice]]] = {}

    def committed(self, instant: str) -> bool:
        """Whether the MDT's files written at `instant` count: completed, or archived from the MDT timeline."""
        return self._committed(instant)

    def completion(self, instant: str) -> str | None:
        inst = self.completed.get(instant)
        return inst.completion_time if inst else None

    def pending_compactions(self) -> list[Instant]:
        return [i for i in self.pending if i.action == "compaction"]

    def valid_block(self, instant: str | None, log_compacted: bool = False) -> bool:
        """May readers use MDT data written at `instant`? (pyhudi.metadata.validity)"""
        inst = None if instant is None else self.completed.get(instant)
        # archived from the MDT timeline: a deltacommit, as the connector's MetadataTable assumes
        action = inst.action if inst else "deltacommit" if instant and self._committed(instant) else None
        data = self.data
        state = COMPLETED if instant in data.completed else PENDING if instant in data.pending else ABSENT
        return block_is_valid(instant, log_compacted=log_compacted, mdt_action=action,
                              data=state, first_data_instant=data.first)

    def listing(self, part: str) -> list[tuple[str, int]]:
        """(name, size) of the files of an MDT partition."""
        return [(n, e.size) for n, e in self._entries(part).items()]

    def size(self, part: str, name: str) -> int:
        e = self._entries(part).get(name)
        return e.size if e else 0

    def identity(self, part: str, name: str) -> tuple | None:
        """What tells this file from another of the same name (a rebuilt metadata table reuses
        names): its path, size and modification time; None when storage reports no time."""
        e = self._entries(part).get(name)
        if e is None or e.mtime_ns is None:
            return None
        return type(self.storage.fs).__name__, f"{self.mdt_path}/{part}/{name}", e.size, e.mtime_ns

    def _entries(self, part: str) -> dict[str, Entry]:
        if part not in self._listings:
            entries = self.storage.list(f"{self.mdt_path}/{part}")
            self._listings[part] = {e.name: e for e in entries if not e.is_dir}
        return self._listings[part]

    def slices(self, part: str) -> dict[str, list[FileSlice]]:
        if part not in self._slices:
            self._slices[part] = build_slices((n for n, _ in self.listing(part)), self.committed,
                                              self.completion, base_format="hfile")
        return self._slices[part]

    def latest(self, part: str) -> dict[str, FileSlice]:
        return {fid: s[-1] for fid, s in self.slices(part).items()}
