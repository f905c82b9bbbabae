"""What every service instant shares: the table it works on, and its commit (the metadata table at
the service's instant, then the completed instant file: the same order as a write's commit)."""
from __future__ import annotations

import contextlib
import logging
import posixpath
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Iterator, Mapping

from pyhudi.config import check
from pyhudi.config import options as o
from pyhudi.errors import HudiError
from pyhudi.faults import crash_point
from pyhudi.metadata import FILES, MetadataWriter, listing_from_storage
from pyhudi.metadata.layout import completed_partitions, is_supported
from pyhudi.storage import Storage
from pyhudi.table import instant_metadata as im
from pyhudi.table import properties
from pyhudi.table.rollback import marker_files
from pyhudi.table.timeline import INFLIGHT, REQUESTED, Instant, Timeline
from pyhudi.table.write_stat import WriteStat
from pyhudi.write import concurrency

log = logging.getLogger(__name__)

Progress = Callable[[str], None]  # one line of progress ("compacting 3/12 file groups")


def no_progress(_: str) -> None:
    pass


def checked(options: Mapping[str, str] | None) -> dict[str, str]:
    """A service's options, refused as a write's are (unknown or unsupported keys, bad values) before
    anything is written."""
    options = {k: v for k, v in (options or {}).items() if v is not None}
    check(options)
    for opt in o.honoured():
        opt.get(options)
    return options


@dataclass
class ServiceTable:
    """One table as a service sees it: storage, base path, hoodie.properties, timeline, and the service's
    options (which say whether other writers may be at work)."""
    storage: Storage
    base: str
    props: dict[str, str]
    timeline: Timeline
    options: Mapping[str, str] = field(default_factory=dict)

    @classmethod
    def open(cls, path: str, options: Mapping[str, str] | None = None) -> "ServiceTable":
        storage, base = Storage.for_uri(path)
        props = properties.load(storage, base)
        return cls(storage, base, props, Timeline.for_table(storage, base, props), dict(options or {}))

    def locked(self) -> contextlib.AbstractContextManager:
        """The table lock with several writers: a plan is made, and an instant committed, while no writer
        commits (hoodie.write.concurrency.mode)."""
        return concurrency.Concurrency.of(self.options).shared_lock(self.storage, self.base)

    @property
    def uri(self) -> str:
        """The table's path as Spark and the connector take it."""
        if self.storage.local:
            return self.base
        assert self.storage.uri is not None  # Storage.for_uri keeps the URI of every storage that is not local
        return self.storage.uri

    @property
    def is_merge_on_read(self) -> bool:
        return self.props.get(properties.TYPE) == "MERGE_ON_READ"

    def metadata_writer(self) -> MetadataWriter | None:
        """The metadata table to commit a service instant to: None when the table has none (readers
        list storage then). It keeps the partitions the table has, so a service drops none (those pyhudi
        does not write, like a record index, are left as they are)."""
        mdt = self._any_metadata_writer()
        return mdt if mdt.exists() and FILES in mdt.partitions() else None

    def files(self) -> dict[str, dict[str, int]]:
        """partition -> file name -> bytes, from the metadata table's files partition when there is one, else
        a listing of storage's committed files."""
        mdt = self.metadata_writer()
        if mdt is not None:
            return mdt.files_listing()
        return {p: {n: size for n, size, _ in files}
                for p, files in listing_from_storage(self.storage, self.base, self.timeline, self.props).items()}

    def _any_metadata_writer(self) -> MetadataWriter:
        props = properties.load(self.storage, self.base)
        parts = [p for p in completed_partitions(props) if is_supported(p)] or [FILES]
        return MetadataWriter(self.storage, self.base, props, partitions=parts)

    def metadata_handoff(self) -> contextlib.AbstractContextManager:
        """While another process builds metadata partitions, their hand-off lock (a service instant completes
        either before the build's last catch-up or after it listed them, as a write's does); else nothing."""
        mdt = self._any_metadata_writer()
        return mdt.handoff() if mdt.build_in_progress() else contextlib.nullcontext()


def commit(table: ServiceTable, inflight: Instant, kind: str, meta: Mapping[str, Any], *,
           write_stats: Iterable[WriteStat] = (), replaced: Mapping[str, Iterable[str]] | None = None,
           deleted: Mapping[str, Iterable[str]] | None = None, deleted_partitions: Iterable[str] = (),
           operation: str | None = None, schema: str | None = None,
           record_index: Callable[[MetadataWriter], Any] | None = None) -> Instant:
    """The metadata table commits at the service's instant (files added, replaced, deleted, partitions gone, and -
    from `record_index(mdt)` - the record index's changes), then the instant completes with `meta` encoded as
    `kind`; under the table lock with several writers, and the hand-off lock of a metadata build going on."""
    with table.locked(), table.metadata_handoff():
        mdt = table.metadata_writer()
        if mdt is not None:
            mdt.commit(inflight.requested_time, inflight.action, list(write_stats), replaced, deleted,
                       deleted_partitions=deleted_partitions, operation=operation, schema=schema,
                       record_index=record_index(mdt) if record_index else None)
        crash_point("after_metadata")
        crash_point("before_complete")
        return table.timeline.complete(inflight, im.encode(kind, meta))


def run_planned(pending: list[Instant], instant: str | None, schedule_only: bool,
                schedule: Callable[[], Instant | None], execute: Callable[[str], Instant]) -> list[str]:
    """What a planned service (compaction, clustering) runs: `instant`, or every pending plan, oldest first,
    and - when none is pending - a newly scheduled one; `schedule_only` stops after scheduling. Returns
    the instant times run (or scheduled)."""
    if instant is not None:
        return [execute(instant).requested_time]
    times = [] if schedule_only else [i.requested_time for i in pending]
    if not times:
        scheduled = schedule()
        times = [scheduled.requested_time] if scheduled else []
    return times if schedule_only else run_each(times, execute)


def run_each(times: list[str], execute: Callable[[str], Instant]) -> list[str]:
    """Runs each pending plan; one another live writer is running is left to it. The instant times run."""
    done = []
    for t in times:
        try:
            done.append(execute(t).requested_time)
        except ServiceBusyError as e:
            log.info("%s; leaving it to that writer", e)
    return done


class ServiceBusyError(HudiError, RuntimeError):
    """Another live process is running this plan."""


@contextlib.contextmanager
def attempt(table: ServiceTable, pending: Instant) -> Iterator[Instant]:
    """One attempt at a planned service's instant (compaction, clustering): a dead earlier attempt is rolled
    back, then the instant goes inflight. With several writers this happens under the table lock and the
    attempt keeps a heartbeat: a plan inflight with a live heartbeat is another writer's (ServiceBusyError)."""
    cc = concurrency.Concurrency.of(table.options)
    beat = None
    with table.locked():
        now = next((i for i in table.timeline.instants() if i.requested_time == pending.requested_time), pending)
        if now.is_completed:
            raise ServiceBusyError(f"{now.action} {now.requested_time} was completed by another writer")
        if now.state == INFLIGHT:
            if cc.multi_writer and not cc.is_dead(table.storage, table.base, now):
                raise ServiceBusyError(f"{now.action} {now.requested_time} is being run by another writer "
                                       "(its heartbeat is live)")
            roll_back_attempt(table, now)
        if cc.multi_writer:
            beat = cc.heartbeat(table.storage, table.base, now.requested_time).__enter__()
        inflight = table.timeline.transition_to_inflight(Instant(now.requested_time, now.action, REQUESTED))
    try:
        yield inflight
    finally:
        if beat is not None:
            beat.__exit__(None, None, None)


def roll_back_attempt(table: ServiceTable, inflight: Instant) -> None:
    """Deletes what a dead attempt of a planned service (compaction, clustering) wrote - its markers name
    the files - and moves the instant back to requested, so its plan runs again. Each step can be
    repeated after a crash."""
    t = inflight.requested_time
    for rel in marker_files(table.storage, table.base, t):
        path = posixpath.join(table.base, rel)
        if table.storage.exists(path):
            table.storage.delete(path)
    table.storage.delete(posixpath.join(table.base, ".hoodie", ".temp", t))
    table.storage.delete(posixpath.join(table.timeline.dir, inflight.file_name(table.timeline.layout)))
    log.info("rolled back the attempt of %s %s that died; running it again", inflight.action, t)
