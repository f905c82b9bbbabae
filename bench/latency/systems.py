"""What one measured write is for each system, the upsert batch they all write, and the untimed
checks that the writes read back right.

The batch of commit number c: UPSERT_ROWS rows in ONE partition (the middle one): the rows of
UPDATE_FILES load files of that partition (seeded by size and c; whole files, so the updates
rewrite the same number of files at every table size) with ts = c, and ROWS_PER_COMMIT new keys
`u{c:06d}r..`. Every system writes the same batch at the same commit count.

pyhudi: `df.write.format("hudi-meta").options(...).mode("append").save(path)`, upsert, the table's
keys, hoodie.metadata.enable as the table was built. The DataFrame is made from the Arrow batch
before the clock starts.

delta-rs: `DeltaTable(path).merge(source, predicate, ...).when_matched_update_all()
.when_not_matched_insert_all().execute()`, the table's load included in the time (pyhudi's write
loads its timeline too). The predicate matches key and partition: Hudi's default (simple,
non-global) index matches a record within its partition, so this is the same merge, and it lets
delta-rs prune the target to the batch's partition as a Delta user would (`t.id = s.id` alone
makes it read the ids of every file whose id range the batch's spans).
"""
from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Callable

import pyarrow as pa

from bench.latency import build
from bench.planning.build import Shape

UPDATE_FILES = 5
DELTA_PREDICATE = (f"t.{build.KEY} = s.{build.KEY} AND t.{build.DELTA_PARTITION} = s.{build.DELTA_PARTITION}")


@dataclass(frozen=True)
class System:
    name: str
    short: str
    kind: str  # the table it writes: build.KINDS
    what: str
    ours: bool = False


SYSTEMS = {
    "pyhudi-mdt-on": System("pyhudi-mdt-on", "pyhudi mdt=on", "mdt-on",
                            'df.write.format("hudi-meta"), operation=upsert, hoodie.metadata.enable=true: the '
                            "metadata table (files, column_stats, partition_stats) committed with every write",
                            ours=True),
    "pyhudi-mdt-off": System("pyhudi-mdt-off", "pyhudi mdt=off", "mdt-off",
                             "the same with hoodie.metadata.enable=false, on a table that never had a metadata "
                             "table: the writer lists the partition it touches", ours=True),
    "pyhudi-ri": System("pyhudi-ri", "pyhudi rec-index", build.RI_KIND,
                        "the same with the metadata table and hoodie.index.type=RECORD_INDEX: keys found by a "
                        "record-index lookup, not by reading the partition's keys", ours=True),
    "delta-rs": System("delta-rs", "delta-rs", "delta",
                       f'DeltaTable(path).merge(predicate="{DELTA_PREDICATE}").when_matched_update_all()'
                       ".when_not_matched_insert_all().execute()"),
}


def upsert_partition(shape: Shape) -> int:
    return shape.partitions // 2


def upsert_batch(shape: Shape, seq: int) -> pa.Table:
    """The batch of the upsert that becomes commit number `seq`."""
    i, n = upsert_partition(shape), shape.rows_per_file
    rng = random.Random(f"{shape.name}/{seq}")
    files = [i * shape.files_per_partition + j for j in sorted(rng.sample(range(shape.files_per_partition),
                                                                          UPDATE_FILES))]
    keys = [f"k{k:07d}r{r:02d}" for k in files for r in range(n)]
    v = [k * n + r for k in files for r in range(n)]
    keys += [f"u{seq:06d}r{r:02d}" for r in range(build.ROWS_PER_COMMIT)]
    v += [10**9 + seq * 100 + r for r in range(build.ROWS_PER_COMMIT)]
    return build.rows(keys, shape.partition_value(i), v, seq)


def batch_counts(shape: Shape) -> dict:
    updates = UPDATE_FILES * shape.rows_per_file
    return {"rows": updates + build.ROWS_PER_COMMIT, "updates": updates, "inserts": build.ROWS_PER_COMMIT,
            "update_files": UPDATE_FILES, "partition": shape.partition_path(upsert_partition(shape))}


def writer(spark, system: str, path: str, batch: pa.Table) -> Callable[[], None]:
    """The write of `batch` into the table at `path`, everything before it done: only calling it is timed."""
    if system == "delta-rs":
        source = build.delta_rows(batch)

        def merge() -> None:
            from deltalake import DeltaTable

            (DeltaTable(path).merge(source=source, predicate=DELTA_PREDICATE, source_alias="s", target_alias="t")
             .when_matched_update_all().when_not_matched_insert_all().execute())
        return merge
    options = build.kind_options(SYSTEMS[system].kind)
    df = spark.createDataFrame(batch)

    def upsert() -> None:
        df.write.format("hudi-meta").options(**options).mode("append").save(path)
    return upsert


# ---------------------------------------------------------------- checks (untimed)


def _hudi_df(spark, system: str, path: str):
    reader = spark.read.format("hudi-meta")
    if SYSTEMS[system].kind == "mdt-off":
        reader = reader.option("hoodie.metadata.enable", "false")
    return reader.load(path)


def partition_check(spark, system: str, path: str, shape: Shape, seq: int) -> dict:
    """The upsert partition after the write of commit `seq`: rows, distinct keys (equal: the
    updates replaced rows), rows the last write left (all of its batch)."""
    pval = shape.partition_value(upsert_partition(shape))
    if system == "delta-rs":
        import pyarrow.compute as pc
        from deltalake import DeltaTable

        t = DeltaTable(path).to_pyarrow_dataset().to_table(
            columns=[build.KEY, build.ORDERING], filter=pc.field(build.DELTA_PARTITION) == pval)
        got = {"rows": t.num_rows, "keys": len(pc.unique(t.column(build.KEY))),
               "last_write": pc.sum(pc.equal(t.column(build.ORDERING), seq)).as_py() or 0}
    else:
        from pyspark.sql import functions as F

        r = (_hudi_df(spark, system, path).where(F.col(build.PARTITION) == pval)
             .agg(F.count("*").alias("rows"), F.countDistinct(build.KEY).alias("keys"),
                  F.sum((F.col(build.ORDERING) == seq).cast("int")).alias("last_write")).collect()[0])
        got = {k: r[k] or 0 for k in ("rows", "keys", "last_write")}
    want = batch_counts(shape)["rows"]
    return {**got, "expected_last_write": want, "ok": got["rows"] == got["keys"] and got["last_write"] == want}


def row_count(spark, system: str, path: str) -> int:
    """Rows of the whole table: hudi-meta's snapshot count, delta-rs's dataset count."""
    if system == "delta-rs":
        from deltalake import DeltaTable

        return DeltaTable(path).to_pyarrow_dataset().count_rows()
    return _hudi_df(spark, system, path).count()


def expected_rows(shape: Shape, commits: int) -> int:
    return shape.rows + build.ROWS_PER_COMMIT * (commits - 1)
