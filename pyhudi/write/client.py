"""The write client: plans a write on the driver, writes files on executors, commits the instant.

Protocol (docs/architecture.md "The write protocol"): roll back writes that died, take an instant time, write
`.requested` then `.inflight`, tag incoming keys with their file groups (simple index over the latest file slices,
bucket hash, or record index), assign inserts to file groups, write files on executors (a marker before each
file), commit the metadata table, then publish the completed instant atomically."""
from __future__ import annotations

import contextlib
import functools
import logging
import posixpath
import time
from dataclasses import dataclass, replace
from typing import Iterator

import pyarrow as pa
from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F

from pyhudi.avro import schema as avro_schema
from pyhudi.config import options as o
from pyhudi.errors import HudiError
from pyhudi.faults import crash_point
from pyhudi.metadata import FILES, MetadataWriter, from_listing
from pyhudi.metadata.errors import MetadataDamagedError
from pyhudi.storage import Storage
from pyhudi.table import instant_metadata as im
from pyhudi.table import properties, write_stat
from pyhudi.table.file_slices import FileSlice, file_groups
from pyhudi.table.pending_plans import held_file_groups
from pyhudi.table.rollback import drop_unlisted_files, rollback
from pyhudi.table.timeline import Instant, Timeline
from pyhudi.table.write_stat import WriteStat
from pyhudi.write import (
    bulk_insert,
    cdc,
    concurrency,
    executor,
    input_checks,
    keygen,
    placement,
    small_batch,
    view,
)
from pyhudi.write import index as indexes
from pyhudi.write import instant_content as content
from pyhudi.write.config import WriteConfig
from pyhudi.write.executor import WriteTask
from pyhudi.write.index import bloom, tagging
from pyhudi.write.index.base import Hits, Lookup
from pyhudi.write.index_changes import IndexChanges
from pyhudi.write.instant_content import REPLACE_OPS
from pyhudi.write.placement import ClusteringConflictError
from pyhudi.write.schema_evolution import (
    IncompatibleSchemaError,
    current_schema,
    evolve,
    input_schema,
)

log = logging.getLogger(__name__)



class HudiWriteError(HudiError, ValueError):
    """A write refused before anything was written."""


@dataclass(frozen=True)
class _Plan:
    """What a write learns before its instant is requested."""
    slices: list[FileSlice]  # the latest slices of the partitions it touches
    buckets: dict[tuple[str, int], str]  # the bucket index's file groups among them
    incoming: DataFrame | None = None  # the keyed batch (none for delete_partition)
    partitions: list[str] | None = None  # the batch's (delete_partition: its targets); None: not looked at
    records: int = 0
    batch: pa.Table | None = None  # a small batch, in the driver (pyhudi.write.small_batch)
    hits: Hits | None = None  # where the record index holds its keys (None: not asked)


class Writer:
    """One write to one table."""

    def __init__(self, spark: SparkSession, path: str, options: dict[str, str]):
        self.spark, self.path, self.options = spark, path, dict(options)
        self._start: tuple[str | None, str] | None = None  # (last completed write, timeline hash) at the start
        self._plans: dict[tuple[str, str], Instant] | None = None  # file groups held by pending service plans
        self._found: DataFrame | None = None  # the record index's locations of the batch's keys
        self._cached: list[DataFrame] = []  # kept until the commit has read them
        self.counts: write_stat.Counts | None = None  # what the commit inserted, updated, deleted
        self.storage, self.base = Storage.for_uri(path)
        self.props = self._existing_props()
        self.cfg = WriteConfig.from_options(options, self.props)
        self.index = indexes.of(self.cfg)
        self._indexed = IndexChanges(spark, path, self.cfg, self.index, self.storage, self.base, self._cached)
        self._guard = concurrency.Guard(options, self.storage, self.base, self.cfg.table_type, self.index)

    @property
    def _table_props(self) -> dict[str, str]:  # hoodie.properties, for the steps of a write after `create`
        assert self.props is not None  # create() loaded or made them
        return self.props

    def _existing_props(self) -> dict[str, str] | None:
        if properties.exists(self.storage, self.base):
            return properties.check_writable(properties.load(self.storage, self.base), self.path)
        hoodie = posixpath.join(self.base, ".hoodie")
        if self.storage.is_dir(self.base) and self.storage.list(self.base) and not self.storage.exists(hoodie):
            raise HudiWriteError(f"{self.path} is not empty and holds no Hudi table (no .hoodie/); "
                                 "write to an empty or new path")
        return None

    # ---- entry -------------------------------------------------------------------------------
    def create(self, df: DataFrame | None) -> dict:
        """The create schema after writing `df`; a new table is created with it (SQL CREATE TABLE
        stops here: hoodie.properties and no instant)."""
        if self.props is None and self.cfg.operation == "delete_partition":
            raise HudiWriteError(f"{self.path} holds no Hudi table: delete_partition drops partitions of an existing "
                                 "table, and there is none to drop them from")
        current = None if self.props is None else current_schema(self.storage, self.base, self.props)
        if self.cfg.operation != "delete_partition":
            assert df is not None  # only delete_partition writes no DataFrame
            self._validate_input(df, current)
        create_schema = self._schema_for(df, current)
        self.props = self.props or self._create_table(create_schema)
        return create_schema

    def write(self, df: DataFrame | None) -> str:
        """Writes `df` as one instant; its time. Table services its options run inline are its caller's
        (pyhudi.services.inline.write)."""
        create_schema = self.create(df)
        timeline = self._timeline = Timeline.for_table(self.storage, self.base, self._table_props)
        restoring = [i.requested_time for i in timeline.pending() if i.action == "restore"]
        if restoring:
            raise HudiWriteError(f"a restore ({restoring[0]}) of {self.path} is pending: the table is between two "
                                 f"states; finish it (pyhudi restore {self.path} --to <savepoint>) and write again")
        self._guard.begin(timeline)
        try:
            instant = self._write(df, timeline, create_schema)
        finally:
            self._guard.end()
            for cached in self._cached:
                cached.unpersist()
        return instant

    def _write(self, df: DataFrame | None, timeline: Timeline, create_schema: dict) -> str:
        """Steps 2-5 of the write protocol (docs/architecture.md); the instant written."""
        action, started = content.action(self.cfg.operation, self.cfg.table_type), time.monotonic()
        with self._planned(df) as plan:  # its checks fail before any instant is requested
            instant = timeline.new_instant_time()
            self._guard.requested(instant)
            requested = timeline.create_requested(action, content.requested(self.cfg.operation, action),
                                                  requested_time=instant)
            crash_point("after_requested")
            inflight = timeline.transition_to_inflight(requested, content.inflight(self.cfg.operation))
            crash_point("after_inflight")
            writer_schema = avro_schema.to_json(
                avro_schema.with_meta_fields(avro_schema.to_writer_style(create_schema)))
            try:
                stats, replaced = self._write_files(plan, instant, writer_schema)
            except ClusteringConflictError:
                rollback(self.storage, self.base, timeline, inflight)  # nothing written yet: the table as it was
                raise
        crash_point("after_files")
        drop_unlisted_files(self.storage, self.base, instant, {p for s in stats for p in (s.path, s.cdc_path) if p})
        content.write_partition_metadata(self.storage, self.base, instant, {s.partition for s in stats})
        crash_point("after_partition_metadata")
        commit_schema = avro_schema.to_json(avro_schema.to_writer_style(create_schema))
        try:
            self._commit(timeline, inflight, stats, replaced, commit_schema)
        except MetadataDamagedError:
            rollback(self.storage, self.base, timeline, inflight)  # its files go: the table as it was
            raise
        self.counts = write_stat.Counts.of(instant, stats)
        log.info(write_stat.summary(self.cfg.operation, self.counts, len(stats), time.monotonic() - started))
        crash_point("after_complete")
        self.storage.delete(posixpath.join(self.base, ".hoodie", ".temp", instant))
        return instant

    def _commit(self, timeline: Timeline, inflight: Instant, stats: list[WriteStat],
                replaced: dict[str, list[str]], schema: str) -> None:
        """The metadata table commits at the instant first, then the instant completes."""
        instant, action = inflight.requested_time, inflight.action
        with self._guard.committing(timeline, inflight, stats, replaced), self._metadata_stage(inflight) as mdt:
            if mdt is not None:
                if mdt.compact_if_needed(self.cfg.metadata_compact_after):
                    mdt.clean()  # older metadata file slices are no longer read by anyone
                mdt.commit(instant, action, stats, replaced, operation=self.cfg.operation, schema=schema,
                           record_index=self._indexed.record_index_write(mdt),
                           secondary_index=self._indexed.secondary_index_write(mdt))
            crash_point("after_metadata")
            meta = content.completed(self.cfg.operation, self.options, stats, replaced, schema)
            kind = im.REPLACE_COMMIT if action == "replacecommit" else im.COMMIT
            crash_point("before_complete")
            timeline.complete(inflight, im.encode(kind, meta))

    @contextlib.contextmanager
    def _metadata_stage(self, inflight: Instant) -> Iterator[MetadataWriter | None]:
        """The metadata table to commit `inflight` with, decided just before the commit from hoodie.properties
        as stored now: built from one listing when the table has none yet (the partitions this write enables
        and it lacks: from the files it lists, `from_listing`); dropped when hoodie.metadata.enable=false, so
        no reader trusts a stale one. While another
        process builds it, the decision is made again under the build's hand-off lock, held until
        the data instant completes (the build then applies this write, or has just finished)."""
        mdt = self._fresh_metadata_writer()
        if not self.cfg.metadata_enabled:
            if mdt.exists():
                mdt.delete()
            yield None
        elif mdt.exists() and FILES in mdt.partitions():
            if mdt.build_in_progress():
                with mdt.handoff():  # the indexing's hand-over applies this write, or has just listed the index
                    yield self._fresh_metadata_writer()
            else:
                wanted = [] if self.cfg.index_async else from_listing.missing(mdt)
                built = wanted and from_listing.build_for_write(mdt, wanted, inflight.requested_time)
                yield self._fresh_metadata_writer() if built else mdt
        elif not mdt.build_in_progress():
            mdt.initialize(self._timeline)
            yield mdt
        else:
            with mdt.handoff():
                mdt = self._fresh_metadata_writer()
                if FILES in mdt.partitions():
                    yield mdt
                else:
                    log.info("the metadata table of %s is being built; the build applies this write", self.path)
                    yield None

    def _fresh_metadata_writer(self) -> MetadataWriter:
        self.props = properties.load(self.storage, self.base)
        return MetadataWriter(self.storage, self.base, self.props,
                              partitions=self._indexed.metadata_partitions(self.props))

    # ---- input and schema ---------------------------------------------------------------------
    def _validate_input(self, df: DataFrame, current: dict | None) -> None:
        self._input = input_checks.before_instant(self.cfg, df, current, self.props is not None,
                                                  self.index.tags_in_driver)
        self._required = self._input.required  # the columns the rows must be checked for

    def _schema_for(self, df: DataFrame | None, current: dict | None) -> dict:
        """The table's Avro schema after this write: the input's columns, checked against (evolving) its current one."""
        if df is None:
            assert current is not None  # delete_partition (no DataFrame) is refused on a path with no table
            return current
        incoming = input_schema(df, self.cfg.table_name)
        try:
            return incoming if current is None else evolve(current, incoming)
        except IncompatibleSchemaError as e:
            raise HudiWriteError(str(e)) from None

    def _create_table(self, create_schema: dict) -> dict[str, str]:
        cfg = self.cfg
        props = properties.v8_defaults(cfg.table_name, cfg.table_type, cfg.record_key_fields, cfg.partition_specs,
                                       cfg.ordering_field, avro_schema.to_json(create_schema), cfg.keygen,
                                       cfg.hive_style, cfg.url_encode, database=cfg.database)
        props.update({**cfg.timestamp_options, **cdc.table_properties(cfg.cdc_mode)})  # as Hudi records them
        props.update(self.index.table_properties())
        self.storage.mkdirs(posixpath.join(self.base, ".hoodie", "timeline", "history"))
        properties.save(self.storage, self.base, props)
        return props

    # ---- planning -----------------------------------------------------------------------------
    @contextlib.contextmanager
    def _planned(self, df: DataFrame | None) -> Iterator[_Plan]:
        """The plan of the write, with the latest slices of only the partitions it touches; the
        keyed batch stays cached until the write has read it."""
        cfg = self.cfg
        if cfg.operation == "delete_partition":
            targets = sorted(set(cfg.partitions_to_delete) | set(self._batch_partitions(df) if df is not None else ()))
            yield replace(self._view(targets), partitions=targets)
            return
        assert df is not None  # only delete_partition writes no DataFrame
        # the Spark plan of the keys is built when needed: a batch written in the driver is keyed in Arrow
        keyed, plan = functools.cache(lambda: self._keyed(df)), None
        if self._unshuffled_bulk_insert:  # new file groups only: no view, no counts, no cached batch
            yield _Plan([], {}, incoming=self._incoming(keyed()))
            return
        if self.index.hashes_keys and cfg.operation not in REPLACE_OPS:
            # the batch's partitions cost a pass over it: asked only of a cached batch, else all partitions
            plan = self._view(self._batch_partitions(df) if df.is_cached else None)
            if cfg.table_type == "MERGE_ON_READ" or not plan.slices:  # no old rows to merge with:
                yield replace(plan, incoming=self._incoming(keyed()))  # each row is read once, straight into the write
                return
        batch = small_batch.collect(keygen.without_stale_meta(df), keyed, cfg, self._input.taken) \
            if self._input.small else None
        if batch is not None:
            input_checks.refuse_arrow(batch, cfg.record_key_fields, self._required)
        here, hits = (False, None) if batch is None else self.index.driver_hits(
            self.spark, self.path, self.options, self._table_props, batch, self._looks_up() and self._has_commits())
        if here:  # written in the driver if its keys are found there: no Spark plan of the batch at all
            assert batch is not None  # without a batch, here is False
            counts = small_batch.partition_counts(batch)
            plan = replace(self._view(list(counts)), partitions=list(counts), batch=batch, hits=hits,
                           records=batch.num_rows)
            if small_batch.fits(plan.slices, hits, cfg, self.index.inserts_to_logs):
                yield plan
                return
            plan = None  # too many files to read or rewrite in the driver: the executors tag the batch
        # the keyed batch feeds the partition counts, the tagging and the write: computed once
        incoming = self._incoming(keyed()).persist()
        try:
            # a big batch's bad rows are looked for in the same job as its partitions' counts
            bad = input_checks.bad_row(cfg.record_key_fields, self._required) \
                if self._input.deferred and batch is None else F.lit(False)
            rows = incoming.groupBy("_hoodie_partition_path").agg(F.count(F.lit(1)), F.max(bad)).collect()
            if any(r[2] for r in rows):
                input_checks.check(incoming, cfg.record_key_fields, self._required)
            counts = {r[0]: r[1] for r in rows}
            touched = list(counts)
            if (located := self._located(incoming)) is not None:  # the record index says where the batch's keys live
                touched += [r[0] for r in located.select("_hudi_p").distinct().collect()
                            if r[0] not in counts]
            # all partitions when the table is replaced, or when a global index without a record index
            # sends updates and deletes to the partitions their keys are in
            everywhere = cfg.operation == "insert_overwrite_table" or (
                self.index.is_global and cfg.operation in ("upsert", "delete") and self._located(incoming) is None)
            plan = plan or self._view(None if everywhere else touched)
            yield replace(plan, incoming=incoming, partitions=list(counts), records=sum(counts.values()))
        finally:
            incoming.unpersist()
            if self._found is not None:
                self._found.unpersist()

    def _view(self, partitions: list[str] | None) -> _Plan:
        """The latest slices of `partitions` (None: all); a bucket table laid out otherwise fails here."""
        slices = view.latest_file_slices(self.spark, self.path, partitions, self.options, self._start_state())
        return _Plan(slices, self.index.buckets(slices))

    def _batch_partitions(self, df: DataFrame) -> list[str]:
        return [r[0] for r in df.select(keygen.partition_path(self.cfg)).distinct().collect()]

    def _keyed(self, df: DataFrame) -> DataFrame:
        return keygen.with_keys(keygen.without_stale_meta(df), self.cfg)

    def _incoming(self, keyed: DataFrame) -> DataFrame:
        """The keyed batch as the executors write it: one record per key for upserts and deletes, bucketed."""
        cfg = self.cfg
        if cfg.operation in ("upsert", "delete"):
            keyed = keygen.precombined(keyed, cfg.ordering_field, self._tasks())
        return self.index.keyed(self.spark, keyed)


    @property
    def _unshuffled_bulk_insert(self) -> bool:
        """A bulk_insert each input task writes itself (pyhudi.write.bulk_insert); the records of an index that
        hashes keys go to their buckets' file groups instead."""
        return self.cfg.operation == "bulk_insert" and not self.index.hashes_keys

    def _start_state(self) -> tuple[str | None, str]:
        """The timeline as this write found it, after rolling back dead writes: (last completed
        write, timeline hash), from one listing per write."""
        if self._start is None:
            self._start = self._timeline.view_state()
        return self._start

    def _has_commits(self) -> bool:
        return self._start_state()[0] is not None

    def _looks_up(self) -> bool:  # the operation updates or deletes existing keys
        return self.props is not None and self.cfg.operation not in ("insert", "bulk_insert") + REPLACE_OPS

    def _located(self, incoming: DataFrame) -> DataFrame | None:
        """(_hudi_k, _hudi_p, FG) of the batch's keys the index holds, looked up once before tagging (cached);
        None unless the index answers so (a built record index)."""
        if self._found is None and self._looks_up() and self._has_commits():
            found = self.index.located(self.spark, self.path, self.options, self._table_props, incoming)
            self._found = None if found is None else found.persist()
        return self._found

    def _tag(self, plan: _Plan) -> DataFrame:
        """Adds FG (existing file group or null) and OP (U/D for existing keys, I for new)."""
        assert plan.incoming is not None  # only the plans of delete_partition and of a small batch have none
        existing = self._located(plan.incoming)
        if existing is None and self._looks_up() and self._has_commits():
            existing = self.index.existing_keys(Lookup(self.spark, self.path, self.options, plan.incoming, plan.slices,
                                                       plan.partitions, plan.records, lambda: self._mdt_filters(plan)))
        return tagging.tag(plan.incoming, existing, self.cfg, plan.records, self.index,
                           looked_up=self._found is not None)

    def _assign_inserts(self, tagged: DataFrame, slices: list[FileSlice]) -> tuple[DataFrame, dict[str, list[str]]]:
        small = placement.SmallFiles(self.cfg, slices, self._held(), self.index.inserts_to_logs, self._base_size)
        return placement.assign_inserts(self.spark, tagged, small)

    def _base_size(self, s: FileSlice) -> int:
        assert s.base is not None  # SmallFiles sizes only slices with a base file
        return self.storage.fs.get_file_info(posixpath.join(self.base, s.partition, s.base)).size or 0

    # ---- writing ------------------------------------------------------------------------------
    def _write_files(self, plan: _Plan, instant: str, writer_schema: str
                     ) -> tuple[list[WriteStat], dict[str, list[str]]]:
        """Writes every file of this instant on executors; (write stats, replaced file ids)."""
        cfg = self.cfg
        replaced = self._replaced(plan)
        if cfg.operation == "delete_partition":
            self._note_key_changes(None, replaced)
            return [], replaced
        if self._unshuffled_bulk_insert:
            assert plan.incoming is not None  # its plan is the keyed batch alone
            stats = bulk_insert.write(plan.incoming, self._task(instant, writer_schema), cfg.bulk_insert_sort_mode,
                                      cfg.shuffle_parallelism, cfg.max_file_size, cfg.row_writer)
            self._indexed.note_written(self.props, stats)
            return stats, replaced
        if self.index.hashes_keys:
            assert plan.incoming is not None  # an index hashing keys takes no small batch to the driver
            existing = {k: fid for k, fid in plan.buckets.items() if k[0] not in replaced}  # replaced: new buckets
            located = self.index.place(self.spark, plan.incoming, existing, instant,
                                       self._guard.fixed_bucket_ids(cfg.operation))
            self._note_key_changes(located, replaced, upserts_known=False)
            return self._run_write(located, instant, writer_schema, plan.slices), replaced
        if plan.batch is not None:
            return self._small_write(plan, instant, writer_schema), replaced
        # tagging joins the batch with every key of the affected partitions: keep its result, the
        # insert counts, the touched file groups and the write all read it
        tagged_keys = self._tag(plan).persist()
        self._cached.append(tagged_keys)  # until the commit: the record index's changes are read from it
        placement.refuse_tagged_updates_under_clustering(self.path, tagged_keys, self._held_by_clustering())
        tagged, _ = self._assign_inserts(tagged_keys, plan.slices)
        self._note_key_changes(tagged, replaced)
        stats = self._run_write(tagged, instant, writer_schema, plan.slices)
        if counts := self.index.lookup_counts():  # read once: each read collects the accumulators
            log.info("%s index lookup of %s: %s", self.index.name.lower(), self.path, counts)
        return stats, replaced

    def _mdt_filters(self, plan: _Plan) -> dict[str, dict[str, dict]]:
        return bloom.mdt_filters(self.spark, self.path, self.options, self.cfg, self._table_props, plan)

    def _small_write(self, plan: _Plan, instant: str, writer_schema: str) -> list[WriteStat]:
        """The write of a small batch in the driver (its record-level index changes noted)."""
        cfg = self.cfg
        small = placement.SmallFiles(cfg, plan.slices, self._held(), self.index.inserts_to_logs, self._base_size)
        stats, tagged = small_batch.write(plan.batch, plan.slices, cfg, self._task(instant, writer_schema), small,
                                          self.path, self._held_by_clustering(), plan.hits, self._mdt_filters(plan))
        if self._indexed.maintains_record_index:
            self._note_key_changes(small_batch.as_frame(self.spark, tagged), {}, in_driver=True)
        return stats

    def _note_key_changes(self, tagged: DataFrame | None, replaced: dict[str, list[str]],
                          upserts_known: bool = True, in_driver: bool = False) -> None:
        """Keeps what this write changes in the record-level indexes, computed now while the tagged batch is
        cached (or held in the driver), for the metadata-table commit."""
        event_time = self._table_props.get(properties.MERGE_MODE) == "EVENT_TIME_ORDERING"
        self._indexed.note(self.props, tagged, replaced, upserts_known,
                           self.cfg.ordering_field if event_time else None, in_driver)

    def _held(self) -> dict[tuple[str, str], Instant]:
        """(partition, file id) -> the pending compaction or clustering plan holding that file group."""
        if self._plans is None:
            self._plans = held_file_groups(self._timeline)
        return self._plans

    def _held_by_clustering(self) -> dict[tuple[str, str], Instant]:
        return {k: i for k, i in self._held().items() if i.action == "clustering"}

    def _replaced(self, plan: _Plan) -> dict[str, list[str]]:
        """partition -> the file groups a replacecommit replaces."""
        if self.cfg.operation in ("delete_partition", "insert_overwrite"):
            assert plan.partitions is not None  # the plans of both list the partitions they write
            return file_groups(plan.slices, set(plan.partitions))
        if self.cfg.operation == "insert_overwrite_table":
            return file_groups(plan.slices)
        return {}

    def _run_write(self, tagged: DataFrame, instant: str, writer_schema: str, slices: list[FileSlice]
                   ) -> list[WriteStat]:
        """Every file group's files written by one executor call each; their write stats."""
        # copy-on-write rewrites every group it touches, merge-on-read the small base-only groups taking inserts
        # (unless inserts go to log files): the executors merge the base files themselves
        return executor.write_groups(placement.with_base_files(self.spark, tagged, slices),
                                     self._task(instant, writer_schema), self._tasks())

    def _task(self, instant: str, writer_schema: str) -> WriteTask:
        cfg = self.cfg
        return WriteTask(self.path, instant, writer_schema, cfg.table_type, cfg.ordering_field,
                         self._table_props.get(properties.MERGE_MODE) == "EVENT_TIME_ORDERING", cfg.log_block_format,
                         cfg.compression, inserts_to_logs=self.index.inserts_to_logs, cdc_mode=cfg.cdc_mode,
                         merge_base_file=True, record_positions=self.index.writes_positions,
                         keep_duplicates=cfg.operation == "insert" and o.ALLOW_DUPLICATE_ON_INSERTS.get(self.options),
                         key_summaries=self.index.writes_key_summaries)

    def _tasks(self) -> int:
        """Tasks of the write's shuffles. Explicit: adaptive execution would put a small batch on one core."""
        return self.cfg.shuffle_parallelism or 2 * self.spark.sparkContext.defaultParallelism
