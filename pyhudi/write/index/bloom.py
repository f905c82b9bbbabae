"""The bloom index (Apache Hudi's BLOOM): the file group of each incoming key, found by reading the keys of
only those files whose key range and bloom filter may hold one of the batch's keys of their partition.
Each executor task takes a share of the touched partitions' file slices and checks them itself: base
files by their footer (hoodie_min/max_record_key, the bloom filter), or, with hoodie.bloom.index.use.metadata, by
their bloom filter in the metadata table's bloom_filters partition (the file is not opened unless it may hold a
key); and, with log-file indexing (pyhudi.bloom.index.log.files.enable, RFC-06), their log files: first by the log
file's bloom filter there (written for each log file under log-file indexing), then block by block: a
Parquet data block by the same footer keys inside its content, any other block by reading its keys. Files and
blocks that cannot hold a key are skipped, and counted. The metadata table's filters are fetched once per write
by the driver (mdt_filters), each slice's own handed to the task checking it."""
from __future__ import annotations

import io
import json
import posixpath
from dataclasses import dataclass
from typing import Protocol

import pyarrow as pa
import pyarrow.parquet as pq
from pyspark.sql import DataFrame, SparkSession

from pyhudi import log as lf
from pyhudi.basefile import bloom
from pyhudi.basefile import parquet as base_file
from pyhudi.metadata.keys import BLOOM_FILTERS
from pyhudi.metadata.layout import completed_partitions
from pyhudi.storage import Storage
from pyhudi.table.file_slices import FileSlice
from pyhudi.write.config import WriteConfig
from pyhudi.write.index import simple
from pyhudi.write.index.base import Index
from pyhudi.write.index.base import Lookup as Tagging
from pyhudi.write.tagged import FG

MAX_RECORDS = 1_000_000  # batches up to this size hand every task their keys; bigger ones read every key
FOUND_DDL = f"_hudi_k string, _hudi_p string, {FG} string"
# a slice to check, with its files' bloom filters from the metadata table (each task gets its own)
SLICES_DDL = ("partition string, file_id string, base string, logs array<string>, "
              "base_filter struct<type: string, filter: string>, "
              "log_filters map<string, struct<type: string, filter: string>>")
COUNTERS = ("files_checked", "files_skipped", "blocks_checked", "blocks_skipped", "keys_read")


@dataclass(frozen=True)
class Lookup:
    """What each task needs: the table, the batch's keys per partition, and which summaries to trust."""
    base_uri: str
    keys: dict[str, list[str]]
    prune_by_ranges: bool
    log_files: bool


class Counters:
    """Spark accumulators of what the lookups checked and skipped (read once the tagging job ran)."""

    def __init__(self, spark: SparkSession):
        self._acc = {name: spark.sparkContext.accumulator(0) for name in COUNTERS}

    def add(self, name: str, n: int = 1) -> None:
        self._acc[name].add(n)

    def values(self) -> dict[str, int]:
        return {name: acc.value for name, acc in self._acc.items()}


class Counting(Protocol):
    """What the lookups count into: Counters on executors, plain counts in the driver (small_batch)."""

    def add(self, name: str, n: int = 1) -> None: ...


def mdt_filters(spark: SparkSession, path: str, options: dict[str, str], cfg: WriteConfig, props: dict[str, str],
                plan) -> dict[str, dict[str, dict]]:
    """partition -> {file name: {"type", "filter"}}: the bloom filters the metadata table's bloom_filters
    partition holds of the plan's (client._Plan) slices in the partitions it writes (one lookup in the driver):
    of their log files under log-file indexing, of their base files with hoodie.bloom.index.use.metadata. A log
    file written without log-file indexing has none, and none is given when the metadata table lags: such files
    are read."""
    if not ((cfg.bloom_log_files or cfg.bloom_use_metadata) and BLOOM_FILTERS in completed_partitions(props)):
        return {}
    if plan.hits is not None or cfg.operation == "insert":  # no file is looked in: the record index answered
        return {}
    files: dict[str, list[str]] = {}
    for s in plan.slices:
        if s.partition in (plan.partitions or ()):
            names = list(s.logs) if cfg.bloom_log_files else []
            if cfg.bloom_use_metadata and s.base:
                names.append(s.base)
            if names:
                files.setdefault(s.partition, []).extend(names)
    if not files:
        return {}
    assert spark._jvm is not None  # a live session has its JVM (SparkSession.__init__ asserts it)
    return json.loads(spark._jvm.io.hudimeta.index.BloomFilters.filtersJson(
        path, {k: str(v) for k, v in options.items()}, json.dumps(files)))


def existing_keys(spark: SparkSession, path: str, cfg: WriteConfig, incoming: DataFrame,
                  slices: list[FileSlice], counters: Counters,
                  filters: dict[str, dict[str, dict]] | None = None, is_global: bool = False) -> DataFrame:
    """(_hudi_k key, _hudi_p partition, FG file id) of the incoming keys some file group holds. `filters`: the
    files' bloom filters in the metadata table (mdt_filters); `is_global`: every key is looked for in every
    slice, not only in its own partition's."""
    keys: dict[str, list[str]] = {}
    for key, partition in incoming.select("_hoodie_record_key", "_hoodie_partition_path").collect():
        keys.setdefault(partition, []).append(key)
    if is_global:
        every = sorted({k for ks in keys.values() for k in ks})
        keys = {s.partition: every for s in slices}
    lookup = Lookup(path, keys, cfg.bloom_prune_by_ranges, cfg.bloom_log_files)
    rows = [slice_row(s, filters or {}) for s in slices if s.partition in keys]
    if not rows:
        return spark.createDataFrame([], FOUND_DDL)
    tasks = max(1, min(len(rows), 2 * spark.sparkContext.defaultParallelism))

    def run(batches):
        storage, base = Storage.for_uri(lookup.base_uri)
        for batch in batches:
            found = [hit for s in batch.to_pylist() for hit in slice_hits(s, lookup, storage, base, counters)]
            yield pa.RecordBatch.from_pylist(found, schema=_FOUND_SCHEMA)

    return spark.createDataFrame(rows, SLICES_DDL).repartition(tasks).mapInArrow(run, FOUND_DDL)


_FOUND_SCHEMA = pa.schema([("_hudi_k", pa.string()), ("_hudi_p", pa.string()), (FG, pa.string())])


def slice_row(s: FileSlice, filters: dict[str, dict[str, dict]]) -> dict:
    """A slice as slice_hits takes it (a row of SLICES_DDL), with its files' filters (mdt_filters)."""
    held = filters.get(s.partition, {})
    return {"partition": s.partition, "file_id": s.file_id, "base": s.base, "logs": list(s.logs),
            "base_filter": held.get(s.base) if s.base else None,
            "log_filters": {name: held[name] for name in s.logs if name in held}}


def slice_hits(s: dict, lookup: Lookup, storage: Storage, base: str, counters: Counting) -> list[dict]:
    partition, candidates = s["partition"], lookup.keys[s["partition"]]
    folder = posixpath.join(base, partition) if partition else base
    held: set[str] = set()
    if s["base"]:
        held |= _base_file_keys(posixpath.join(folder, s["base"]), s.get("base_filter"), candidates, lookup, storage,
                                counters)
    if lookup.log_files:
        filters = dict(s.get("log_filters") or ())  # a dict, or the pairs Arrow gives a map as
        for name in s["logs"]:
            held |= _log_file_keys(posixpath.join(folder, name), filters.get(name), candidates, lookup, storage,
                                   counters)
    return [{"_hudi_k": k, "_hudi_p": partition, FG: s["file_id"]} for k in held]


def _base_file_keys(path: str, summary: dict | None, candidates: list[str], lookup: Lookup, storage: Storage,
                    counters: Counting) -> set[str]:
    """Candidates the base file holds; tested first against its bloom filter in the metadata table (`summary`,
    the file not opened when it excludes them all), else against its footer's key range and bloom filter."""
    counters.add("files_checked")
    if summary is not None:
        maybe = _not_excluded(summary, candidates)
    else:
        maybe = _may_hold(base_file.read_footer_keys(path, filesystem=storage.fs), candidates, lookup.prune_by_ranges)
    if not maybe:
        counters.add("files_skipped")
        return set()
    keys = pq.read_table(path, columns=["_hoodie_record_key"], filesystem=storage.fs).column(0)
    counters.add("keys_read", len(keys))
    return set(maybe) & set(keys.to_pylist())


def _log_file_keys(path: str, summary: dict | None, candidates: list[str], lookup: Lookup, storage: Storage,
                   counters: Counting) -> set[str]:
    """Candidates some data block of the log file holds (a key only deleted there is not held); only those its
    bloom filter in the metadata table (`summary`) does not exclude, and the file is not opened when it excludes
    them all."""
    counters.add("files_checked")
    if summary is not None:
        candidates = _not_excluded(summary, candidates)
        if not candidates:
            counters.add("files_skipped")
            return set()
    held: set[str] = set()
    for block in lf.read_blocks(storage.read(path), path):
        if block.block_type not in (lf.BlockType.AVRO_DATA, lf.BlockType.PARQUET_DATA):
            continue
        counters.add("blocks_checked")
        keys = _block_keys(block, candidates, lookup, counters)
        if keys is None:
            counters.add("blocks_skipped")
            continue
        counters.add("keys_read", len(keys))
        held |= set(candidates).intersection(keys)
    return held


def _not_excluded(summary: dict, candidates: list[str]) -> list[str]:
    """The candidates a bloom filter of the metadata table ({"type", "filter"}) may hold."""
    hits = bloom.parse_bloom_filter(summary["filter"], summary["type"]).might_contain_all(candidates)
    return [k for k, hit in zip(candidates, hits) if hit]


def _block_keys(block: lf.LogBlock, candidates: list[str], lookup: Lookup, counters: Counting) -> list[str] | None:
    """The block's record keys, or None when its key summary shows it holds no candidate."""
    if block.block_type == lf.BlockType.AVRO_DATA:
        return [r["_hoodie_record_key"] for r in block.records()]
    content = pa.BufferReader(block.content)
    footer = base_file.read_footer_keys(content)
    if footer.bloom_filter is not None and not _may_hold(footer, candidates, lookup.prune_by_ranges):
        return None
    return pq.read_table(io.BytesIO(block.content), columns=["_hoodie_record_key"]).column(0).to_pylist()


def _may_hold(footer: base_file.FooterKeys, candidates: list[str], prune_by_ranges: bool) -> list[str]:
    """The candidates a file's key range and bloom filter do not exclude (all of them without a summary)."""
    if prune_by_ranges and footer.min_record_key is not None and footer.max_record_key is not None:
        lo, hi = _java_order(footer.min_record_key), _java_order(footer.max_record_key)
        candidates = [k for k in candidates if lo <= _java_order(k) <= hi]
    if footer.bloom_filter is None or not candidates:
        return candidates
    return [k for k, hit in zip(candidates, footer.bloom_filter.might_contain_all(candidates)) if hit]


def _java_order(key: str) -> bytes:
    """Sort key equal to Java's String.compareTo (UTF-16 code units), the order of the footer's min/max."""
    return key.encode("utf-16-be", "surrogatepass")


class BloomIndex(Index):
    """Keys looked for only in the files whose key range and bloom filter may hold them; a batch of more than
    MAX_RECORDS records reads every key of its partitions instead, as the simple index does."""
    name = "BLOOM"
    learns_positions = True
    tags_in_driver = True

    def __init__(self, cfg: WriteConfig):
        super().__init__(cfg)
        self.counters: Counters | None = None  # what the lookup checked and skipped

    def can_index_log_files(self) -> bool:
        return self.cfg.bloom_log_files  # RFC-06: log files carry key summaries too

    @property
    def writes_key_summaries(self) -> bool:
        return self.inserts_to_logs

    def existing_keys(self, lookup: Tagging) -> DataFrame:
        if lookup.records > MAX_RECORDS:  # a batch too big to hand every task its keys reads them all
            return simple.existing_keys(lookup.spark, lookup.path, self.cfg, lookup.partitions, self.is_global)
        self.counters = Counters(lookup.spark)
        return existing_keys(lookup.spark, lookup.path, self.cfg, lookup.incoming, lookup.slices, self.counters,
                             lookup.mdt_filters(), self.is_global)

    def lookup_counts(self) -> dict[str, int] | None:
        return None if self.counters is None else self.counters.values()
