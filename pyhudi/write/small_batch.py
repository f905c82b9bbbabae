"""Small batches written in the driver (issue 17's small commits). Tagging, placing and writing a batch of a
hundred records through Spark costs a dozen jobs; a batch of at most pyhudi.write.small.batch.max.records
records is instead taken to the driver once (one job) and written there by the executors' own functions: keys
found by the record index (one driver-side lookup, whatever the partitions hold) or, for the SIMPLE and BLOOM
indexes of partitions holding few file slices, by reading the touched slices' files (pyhudi.write.index.bloom:
files whose key range and bloom filter exclude every key are not read; log files are always read, as the
simple index's merged read sees their keys), new records placed by Hudi's small-file rules
(pyhudi.write.placement), each file group written by executor.write_group. The driver takes a batch only while
its share stays small (`fits`): base files to read keys from or rewrite past pyhudi.write.small.batch.max.file.bytes
go to the executors."""
from __future__ import annotations

import logging
from typing import Callable

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
from pyspark.sql import DataFrame, SparkSession

from pyhudi.storage import Storage
from pyhudi.table.file_slices import FileSlice
from pyhudi.table.write_stat import WriteStat
from pyhudi.write import executor, keygen, placement
from pyhudi.write.config import WriteConfig
from pyhudi.write.executor import WriteTask
from pyhudi.write.index import bloom
from pyhudi.write.index.base import Hits
from pyhudi.write.tagged import BASE, DELETE, FG, INSERT, OP, SQL_DELETE, UPDATE

log = logging.getLogger(__name__)
MAX_SLICES = 200  # more file slices in the touched partitions: their footers are read by executor tasks
MAX_BYTES = 64 << 20  # inputs Spark's plan sizes bigger than this are not tried as small batches
UNKNOWN_SIZE = 2**63 - 1  # what Spark's plan says of an input it cannot size (an RDD, say)


def may_apply(cfg: WriteConfig, df: DataFrame) -> bool:
    """Whether a write may go through the driver: a small upsert, insert or delete (by an index that can tag it
    there: Index.tags_in_driver), with no CDC log to keep, of an input Spark's plan does not know to be big."""
    return bool(cfg.small_batch_max_records and cfg.operation in ("upsert", "insert", "delete") and not cfg.cdc_mode
                and SQL_DELETE not in df.columns and _may_be_small(df))


def fits(slices: list[FileSlice], hits: Hits | None, cfg: WriteConfig, inserts_to_logs: bool) -> bool:
    """Whether the driver's share of a small batch stays small: the touched partitions' `slices` are few enough
    to read their keys in the driver (SIMPLE, BLOOM: `hits` None) and their base files small enough to read or
    rewrite there. A merge-on-read batch the record index tagged touches no base file: its updates, deletes and
    inserts into existing file groups go to log files."""
    if hits is not None and inserts_to_logs:
        return True
    if hits is None and len(slices) > MAX_SLICES:
        return False
    return sum(s.base_size or 0 for s in slices if s.base) <= cfg.small_batch_max_file_bytes


def take(df: DataFrame, cfg: WriteConfig) -> pa.Table | None:
    """The input's rows in the driver (stale meta columns dropped), when there are at most small.batch.max.records
    of them (perhaps none); taking one more costs a job over a few partitions of a big batch."""
    batch = keygen.without_stale_meta(df).limit(cfg.small_batch_max_records + 1).toArrow()
    return batch if batch.num_rows <= cfg.small_batch_max_records else None


def collect(df: DataFrame, keyed: Callable[[], DataFrame], cfg: WriteConfig,
            taken: pa.Table | None = None) -> pa.Table | None:
    """The keyed batch in the driver, one record per key for upserts and deletes (Hudi's precombine), when it
    holds at most small.batch.max.records records (`taken`: the input's rows already there, see `take`). No
    shuffle: the batch is deduplicated here. The keys are computed in Arrow when they can be (no key expressions
    built and analysed over Py4J), else by Spark (`keyed()`)."""
    in_arrow = keygen.arrow_computable(df, cfg)
    if in_arrow and taken is not None:
        batch = taken
    else:
        batch = (df if in_arrow else keyed()).limit(cfg.small_batch_max_records + 1).toArrow()
    if not 0 < batch.num_rows <= cfg.small_batch_max_records:
        return None
    if in_arrow:
        batch = keygen.arrow_keys(batch, cfg)
    return _deduped(batch, cfg) if cfg.operation in ("upsert", "delete") else batch


def _deduped(batch: pa.Table, cfg: WriteConfig) -> pa.Table:
    """The record with the greatest ordering value of each key (nulls lose), the last one given on a tie."""
    order = pa.array(np.arange(batch.num_rows))
    keys = [("_hoodie_record_key", "ascending")]
    if cfg.ordering_field and cfg.ordering_field in batch.column_names:
        keys.append((cfg.ordering_field, "descending"))
    ranked = _sorted(batch.append_column("_hudi_i", order), keys + [("_hudi_i", "descending")])
    k = ranked.column("_hoodie_record_key").to_numpy(zero_copy_only=False)
    first = np.r_[True, k[1:] != k[:-1]] if len(k) else np.zeros(0, bool)
    kept = ranked.filter(pa.array(first)).sort_by("_hudi_i")  # input order, as the write would see it
    return kept.drop_columns(["_hudi_i"])


def _sorted(table: pa.Table, keys: list[tuple[str, str]]) -> pa.Table:
    """`table` sorted by `keys`, nulls last (pyarrow 25 takes the null placement per key, older ones once)."""
    if int(pa.__version__.split(".")[0]) >= 25:
        return table.sort_by([(name, order, "at_end") for name, order in keys])
    return table.sort_by(keys, null_placement="at_end")


def _may_be_small(df: DataFrame) -> bool:
    try:
        size = int(df._jdf.queryExecution().optimizedPlan().stats().sizeInBytes().toString())
    except Exception:  # noqa: BLE001 - a plan Spark cannot size may be small
        return True
    return size <= MAX_BYTES or size >= UNKNOWN_SIZE


def partition_counts(batch: pa.Table) -> dict[str, int]:
    counts = pc.value_counts(batch.column("_hoodie_partition_path")).to_pylist()
    return {c["values"]: c["counts"] for c in counts}


def write(batch: pa.Table, slices: list[FileSlice], cfg: WriteConfig, task: WriteTask, small: placement.SmallFiles,
          path: str, clustering: dict, hits: Hits | None = None,
          mdt_filters: dict | None = None) -> tuple[list[WriteStat], pa.Table]:
    """Tags (by the record index's `hits`, else by reading the slices' keys, skipping log files whose bloom
    filter in the metadata table, `mdt_filters`, excludes them), places and writes the keyed batch; the write
    stats of every file written and the tagged batch. `clustering`: the (partition, file id) groups pending
    clusterings hold, whose records must not change."""
    tagged = _tagged(batch, slices, cfg, task.base_uri, hits, mdt_filters or {})
    updated = pc.is_in(tagged.column(OP), pa.array([UPDATE, DELETE]))
    keys = zip(tagged.column("_hoodie_partition_path").filter(updated).to_pylist(),
               tagged.column(FG).filter(updated).to_pylist())
    placement.refuse_updates_under_clustering(path, sorted(set(keys)), clustering)
    tagged = _placed(tagged, small)
    base_of = {s.file_id: s.base for s in slices}
    tagged = tagged.append_column(BASE, pa.array([base_of.get(f) for f in tagged.column(FG).to_pylist()],
                                                  pa.string()))
    stats = []
    for fg in pc.unique(tagged.column(FG)).to_pylist():
        out = executor.write_group(tagged.filter(pc.equal(tagged.column(FG), fg)), task)
        stats += [WriteStat.from_row(r) for r in out.to_pylist()]
    return stats, tagged.drop_columns([BASE])


def _tagged(batch: pa.Table, slices: list[FileSlice], cfg: WriteConfig, base_uri: str,
            hits: Hits | None, mdt_filters: dict) -> pa.Table:
    """The batch with FG (the key's file group, or null) and OP; deletes of keys the table lacks dropped."""
    keys: dict[str, list[str]] = {}
    for k, p in zip(batch.column("_hoodie_record_key").to_pylist(), batch.column("_hoodie_partition_path").to_pylist()):
        keys.setdefault(p, []).append(k)
    found: Hits = dict(hits or {})
    if cfg.operation != "insert" and hits is None:
        lookup = bloom.Lookup(base_uri, keys, cfg.bloom_prune_by_ranges, log_files=True)
        storage, base = Storage.for_uri(base_uri)
        counters = _Counts()
        for s in slices:
            if s.partition in keys:
                for hit in bloom.slice_hits(bloom.slice_row(s, mdt_filters), lookup, storage, base,
                                                  counters):
                    found[(hit["_hudi_k"], hit["_hudi_p"])] = hit[FG]
        log.info("bloom index lookup of %s (in the driver): %s", base_uri, counters.counts)
    pairs = zip(batch.column("_hoodie_record_key").to_pylist(), batch.column("_hoodie_partition_path").to_pylist())
    fgs = [found.get(kp) for kp in pairs]
    known = DELETE if cfg.operation == "delete" else UPDATE
    ops = [known if f is not None else INSERT for f in fgs]
    tagged = batch.append_column(FG, pa.array(fgs, pa.string())).append_column(OP, pa.array(ops, pa.string()))
    return tagged.filter(pc.not_equal(tagged.column(OP), INSERT)) if cfg.operation == "delete" else tagged


def _placed(tagged: pa.Table, small: placement.SmallFiles) -> pa.Table:
    """New records get their file groups: small files first, then new ones (spread in turn)."""
    is_insert = pc.equal(tagged.column(OP), INSERT).to_numpy(zero_copy_only=False)
    if not is_insert.any():
        return tagged
    partitions = tagged.column("_hoodie_partition_path").to_pylist()
    counts: dict[str, int] = {}
    for p in np.asarray(partitions, dtype=object)[is_insert]:
        counts[p] = counts.get(p, 0) + 1
    groups = placement.insert_groups(small, counts)
    fgs, seen = tagged.column(FG).to_pylist(), dict.fromkeys(counts, 0)
    for i in np.flatnonzero(is_insert):
        p = partitions[i]
        fgs[i] = groups[p][seen[p] % len(groups[p])]
        seen[p] += 1
    return tagged.set_column(tagged.column_names.index(FG), FG, pa.array(fgs, pa.string()))


class _Counts:
    """pyhudi.write.index.bloom's counters, kept in the driver."""

    def __init__(self):
        self.counts = dict.fromkeys(bloom.COUNTERS, 0)

    def add(self, name: str, n: int = 1) -> None:
        self.counts[name] += n


def as_frame(spark: SparkSession, tagged: pa.Table) -> DataFrame:
    """The tagged batch as a Spark DataFrame (a local relation) for the record-level indexes' bookkeeping."""
    return spark.createDataFrame(tagged)
