"""Savepoints: a completed `savepoint` instant at a commit's time keeps that commit's files from
cleaning and its instants from archival, so the table can be restored to it."""
from __future__ import annotations

from pyhudi.table import instant_metadata as im
from pyhudi.table.timeline import Timeline


def savepoint_times(timeline: Timeline) -> list[str]:
    """Instant times of the completed savepoints, oldest first."""
    return [i.requested_time for i in timeline.completed(("savepoint",))]


def savepointed_files(timeline: Timeline) -> dict[str, set[str]]:
    """partition -> names of the files some completed savepoint keeps."""
    out: dict[str, set[str]] = {}
    for inst in timeline.completed(("savepoint",)):
        meta = im.decode(timeline.read(inst), im.SAVEPOINT, layout_version=timeline.layout)
        for partition, pm in (meta.get("partitionMetadata") or {}).items():
            out.setdefault(partition, set()).update(pm.get("savepointDataFile") or ())
    return out
