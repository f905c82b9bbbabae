"""File groups held by pending table-service plans: a pending compaction's slices, a pending clustering's
input groups. Services plan around them; writes may not update records of a group being clustered."""
from __future__ import annotations

from pyhudi.table import instant_metadata as im
from pyhudi.table.timeline import REQUESTED, Instant, Timeline


def requested_plan(timeline: Timeline, instant: Instant) -> dict:
    """The plan in the requested file of a pending compaction or clustering instant."""
    requested = Instant(instant.requested_time, instant.action, REQUESTED)
    return im.decode(timeline.read(requested), layout_version=timeline.layout) or {}


def clustering_slices(plan: dict) -> list[dict]:
    """The HoodieSliceInfo records of a requested replace (clustering) plan."""
    groups = (plan.get("clusteringPlan") or {}).get("inputGroups") or ()
    return [s for g in groups for s in g.get("slices") or ()]


def held_file_groups(timeline: Timeline, actions: tuple[str, ...] = ("compaction", "clustering")
                     ) -> dict[tuple[str, str], Instant]:
    """(partition, file id) -> the pending plan holding that file group."""
    out: dict[tuple[str, str], Instant] = {}
    for inst in timeline.pending():
        if inst.action not in actions:
            continue
        plan = requested_plan(timeline, inst)
        slices = plan.get("operations") or () if inst.action == "compaction" else clustering_slices(plan)
        for s in slices:
            out[(s["partitionPath"], s["fileId"])] = inst
    return out
