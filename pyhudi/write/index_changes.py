"""What one write changes in the metadata table's record-level indexes - the record index (keys placed,
moved, gone) and the secondary indexes (entries added and removed) - kept from its tagged batch until the
metadata-table commit, and the writers that commit them."""
from __future__ import annotations

from typing import Callable

from pyspark.sql import DataFrame, SparkSession

from pyhudi.metadata import MetadataWriter
from pyhudi.metadata.keys import RECORD_INDEX
from pyhudi.metadata.layout import INFLIGHT_PARTITIONS_KEY, csv
from pyhudi.storage import Storage
from pyhudi.write import record_index, secondary_index
from pyhudi.write.config import WriteConfig
from pyhudi.write.index.base import Index


class IndexChanges:
    """One write's index changes. `cached` is the write's list of DataFrames kept until its commit: changes
    computed from nothing cached are materialised (and listed there) so the commit does not recompute the
    batch."""

    def __init__(self, spark: SparkSession, path: str, cfg: WriteConfig, index: Index, storage: Storage, base: str,
                 cached: list[DataFrame]):
        self.spark, self.path, self.cfg = spark, path, cfg
        # the partitions the options enable and those the write's index reads
        self.partitions = tuple(dict.fromkeys(cfg.metadata_partitions + index.metadata_partitions()))
        self.storage, self.base = storage, base
        self.cached = cached
        self.keys: DataFrame | None = None  # the record index's (KEY, PART, LOC, DELETED)
        self.entries: dict[str, DataFrame | None] = {}  # secondary index partition -> its (KEY, PART, LOC, DELETED)
        self._indexes: list[secondary_index.Index] | None = None
        self._entries_of: Callable[[secondary_index.Index], DataFrame | None] | None = None  # this write's
        self.in_driver = False  # a small batch's changes: few, written from the driver

    @property
    def maintains_record_index(self) -> bool:
        return self.cfg.metadata_enabled and RECORD_INDEX in self.partitions

    def secondary_indexes(self, props: dict[str, str] | None) -> list[secondary_index.Index]:
        """The secondary indexes this write keeps (once the table has them, with the record index)."""
        if self._indexes is None:
            keeps = self.maintains_record_index and self.cfg.secondary_indexes
            self._indexes = secondary_index.maintained(self.spark, self.path, self.storage, self.base, props) \
                if props is not None and keeps else []
        return self._indexes

    def metadata_partitions(self, props: dict[str, str] | None) -> list[str]:
        """The partitions to keep, as `props` (read again before the commit) lists them: an index whose build
        began after this write looked gets this write's entries now, so the write does not drop it."""
        known = {i.partition for i in self.secondary_indexes(props)}
        if self._entries_of is not None and set(secondary_index.listed(props)) - known:
            self._indexes = None
            for index in self.secondary_indexes(props):
                if index.partition not in known:
                    self.entries[index.partition] = self._entries_of(index)
        return list(self.partitions) + [i.partition for i in self.secondary_indexes(props)]

    def note(self, props: dict[str, str] | None, tagged: DataFrame | None, replaced: dict[str, list[str]],
             upserts_known: bool = True, ordering: str | None = None, in_driver: bool = False) -> None:
        """The changes of a tagged batch (and of the file groups it replaces); `ordering`: the event-time
        field deciding whether an update wins over the stored record; `in_driver`: the tagged batch is a
        small one held in the driver (nothing to cache, its changes written from there)."""
        if not self.maintains_record_index:
            return
        self.in_driver = in_driver
        self.keys = self._kept(record_index.key_changes(self.spark, self.path, tagged, replaced, upserts_known))
        self._entries_of = lambda index: self._kept(secondary_index.changes(
            self.spark, self.path, index, tagged, replaced, upserts_known, ordering))
        for index in self.secondary_indexes(props):
            self.entries[index.partition] = self._entries_of(index)

    def note_written(self, props: dict[str, str] | None, stats) -> None:
        """The changes of a write that learns its file groups as it writes them (bulk_insert): every key
        and entry of its new files."""
        if not self.maintains_record_index:
            return
        self.keys = record_index.written_keys(self.spark, self.path, stats)
        self._entries_of = lambda index: secondary_index.written(self.spark, self.path, index, stats)
        for index in self.secondary_indexes(props):
            self.entries[index.partition] = self._entries_of(index)

    def _kept(self, changes: DataFrame | None) -> DataFrame | None:
        if changes is not None and not self.cached and not self.in_driver:  # nothing cached to compute them from
            changes = changes.persist()
            self.cached.append(changes)
            changes.count()
        return changes

    def record_index_write(self, mdt: MetadataWriter):
        """What writes this commit's record_index files; builds the record index first when it is wanted
        and not built (from the records committed so far: this write's own come as its changes)."""
        if self.keys is None or RECORD_INDEX not in mdt.maintained:
            return None
        if RECORD_INDEX not in mdt.partitions():
            if self.cfg.index_async or RECORD_INDEX in csv(mdt.data_props.get(INFLIGHT_PARTITIONS_KEY)):
                return None  # the indexing action builds it; its hand-over applies this write
            record_index.build(self.spark, self.path, mdt, self.cfg.record_index_sizing)
        return record_index.log_writer(self.spark, self.path, self.keys, mdt.compression, in_driver=self.in_driver)

    def secondary_index_write(self, mdt: MetadataWriter):
        """What writes this commit's secondary-index files: (partition, instant, count) -> stats."""
        if self.keys is None:
            return None

        def write(partition: str, instant: str, count: int) -> list[dict]:
            changes = self.entries.get(partition)
            if changes is None:
                return []
            return record_index.log_writer(self.spark, self.path, changes, mdt.compression, partition,
                                           self.in_driver)(instant, count)
        return write
