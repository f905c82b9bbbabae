"""The metadata-table (MDT) writer: `<base>/.hoodie/metadata` as Apache Hudi 1.0 writes it for
table version 8 (docs/format.md §2.3, §2.4, §5, §6.2, §6.3, §7).

The MDT is a merge-on-read Hudi table of its own: HFile base files and log files of HFile data
blocks and delete blocks, one directory per MDT partition, file groups `files-0000-0`,
`col-stats-0000-0`, ... (`keys`). `MetadataWriter` does what the write protocol needs
(docs/architecture.md, "The write protocol", step 5), for the MDT partitions it maintains (`partitions=`):

* `initialize` builds them from a listing of the data table (`initialize` module), then lists
  them in the data table's hoodie.properties. It does not block writers (RFC-15 "Initial
  creation"): while the partitions are listed as inflight and the build's heartbeat is fresh,
  writers leave the MDT alone; the build then applies the data instants completed since its
  listing (`catch_up`) before it marks the partitions done. The last catch-up and the mark are
  made under the `handoff` lock, which a writer that found the build running takes to decide
  again and complete its instant: no write goes unseen by both;
* `commit` writes one MDT deltacommit at a data instant's time, before the data instant is
  published (`commit` module); completed data instants the MDT misses are applied first;
* `compact_if_needed` / `compact` (`compaction`), `clean` (`clean`), `rollback` of an MDT
  deltacommit that never became visible, `delete` of the whole MDT, `validate` against a storage
  listing (`validate`), and reads as readers see the MDT (`reader`).
"""
from __future__ import annotations

import functools
import logging
import posixpath
from typing import Callable, Iterable, Mapping, Protocol, Sequence

from pyhudi.basefile import bloom as bloom_mod
from pyhudi.metadata import catch_up as catch_up_mod
from pyhudi.metadata import clean as clean_mod
from pyhudi.metadata import commit as commit_mod
from pyhudi.metadata import compaction, reader
from pyhudi.metadata import initialize as init_mod
from pyhudi.metadata.context import MdtContext
from pyhudi.metadata.errors import MetadataTableError
from pyhudi.metadata.keys import DEFAULT_FILE_GROUP_COUNT, FILES, PARTITION_STATS, RECORD_INDEX, is_secondary_index
from pyhudi.metadata.layout import (
    DEFAULT_PARTITIONS,
    INFLIGHT_PARTITIONS_KEY,
    INIT_INSTANT_PREFIX,
    PARTITIONS_KEY,
    completed_partitions,
    csv,
    is_supported,
    next_init_instant,
    record_built,
    validate_partitions,
)
from pyhudi.metadata.locks import HANDOFF_LOCK, HEARTBEAT_EXPIRY_S, HEARTBEAT_FILE, HandoffLock, Heartbeat, age_s
from pyhudi.metadata.records import MetadataRecord
from pyhudi.metadata.state import DataTimeline, MdtState
from pyhudi.metadata.stats import DEFAULT_MAX_COLUMNS_TO_INDEX
from pyhudi.metadata.validation.files import differences
from pyhudi.storage import Storage
from pyhudi.table import index_definitions, properties
from pyhudi.table.file_slices import file_id_and_instant, listing_from_storage
from pyhudi.table.timeline import COMPLETED, Instant, Timeline
from pyhudi.table.write_stat import WriteStat

log = logging.getLogger(__name__)


def _no_progress(stage: str, detail: str) -> None:
    pass


# what writes the record_index log files of a deltacommit: (instant, file-group count) -> their write stats
RecordIndexWrite = Callable[[str, int], list[dict]]


class SecondaryIndexWrite(Protocol):
    """What writes a secondary index's log files of a deltacommit: (MDT partition, instant, file-group count)
    -> stats; `count` is passed by name."""
    def __call__(self, partition: str, instant: str, count: int) -> list[dict]: ...


# actions that can add, move or remove record keys: without the record-index changes of one of them,
# the record index would go stale, so it is dropped instead (the next write with it enabled rebuilds it)
KEY_CHANGING_ACTIONS = ("commit", "deltacommit", "replacecommit", "clustering")


class MetadataWriter:
    """Writes the metadata table of the data table at `base_path` (see the module comment).

    `data_props` is the data table's hoodie.properties; the writer updates
    `hoodie.table.metadata.partitions` in it (in place) and on storage.

    `partitions`: the MDT partitions to maintain - `files` always, `column_stats`,
    `bloom_filters` and `partition_stats` (which needs `column_stats`) as wanted; all four by
    default. Only these are built by `initialize` and written by `commit`, compacted and cleaned.
    A partition the MDT holds but this set lacks is dropped at the next `commit` (as Hudi does when
    e.g. hoodie.metadata.index.column.stats.enable turns false): the data table stops listing it,
    then its folder goes. `partition_stats` is never built for a non-partitioned table.
    """

    def __init__(self, storage: Storage, base_path: str, data_props: dict[str, str], *,
                 partitions: Iterable[str] = DEFAULT_PARTITIONS,
                 file_group_counts: Mapping[str, int] | None = None,
                 bloom_type: str = bloom_mod.DYNAMIC_V0,
                 compression: str = "gz",
                 max_columns_to_index: int = DEFAULT_MAX_COLUMNS_TO_INDEX):
        self.maintained = validate_partitions(list(partitions))
        # what the steps (initialize, commit, catch_up, compaction, clean, state) work with
        self.ctx = MdtContext(storage, base_path, data_props, {**DEFAULT_FILE_GROUP_COUNT, **(file_group_counts or {})},
                              bloom_type, compression, max_columns_to_index)
        self.storage, self.base_path, self.data_props = storage, self.ctx.base_path, data_props
        self.mdt_path, self.file_group_counts = self.ctx.mdt_path, self.ctx.file_group_counts
        self.bloom_type, self.compression = bloom_type, compression
        self._building: list[str] | None = None  # the partitions `initialize` is building

    # ---- basics ----------------------------------------------------------------------------
    def exists(self) -> bool:
        return properties.exists(self.storage, self.mdt_path)

    def partitions(self) -> list[str]:
        """MDT partitions the data table lists as completed and this writer maintains."""
        return [p for p in completed_partitions(self.data_props) if p in self.maintained]

    def _live_partitions(self) -> list[str]:
        """The partitions commits write to: the completed ones, or the ones being built."""
        return self._building if self._building is not None else self.partitions()

    def data_timeline(self) -> Timeline:
        return self.ctx.data_timeline()

    def mdt_timeline(self) -> Timeline:
        return self.ctx.mdt_timeline()

    def state(self) -> MdtState:
        """A snapshot of the MDT timeline and the data timeline, for one operation."""
        return MdtState(self.ctx)

    def _save_data_props(self, updates: Mapping[str, str | None] | Callable[[dict], Mapping[str, str | None]]
                         ) -> None:
        """Applies `updates` (or what it computes from them) to hoodie.properties as stored now (a
        build runs long; others may have changed other keys meanwhile) and to `data_props`."""
        current = properties.check_writable(properties.load(self.storage, self.base_path), self.base_path)
        for k, v in (updates(current) if callable(updates) else updates).items():
            if v is None:
                current.pop(k, None)
            else:
                current[k] = v
        properties.save(self.storage, self.base_path, current, updated=True)
        self.data_props.clear()
        self.data_props.update(current)
        self._define_column_stats()

    def _define_column_stats(self) -> None:
        """Apache Hudi defines the column_stats index (its columns) while the partition is built, and its
        partition-stats pruning needs that definition: kept in step with the listed partitions."""
        cols = index_definitions.COLUMN_STATS in completed_partitions(self.data_props) and \
            self.ctx.columns(DataTimeline(self.data_timeline()))
        if cols:
            index_definitions.define_column_stats(self.storage, self.base_path, self.data_props, cols)
        else:
            index_definitions.remove(self.storage, self.base_path, self.data_props, index_definitions.COLUMN_STATS)

    # ---- initialisation -------------------------------------------------------------------
    def initialize(self, data_timeline: Timeline | None = None,
                   listing: Mapping[str, Iterable[tuple]] | None = None,
                   progress: Callable[[str, str], None] = _no_progress, awaiting: Sequence[str] = ()) -> list[str]:
        """Creates the MDT of a table that has none, without blocking writers, and returns the
        initialisation instants (module comment).

        `listing`: partition path -> [(file name, size, column stats or None[, bloom])] of the
        files of the instants completed on `data_timeline` (`listing_from_storage` when None).
        Column stats are `column_stats_json` output; base files without them (and without a bloom
        filter) are read from their Parquet footers. `progress(stage, detail)` is told of the
        stages "listed", "built", "caught-up", "handing-over" (under the `handoff` lock) and "ready".
        `awaiting`: index partitions built from records (not a listing) by an indexing action next; they stay
        listed inflight throughout, so a process that dies before building them still knows to (a restore).
        """
        if self.exists() and FILES in self.partitions():
            raise MetadataTableError(f"{self.mdt_path} already exists; delete() it first to rebuild it")
        if self.build_in_progress():
            raise MetadataTableError(f"another process is building {self.mdt_path} (its heartbeat is fresh); "
                                     f"wait for it, or delete() the metadata table if that process is gone")
        if self.storage.exists(self.mdt_path):
            self.storage.delete(self.mdt_path)  # left over by an initialisation that died
        data_timeline = data_timeline or self.data_timeline()
        data = DataTimeline(data_timeline)
        parts = [p for p in self.maintained if (p != PARTITION_STATS or self.ctx.is_partitioned())
                 and not record_built(p)]
        # readers skip a metadata table whose partitions are inflight: a crash from here on is harmless
        self._save_data_props({PARTITIONS_KEY: "", INFLIGHT_PARTITIONS_KEY: ",".join(sorted(parts) + list(awaiting))})
        self.storage.mkdirs(f"{self.mdt_path}/.hoodie/.heartbeat")
        with Heartbeat(self.storage, f"{self.mdt_path}/{HEARTBEAT_FILE}"):
            if listing is None:
                listing = listing_from_storage(self.storage, self.base_path, data_timeline)
            files = init_mod.normalise_listing(listing)
            progress("listed", f"{sum(len(f) for f in files.values())} files in {len(files)} partitions")
            self.ctx.footers.clear()
            instants = init_mod.build(self.ctx, parts, files, data)
            progress("built", f"partitions {', '.join(parts)}")
            applied = self._hand_over(parts, set(data.completed), progress, awaiting)
        progress("ready", f"partitions {', '.join(parts)}; {len(applied)} writes made during the build applied")
        return instants

    def _hand_over(self, parts: list[str], snapshot: set[str], progress: Callable[[str, str], None],
                   awaiting: Sequence[str] = ()) -> list[str]:
        """Applies the writes completed since the listing `snapshot`, the last ones under the
        hand-off lock, and marks `parts` built; returns the instants applied."""
        self._building = parts
        try:
            applied = self.catch_up(covered=lambda i: i.requested_time in snapshot)
            progress("caught-up", f"{len(applied)} instants completed during the build applied")
            with self.handoff():  # writers completing now wait for the last few instants and the mark
                progress("handing-over", "writers finishing now wait for the last catch-up")
                applied += self.catch_up(covered=lambda i: i.requested_time in snapshot)
                # the table was rebuilt from scratch: exactly these partitions exist now
                self._save_data_props({PARTITIONS_KEY: ",".join(sorted(parts)),
                                       INFLIGHT_PARTITIONS_KEY: ",".join(awaiting)})
        finally:
            self._building = None
        return applied

    def handoff(self) -> HandoffLock:
        """The lock under which a build makes its last catch-up and marks the MDT ready, and a
        writer that found the build running decides again and completes its instant: so no write
        completes unseen by both the build and the MDT (hold it briefly)."""
        return HandoffLock(self.storage, f"{self.base_path}/{HANDOFF_LOCK}")

    def build_in_progress(self) -> bool:
        """Whether another process is building this MDT now: partitions inflight, heartbeat fresh."""
        if not csv(self.data_props.get(INFLIGHT_PARTITIONS_KEY)):
            return False
        age = age_s(self.storage, f"{self.mdt_path}/{HEARTBEAT_FILE}")
        return age is not None and age < HEARTBEAT_EXPIRY_S

    def drop_unmaintained(self) -> list[str]:
        """Drops the MDT partitions the data table lists as built but this writer does not
        maintain. Returns the partitions dropped."""
        dropped = [p for p in completed_partitions(self.data_props)
                   if is_supported(p) and p not in self.maintained]
        self.drop_partitions(dropped)
        return dropped

    def drop_partitions(self, dropped: list[str]) -> None:
        """First the data table stops listing `dropped` (readers then do without them), then their
        folders go."""
        def unlisted(current: dict) -> dict[str, str]:
            listed = csv(current.get(PARTITIONS_KEY))
            return {PARTITIONS_KEY: ",".join(p for p in listed if p not in dropped)}

        if dropped:
            self._save_data_props(unlisted)
            for part in dropped:
                self.storage.delete(f"{self.mdt_path}/{part}")

    def add_partition(self, part: str, count: int, write_bases: Callable[[str, str], list[dict]],
                      listed: bool = True) -> str:
        """Builds MDT partition `part` of `count` file groups at the next initialisation instant;
        `write_bases(instant, partition dir)` writes its base HFiles and returns their write stats. Lists
        it as built unless `listed` is false (the indexing action lists it once it has caught up).
        Returns the instant."""
        if not self.exists() or FILES not in self.partitions():
            raise MetadataTableError(f"{self.base_path} has no metadata table; initialize() it first")
        # writes the MDT misses are applied first: later catch-ups take every write completed before the
        # newest initialisation instant as covered by it
        self.catch_up()
        tl = self.mdt_timeline()
        instant = next_init_instant(i.requested_time for i in tl.instant_files())
        init_mod.write_partition(self.ctx, tl, part, instant, count, write_bases)
        if listed:
            self.list_partition(part)
        return instant

    def list_partition(self, part: str) -> None:
        """Lists `part` as built (and no longer inflight) in the data table's hoodie.properties."""
        self._save_data_props(lambda current: {
            PARTITIONS_KEY: ",".join(dict.fromkeys(csv(current.get(PARTITIONS_KEY)) + [part])),
            INFLIGHT_PARTITIONS_KEY: ",".join(p for p in csv(current.get(INFLIGHT_PARTITIONS_KEY)) if p != part)})

    def mark_inflight(self, part: str) -> None:
        """Lists `part` as being built: readers and writers leave it alone until list_partition."""
        self._save_data_props(lambda current: {INFLIGHT_PARTITIONS_KEY: ",".join(
            dict.fromkeys(csv(current.get(INFLIGHT_PARTITIONS_KEY)) + [part]))})

    def unmark_inflight(self, parts: Iterable[str]) -> None:
        """`parts` are no longer being built (nor listed as such)."""
        self._save_data_props(lambda current: {INFLIGHT_PARTITIONS_KEY: ",".join(
            p for p in csv(current.get(INFLIGHT_PARTITIONS_KEY)) if p not in parts)})

    def clear_build(self, part: str) -> None:
        """Clears what a build of `part` that died left (no-op when none did), its inflight mark last."""
        if init_mod.clear_build(self.ctx, part):
            self.unmark_inflight([part])

    def partition_being_built(self, part: str) -> bool:
        """Whether another process is building `part` now (listed inflight, its heartbeat fresh)."""
        return part in csv(self.data_props.get(INFLIGHT_PARTITIONS_KEY)) and self.build_in_progress()

    def record_index_groups(self, state: MdtState | None = None) -> int:
        """How many file groups the record index has (0 when it is not built)."""
        if RECORD_INDEX not in self._live_partitions():
            return 0
        return len((state or self.state()).latest(RECORD_INDEX))

    # ---- commits --------------------------------------------------------------------------
    def commit(self, instant: str, action: str, write_stats: Iterable[WriteStat],
               replaced_file_ids: Mapping[str, Iterable[str]] | None = None,
               deleted_files: Mapping[str, Iterable[str]] | None = None, *,
               deleted_partitions: Iterable[str] = (), operation: str | None = None,
               schema: str | None = None, record_index: RecordIndexWrite | None = None,
               secondary_index: SecondaryIndexWrite | None = None) -> Instant:
        """Writes the MDT deltacommit of data instant `instant` (call it before completing the
        data instant) and returns the completed MDT instant.

        `write_stats`: the files this instant wrote (`commit` module). `replaced_file_ids`:
        partition -> file groups a replacecommit replaces (they stay listed until a clean removes
        their files). `deleted_files`: partition -> names of files removed from storage (clean,
        rollback). `deleted_partitions`: partitions gone entirely. `operation`: the write
        operation (delete_partition also drops the partitions' statistics). `schema`: the
        writer schema of this instant (column selection; the latest committed one when None).
        `record_index`: writes the instant's record_index log files (when the record index is built).
        `secondary_index`: writes each secondary index's log files (None: the commit changes no entry).
        """
        if not self.exists() or FILES not in self._live_partitions():
            raise MetadataTableError(f"{self.base_path} has no metadata table; initialize() it first")
        self.drop_unmaintained()
        _, state = catch_up_mod.catch_up(self.ctx, None, self.commit_now)
        return self.commit_now(instant, action, write_stats, replaced_file_ids, deleted_files,
                               deleted_partitions=deleted_partitions, operation=operation, schema=schema, state=state,
                               record_index=record_index, secondary_index=secondary_index)

    def commit_now(self, instant: str, action: str, write_stats: Iterable[WriteStat],
                   replaced_file_ids: Mapping[str, Iterable[str]] | None = None,
                   deleted_files: Mapping[str, Iterable[str]] | None = None, *,
                   deleted_partitions: Iterable[str] = (), operation: str | None = None,
                   schema: str | None = None, state: MdtState | None = None,
                   record_index: RecordIndexWrite | None = None,
                   secondary_index: SecondaryIndexWrite | None = None) -> Instant:
        """`commit` without catching up first (what the catch-up applies instants with)."""
        state = state or self.state()
        self.rollback_failed(state)
        if instant in {i.requested_time for i in state.instants}:
            self.rollback(instant)  # a retry of the same data instant: apply it afresh
        state = self.state()
        external = self._record_index_write(state, action, record_index)
        external.update(self._secondary_index_write(state, action, record_index, secondary_index))
        records, deletes = self.instant_records(state, instant, action, write_stats, replaced_file_ids,
                                                deleted_files, deleted_partitions=deleted_partitions,
                                                operation=operation, schema=schema)
        return commit_mod.write_deltacommit(state, self.storage, instant, records, deletes, self.file_group_counts,
                                            self.compression, external)

    def _record_index_write(self, state: MdtState, action: str, record_index: RecordIndexWrite | None
                            ) -> dict[str, Callable[[str], list[dict]]]:
        """The record_index files of this commit, as write_deltacommit takes them. A key-changing commit
        that brings no record-index changes (a writer that cannot say which keys it moved) drops the
        record index rather than leave it stale."""
        count = self.record_index_groups(state)
        if not count:
            return {}
        if record_index is None:
            if action in KEY_CHANGING_ACTIONS:
                log.warning("the %s at hand does not say which record keys it changed: dropping the record "
                            "index of %s (a write with %s=true rebuilds it)", action, self.base_path,
                            "hoodie.metadata.record.index.enable")
                self.drop_partitions([RECORD_INDEX])
            return {}
        return {RECORD_INDEX: lambda instant: record_index(instant, count)}

    def _secondary_index_write(self, state: MdtState, action: str, record_index: RecordIndexWrite | None,
                               secondary_index: SecondaryIndexWrite | None) -> dict[str, Callable[[str], list[dict]]]:
        """Each secondary index's files of this commit. Without the record index's changes, a key-changing
        commit leaves them stale: they are dropped (a secondary index needs the record index anyway)."""
        parts = [p for p in self._live_partitions() if is_secondary_index(p)]
        if not parts:
            return {}
        if secondary_index is None:
            if record_index is None and action in KEY_CHANGING_ACTIONS:
                log.warning("the %s at hand does not say which record keys it changed: dropping the secondary "
                            "indexes %s of %s", action, ", ".join(parts), self.base_path)
                self.drop_partitions(parts)
            return {}
        counts = {p: len(state.latest(p)) for p in parts}
        return {p: functools.partial(secondary_index, p, count=counts[p]) for p in parts}

    def instant_records(self, state: MdtState, instant: str, action: str, write_stats: Iterable[WriteStat],
                        replaced_file_ids: Mapping[str, Iterable[str]] | None = None,
                        deleted_files: Mapping[str, Iterable[str]] | None = None, *,
                        deleted_partitions: Iterable[str] = (), operation: str | None = None,
                        schema: str | None = None) -> tuple[dict[str, list[MetadataRecord]], dict[str, list[str]]]:
        """The records (and delete-block keys) a data instant yields, per live MDT partition."""
        change = commit_mod.DataInstant(
            instant, action, list(write_stats),
            {p: set(ids) for p, ids in (replaced_file_ids or {}).items()},
            {p: [posixpath.basename(n) for n in names] for p, names in (deleted_files or {}).items()},
            list(deleted_partitions), operation, self.bloom_type)
        return commit_mod.records_of(state, change, self._live_partitions(), self.ctx.columns(state.data, schema))

    def catch_up(self, covered: Callable[[Instant], bool] | None = None) -> list[str]:
        """Applies the completed data writes the MDT misses, in completion order, until none is
        left; returns their instant times (`catch_up` module)."""
        return catch_up_mod.catch_up(self.ctx, covered, self.commit_now)[0]

    # ---- rollback ---------------------------------------------------------------------------
    def rollback(self, instant: str) -> bool:
        """Removes what the MDT deltacommit `instant` wrote (its log files, then its instant
        files, the completed one first). Only for instants the data table never completed:
        their blocks were never visible to readers. Returns whether anything was there."""
        if instant.startswith(INIT_INSTANT_PREFIX):
            raise MetadataTableError(f"{instant} initialises a metadata partition; delete() and "
                                     "initialize() the metadata table instead")
        if instant in DataTimeline(self.data_timeline()).completed:
            raise MetadataTableError(f"data instant {instant} is completed; its metadata-table commit stays")
        tl = self.mdt_timeline()
        found = [i for i in tl.instant_files() if i.requested_time == instant]
        if not found:
            return False
        for inst in found:
            if inst.state == COMPLETED:
                self.storage.delete(f"{tl.dir}/{inst.file_name(2)}")
        for part in self.ctx.partition_dirs():
            for e in self.storage.list(f"{self.mdt_path}/{part}"):
                parsed = None if e.is_dir else file_id_and_instant(e.name)
                if parsed and parsed[1] == instant:
                    self.storage.delete(f"{self.mdt_path}/{part}/{e.name}")
        pending = [i for i in found if i.state != COMPLETED]
        if pending:
            tl.delete_pending(pending[0])
        return True

    def rollback_failed(self, state: MdtState) -> None:
        """Rolls back pending MDT compactions and deltacommits, and finishes pending cleans, left
        by writers that died."""
        for inst in state.pending:
            if inst.requested_time.startswith(INIT_INSTANT_PREFIX):
                continue
            if inst.action == "deltacommit":
                if inst.requested_time not in state.data.completed:
                    self.rollback(inst.requested_time)
            elif inst.action == "compaction":
                compaction.rollback_compaction(self.ctx, inst)
            elif inst.action == "clean":
                clean_mod.finish_pending(self.ctx, state, inst)

    # ---- reading, table services, removal ---------------------------------------------------
    def read_partition(self, mdt_partition: str, keys: Iterable[str] | None = None,
                       prefixes: Iterable[str] | None = None, *, state: MdtState | None = None,
                       include_deleted: bool = False) -> dict[str, MetadataRecord]:
        """Merged records of an MDT partition as readers see them (`reader.read_partition`)."""
        return reader.read_partition(state or self.state(), mdt_partition, keys, prefixes, include_deleted)

    def files_listing(self) -> dict[str, dict[str, int]]:
        """The table's partitions and files (name -> size) as the MDT `files` partition lists them."""
        return reader.files_listing(self.state())

    def validate(self, listing: Mapping[str, Iterable] | None = None) -> dict:
        """Differences between the MDT `files` partition and a storage listing of committed files
        (`listing_from_storage` when None); see `validation.files.differences`."""
        if listing is None:
            listing = listing_from_storage(self.storage, self.base_path, self.data_timeline())
        return differences(self.files_listing(), listing)

    def deltacommits_since_compaction(self, state: MdtState | None = None) -> int:
        return compaction.deltacommits_since_compaction(state or self.state())

    def compact_if_needed(self, max_deltacommits: int = compaction.DEFAULT_MAX_DELTACOMMITS) -> str | None:
        """Compacts the MDT when `max_deltacommits` deltacommits (partition initialisations
        included) completed since its last compaction; returns the compaction instant or None."""
        if not self.exists() or self.deltacommits_since_compaction() < max_deltacommits:
            return None
        return self.compact()

    def compact(self) -> str | None:
        """Merges the latest slice of every MDT file group into a new base HFile (`compaction`)."""
        self.rollback_failed(self.state())
        return compaction.compact(self.ctx, self.partitions())

    def clean(self, retain: int = clean_mod.DEFAULT_RETAINED_SLICES) -> str | None:
        """Deletes the files of all but the latest `retain` file slices of every MDT file group
        (`clean`); None when nothing is old enough."""
        if retain < 1:
            raise MetadataTableError(f"retain must be at least 1, got {retain}")
        self.rollback_failed(self.state())
        return clean_mod.clean(self.ctx, self.partitions(), retain)

    def delete(self) -> None:
        """Drops the metadata table: first the data table stops listing its partitions (readers
        then list storage), then the directory goes."""
        self._save_data_props({PARTITIONS_KEY: None, INFLIGHT_PARTITIONS_KEY: None})
        self.storage.delete(self.mdt_path)
