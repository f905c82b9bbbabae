"""What every service instant shares: the table it works on, and its commit (the metadata table at
the service's instant, then the completed instant file: the same order as a write's commit)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Iterable, Mapping

from pyhudi.faults import crash_point
from pyhudi.metadata import FILES, MetadataWriter
from pyhudi.metadata.layout import completed_partitions
from pyhudi.storage import Storage
from pyhudi.table import instant_metadata as im
from pyhudi.table import properties
from pyhudi.table.timeline import Instant, Timeline
from pyhudi.table.write_stat import WriteStat

Progress = Callable[[str], None]  # one line of progress ("compacting 3/12 file groups")


def no_progress(_: str) -> None:
    pass


@dataclass
class ServiceTable:
    """One table as a service sees it: storage, base path, hoodie.properties, timeline."""
    storage: Storage
    base: str
    props: dict[str, str]
    timeline: Timeline

    @classmethod
    def open(cls, path: str) -> "ServiceTable":
        storage, base = Storage.for_uri(path)
        props = properties.load(storage, base)
        return cls(storage, base, props, Timeline.for_table(storage, base, props))

    @property
    def is_merge_on_read(self) -> bool:
        return self.props.get(properties.TABLE_TYPE) == "MERGE_ON_READ"

    def metadata_writer(self) -> MetadataWriter | None:
        """The metadata table to commit a service instant to: None when the table has none (readers
        list storage then). It keeps the partitions the table has, so a service drops none."""
        props = properties.load(self.storage, self.base)
        parts = [p for p in completed_partitions(props)] or [FILES]
        mdt = MetadataWriter(self.storage, self.base, props, partitions=parts)
        return mdt if mdt.exists() and FILES in mdt.partitions() else None


def commit(table: ServiceTable, inflight: Instant, kind: str, meta: Mapping[str, Any], *,
           write_stats: Iterable[WriteStat] = (), replaced: Mapping[str, Iterable[str]] | None = None,
           deleted: Mapping[str, Iterable[str]] | None = None, operation: str | None = None,
           schema: str | None = None) -> Instant:
    """The metadata table commits at the service's instant (files added, replaced, deleted), then
    the instant completes with `meta` encoded as `kind`."""
    mdt = table.metadata_writer()
    if mdt is not None:
        mdt.commit(inflight.requested_time, inflight.action, list(write_stats), replaced, deleted,
                   operation=operation, schema=schema)
    crash_point("after_metadata")
    crash_point("before_complete")
    return table.timeline.complete(inflight, im.encode(kind, meta))
