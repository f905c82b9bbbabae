"""Whether readers may use a metadata-table log block written at an instant (the write protocol
commits the MDT before the data table, so a block may belong to a data write that never completed).

The same rule as the connector's io.hudimeta.metadata.BlockValidity; both run the conformance vectors
of tests/conformance/metadata_block_validity.json.
"""
from __future__ import annotations

from pyhudi.metadata.layout import INIT_INSTANT_PREFIX

COMPLETED, PENDING, ABSENT = "COMPLETED", "PENDING", "ABSENT"  # an instant on the data timeline
_INSTANT_DIGITS = 17


def block_is_valid(instant: str | None, *, log_compacted: bool, mdt_action: str | None, data: str,
                   first_data_instant: str | None) -> bool:
    """`mdt_action`: the instant's action as completed (not rolled back) on the MDT, None when it is not;
    `data`: COMPLETED, PENDING or ABSENT on the data timeline; `first_data_instant`: the data
    timeline's first active instant."""
    if instant is None or mdt_action is None:
        return False
    if log_compacted or instant.startswith(INIT_INSTANT_PREFIX):
        return True  # the MDT's own writes need only complete on the MDT
    if mdt_action != "deltacommit":
        return True  # MDT compaction
    if data != ABSENT:
        return data == COMPLETED
    # 0.x (v6) MDT-internal deltacommits: <instant> + 3-digit suffix; else archived on the data table
    return len(instant) > _INSTANT_DIGITS or (first_data_instant is not None and instant < first_data_instant)
