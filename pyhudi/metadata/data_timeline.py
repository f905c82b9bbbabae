"""What the metadata-table writer needs of the data table's timeline: its instants by state, the rule of
which file versions are committed, the file groups replaced, and the latest schema."""
from __future__ import annotations

from pyhudi.table import instant_metadata as im
from pyhudi.table.file_slices import committed_rule
from pyhudi.table.timeline import WRITE_ACTIONS, Instant, Timeline


class DataTimeline:
    """What the MDT writer needs from the data table's timeline."""

    def __init__(self, timeline: Timeline):
        self.timeline = timeline
        self.instants = timeline.instants()
        self.completed = {i.requested_time: i for i in self.instants if i.is_completed}
        self.pending = {i.requested_time: i for i in self.instants if not i.is_completed}
        self.is_committed = committed_rule(self.instants)
        self.first = min((i.requested_time for i in self.instants), default=None)

    def completion(self, instant: str) -> str | None:
        inst = self.completed.get(instant)
        return inst.completion_time if inst else None

    def _metadata(self, inst: Instant) -> dict:
        return im.decode(self.timeline.read(inst), layout_version=self.timeline.layout)

    def replaced_file_groups(self) -> dict[str, set[str]]:
        """partition -> file ids replaced by completed replacecommits (and clusterings)."""
        out: dict[str, set[str]] = {}
        for inst in self.completed.values():
            if inst.action != "replacecommit":
                continue
            for p, ids in im.replaced_file_ids(self._metadata(inst)).items():
                out.setdefault(p, set()).update(ids)
        return out

    def latest_schema(self) -> str | None:
        for inst in sorted(self.completed.values(), key=lambda i: i.requested_time, reverse=True):
            if inst.action not in WRITE_ACTIONS:
                continue
            schema = im.schema_of(self._metadata(inst))
            if schema:
                return schema
        return None
