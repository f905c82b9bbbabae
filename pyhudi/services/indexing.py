"""The `indexing` action (Apache Hudi's async indexer, RFC-45): builds an index partition of the metadata
table for a table that already has data, while writers go on.

The partition listed inflight (readers and writers leave it alone; first, so every write requested after `t`
sees the build) -> `<t>.indexing.requested` (HoodieIndexPlan: the partition, indexed up to the last completed
instant) -> `<t>.indexing.inflight` (empty) -> its base files built from a snapshot read, at the next
initialisation instant of the metadata table -> under the hand-off lock, once no write requested before `t` is
still pending: the file groups the writes completed since the snapshot touched are read again and the
differences written as the metadata table's deltacommit `t` (so every later write's entries, at later
instants, override them) -> the partition listed as built -> `<t>_<c>.indexing` (HoodieIndexCommitMetadata).
Writers that find the build running commit under the same lock (`pyhudi.write.client`), so no write is missed
by both.

record_index and secondary indexes (`secondary_index_<name>` on one column, defined in the table's index
definitions before the build starts, so writers keep it from then on) are built this way, from a snapshot read
of the records. column_stats, bloom_filters and partition_stats are built from the files the metadata table
lists and their footers; their hand-over compares the files listed then and now (`pyhudi.metadata.from_listing`).
"""
from __future__ import annotations

import contextlib
import logging
import time
from typing import Callable, ContextManager, Mapping

from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F

from pyhudi.config import options as o
from pyhudi.errors import HudiError
from pyhudi.faults import crash_point
from pyhudi.metadata import commit as mdt_commit
from pyhudi.metadata import from_listing
from pyhudi.metadata.keys import COLUMN_STATS, PARTITION_STATS, RECORD_INDEX, is_secondary_index
from pyhudi.metadata.layout import INFLIGHT_PARTITIONS_KEY, completed_partitions, csv
from pyhudi.metadata.locks import HEARTBEAT_FILE, Heartbeat
from pyhudi.metadata.record_index import Sizing
from pyhudi.metadata.writer import KEY_CHANGING_ACTIONS
from pyhudi.services.instant import Progress, ServiceTable, checked, no_progress
from pyhudi.table import index_definitions, properties
from pyhudi.table import instant_metadata as im
from pyhudi.table.timeline import Instant, Timeline
from pyhudi.write import record_index, secondary_index
from pyhudi.write.own_records import READ_OPTIONS

log = logging.getLogger(__name__)

BUILT_BY_INDEXING = (RECORD_INDEX, "secondary_index_<name>", *from_listing.PARTITIONS)
WAIT_FOR_OLDER_WRITES_S = 600  # how long the hand-over waits for writes requested before the indexing


class IndexingError(HudiError, ValueError):
    pass


def create(spark: SparkSession, path: str, partition: str = RECORD_INDEX, options: Mapping[str, str] | None = None,
           progress: Progress = no_progress, column: str | None = None) -> Instant:
    """Builds `partition` with an indexing action (a secondary index on `column`); returns the completed
    instant."""
    options = checked(options)
    table = ServiceTable.open(path)
    mdt = table.metadata_writer()
    if mdt is None:
        raise IndexingError(f"{path} has no metadata table to hold an index; write with hoodie.metadata.enable=true "
                            f"or run pyhudi metadata create {path} first")
    if partition not in from_listing.PARTITIONS and partition != RECORD_INDEX and not is_secondary_index(partition):
        raise IndexingError(f"the indexing action builds {', '.join(BUILT_BY_INDEXING)}; {partition!r} is not one")
    if partition in completed_partitions(table.props):
        raise IndexingError(f"{path} already has {partition}; drop it first (pyhudi index drop {path}) to rebuild it")
    if partition in csv(table.props.get(INFLIGHT_PARTITIONS_KEY)):
        if mdt.build_in_progress():
            raise IndexingError(f"another process is building {partition} of {path} (its heartbeat is fresh)")
        _abandon(table, mdt, partition)
    build = _listing_build(table, mdt, partition) if partition in from_listing.PARTITIONS else \
        _records_build(spark, table, mdt, partition, column, options)
    tl = table.timeline
    upto = max((i.requested_time for i in tl.completed()), default=None)
    info = {"version": 1, "metadataPartitionPath": partition, "indexUptoInstant": upto, "extraMetadata": {}}
    with Heartbeat(table.storage, f"{mdt.mdt_path}/{HEARTBEAT_FILE}"):
        mdt.mark_inflight(partition)  # first: every write requested after the indexing instant sees the build
        requested = tl.create_requested("indexing", im.encode(im.INDEX_PLAN, {"version": 1,
                                                                              "indexPartitionInfos": [info]}))
        inflight = tl.transition_to_inflight(requested, b"")
        t = requested.requested_time
        with build(t) as (built, catch_up):
            progress(f"indexing {t}: {partition} built from the snapshot ({built})")
            crash_point("after_files")

            def finish() -> Instant:
                crash_point("before_complete")
                mdt.list_partition(partition)
                return tl.complete(inflight, im.encode(im.INDEX_COMMIT, {
                    "version": 1, "operationType": None, "indexPartitionInfos": [info]}))
            caught, done = _hand_over(table, mdt, t, finish, catch_up)
            progress(f"indexing {t}: caught up with what completed during the build ({caught}); {partition} is ready")
    return done


Build = Callable[[str], ContextManager[tuple[str, Callable[[Timeline], str]]]]


def _records_build(spark: SparkSession, table: ServiceTable, mdt, partition: str, column: str | None,
                   options: Mapping[str, str]) -> Build:
    """record_index or a secondary index: built from a snapshot read of the records (Spark); the hand-over
    reads the file groups written since again."""
    snapshot = _snapshot(spark, table, partition, column)

    @contextlib.contextmanager
    def build(t: str):
        seen = {i.requested_time for i in Timeline.for_table(table.storage, table.base, table.props).completed()}
        rows = snapshot(None).persist()
        try:
            count = _sizing(options).file_group_count(rows.count())
            init = mdt.add_partition(partition, count, record_index.base_writer(spark, table.uri, rows, count,
                                                                               mdt.compression, partition),
                                     listed=False)

            def catch_up(tl: Timeline) -> str:
                caught = _catch_up(spark, table, mdt, rows, tl, seen, t, count, partition, snapshot)
                return f"{len(caught)} writes"
            yield f"{count} file groups at {init}", catch_up
        finally:
            rows.unpersist()
    return build


def _listing_build(table: ServiceTable, mdt, partition: str) -> Build:
    """column_stats, bloom_filters, partition_stats: built from the files the metadata table lists and their
    footers (`pyhudi.metadata.from_listing`)."""
    built = completed_partitions(table.props)
    if partition == PARTITION_STATS and not csv(table.props.get(properties.PARTITION_FIELDS)):
        raise IndexingError(f"{table.uri} is not partitioned: it has no partition stats to keep")
    if partition == PARTITION_STATS and COLUMN_STATS not in built:
        raise IndexingError(f"partition stats are aggregated from column stats, and {table.uri} has none built; "
                            f"build them first: pyhudi index create --type column_stats {table.uri}")

    @contextlib.contextmanager
    def build(t: str):
        snap = from_listing.build(mdt, [partition])
        files = sum(map(len, snap.files.values()))
        yield f"{files} files", lambda tl: f"{from_listing.catch_up(mdt, snap, [partition], t)} files changed"
    return build


def drop(path: str, partition: str) -> list[str]:
    """Drops index `partition` (and its definition; the record index takes the secondary indexes with it,
    column stats the partition stats: they need it); returns the partitions dropped."""
    table = ServiceTable.open(path)
    mdt = table.metadata_writer()
    built = completed_partitions(table.props)
    if mdt is None or partition not in built:
        raise IndexingError(f"{path} has no {partition} to drop; it has {', '.join(built) or 'no index'}")
    dropped = [partition] + ([p for p in built if is_secondary_index(p)] if partition == RECORD_INDEX else []) \
        + ([PARTITION_STATS] if partition == COLUMN_STATS and PARTITION_STATS in built else [])
    mdt.drop_partitions(dropped)
    for p in dropped:
        index_definitions.remove(table.storage, table.base, mdt.data_props, p)
    return dropped


def _sizing(options: Mapping[str, str]) -> Sizing:
    return Sizing(o.RECORD_INDEX_MIN_FILE_GROUPS.get(options), o.RECORD_INDEX_MAX_FILE_GROUPS.get(options),
                  o.RECORD_INDEX_MAX_FILE_GROUP_SIZE.get(options), o.RECORD_INDEX_GROWTH_FACTOR.get(options))


def _snapshot(spark: SparkSession, table: ServiceTable, partition: str, column: str | None
              ) -> Callable[[dict[str, set[str]] | None], DataFrame]:
    """What the index holds for the table's records (of some file groups): record_index's rows, or a
    secondary index's entries - whose definition is written now, so writers keep the index from the start."""
    if partition == RECORD_INDEX:
        return lambda groups: record_index.snapshot_rows(spark, table.uri, groups)
    if RECORD_INDEX not in completed_partitions(table.props):
        raise IndexingError(f"a secondary index needs the record index, and {table.uri} has none built; build it "
                            f"first: pyhudi index create {table.uri}")
    definitions = index_definitions.load(table.storage, table.base, table.props)
    column = column or index_definitions.secondary_column(definitions, partition)
    if column is None:
        raise IndexingError(f"name the column {partition} covers: pyhudi index create --type secondary "
                            f"--column COLUMN {table.uri}")
    schema = spark.read.format("hudi-meta").options(**READ_OPTIONS).load(table.uri).schema
    try:
        index = secondary_index.Index(partition, column, secondary_index.column_type(schema, column))
    except secondary_index.SecondaryIndexError as e:
        raise IndexingError(str(e)) from None
    index_definitions.define_secondary(table.storage, table.base, table.props, partition, column)
    return lambda groups: secondary_index.snapshot_rows(spark, table.uri, index, groups)


def _hand_over(table: ServiceTable, mdt, t: str, finish: Callable[[], Instant],
               catch_up: Callable[[Timeline], str]) -> tuple[str, Instant]:
    """Under the hand-off lock, once no write requested before `t` is pending: applies the writes completed
    since the snapshot as the MDT deltacommit `t`, then `finish()` (lists the partition, completes the
    indexing) - no write completes in between. Returns what `catch_up` says it applied and `finish`'s."""
    deadline = time.monotonic() + WAIT_FOR_OLDER_WRITES_S
    while True:
        with mdt.handoff():
            tl = Timeline.for_table(table.storage, table.base, table.props)
            older = [i for i in tl.pending() if i.action in KEY_CHANGING_ACTIONS and i.requested_time < t]
            if not older:
                return catch_up(tl), finish()
        if time.monotonic() > deadline:
            raise IndexingError(f"write {older[0].requested_time} began before indexing {t} and is still pending "
                                f"after {WAIT_FOR_OLDER_WRITES_S} s; let it finish (or roll it back: pyhudi rollback "
                                f"{table.uri}) and run pyhudi index create again")
        time.sleep(1)


def _catch_up(spark, table: ServiceTable, mdt, rows: DataFrame, tl: Timeline, seen: set[str], t: str,
              count: int, partition: str, snapshot: Callable[[dict[str, set[str]]], DataFrame]) -> list[str]:
    """The file groups written or replaced by writes completed since the snapshot, read again: their
    keys now placed there, the snapshot's keys there no more deleted."""
    caught = [i for i in tl.completed() if i.requested_time not in seen and i.action in KEY_CHANGING_ACTIONS]
    groups: dict[str, set[str]] = {}
    for inst in caught:
        meta = im.decode(tl.read(inst))
        for data_partition, stat in im.write_stats(meta):
            if stat.get("fileId"):
                groups.setdefault(data_partition, set()).add(stat["fileId"])
        for data_partition, ids in im.replaced_file_ids(meta).items():
            groups.setdefault(data_partition, set()).update(ids)
    if not groups:
        return []
    now = snapshot(groups)
    keys = [(p, f) for p, fids in groups.items() for f in fids]
    touched = spark.createDataFrame(keys, f"{record_index.PART} string, {record_index.LOC} string")
    before = rows.join(F.broadcast(touched), [record_index.PART, record_index.LOC], "left_semi")
    gone = before.join(now, record_index.KEY, "left_anti")
    cols = [record_index.KEY, record_index.PART, record_index.LOC]
    changed = (now.select(*cols, F.lit(False).alias(record_index.DELETED))
               .unionByName(gone.select(*cols, F.lit(True).alias(record_index.DELETED))))
    write = record_index.log_writer(spark, table.uri, changed, mdt.compression, partition)
    mdt_commit.write_deltacommit(mdt.state(), table.storage, t, {}, {}, mdt.file_group_counts, mdt.compression,
                                 {partition: lambda instant: write(instant, count)})
    return [i.requested_time for i in caught]


def _abandon(table: ServiceTable, mdt, partition: str) -> None:
    """Clears what an indexing that died left: its partition's MDT instants and folder, and its own pending
    instant files."""
    mdt.clear_build(partition)
    for inst in table.timeline.pending():
        if inst.action == "indexing":
            table.timeline.delete_pending(inst)
    log.info("cleared the %s build of %s that died; building it again", partition, table.uri)
