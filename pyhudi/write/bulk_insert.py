"""bulk_insert without a shuffle: each input task writes its own new file groups, one open base file per
partition path it meets, rolled over at hoodie.parquet.max.file.size, as Apache Hudi's bulk insert does.

`hoodie.bulkinsert.sort.mode` (Hudi's BulkInsertSortMode) says how the input is arranged first: NONE leaves it
as it comes (no shuffle: the fastest, and as many files as Spark's own Parquet write); PARTITION_SORT sorts each
task's rows by partition path and record key (no shuffle); GLOBAL_SORT sorts across tasks (a range shuffle:
key ranges of files do not overlap); PARTITION_PATH_REPARTITION gives each partition path to one task, and
..._AND_SORT sorts each task's rows by partition path too. Bucket-index tables do not come here: their records
belong to their bucket's file group (pyhudi.write.index.bucket)."""
from __future__ import annotations

import contextlib
import posixpath
from typing import Iterator

import pyarrow as pa
import pyarrow.compute as pc
from pyspark.sql import DataFrame

from pyhudi import metadata
from pyhudi.basefile import parquet as base_file
from pyhudi.storage import Storage
from pyhudi.table import file_names as filenames
from pyhudi.table.write_stat import WriteStat
from pyhudi.write import executor
from pyhudi.write.executor import WriteTask
from pyhudi.write.row_writer import write as row_writer_write
from pyhudi.write.tagged import HELPER_COLUMNS

PARTITION, KEY = "_hoodie_partition_path", "_hoodie_record_key"
# rows of one partition path gathered before they are written as a row group (Arrow bytes), and of all
# partition paths a task holds at once: a task meeting many partition paths flushes its largest first
ROW_GROUP_BYTES = 64 << 20
TASK_BUFFER_BYTES = 256 << 20
ARROW_BATCH_BYTES, ARROW_BATCH_MIN_ROWS, ARROW_BATCH_MAX_ROWS = 32 << 20, 10_000, 100_000


def arrange(df: DataFrame, mode: str, tasks: int) -> DataFrame:
    """The input as the sort mode lays it out over tasks; `tasks` 0: as many as the input has."""
    order = [PARTITION, KEY]
    if mode in ("NONE", "PARTITION_SORT"):  # never a shuffle: only fewer tasks, by coalescing
        if tasks and tasks < df.rdd.getNumPartitions():
            df = df.coalesce(tasks)
        return df.sortWithinPartitions(*order) if mode == "PARTITION_SORT" else df
    tasks = tasks or df.rdd.getNumPartitions()
    if mode == "GLOBAL_SORT":
        return df.repartitionByRange(tasks, *order).sortWithinPartitions(*order)
    df = df.repartition(tasks, PARTITION)
    return df.sortWithinPartitions(PARTITION) if mode == "PARTITION_PATH_REPARTITION_AND_SORT" else df


def write(df: DataFrame, task: WriteTask, mode: str, tasks: int, max_file_size: int,
          row_writer: bool = False) -> list[WriteStat]:
    """Writes the keyed batch `df` as new base files; their write stats. `row_writer`: in the JVM when the
    schema and storage allow it (pyhudi.write.row_writer)."""
    arranged = arrange(df, mode, tasks)
    stats = row_writer_write(arranged, task, max_file_size) if row_writer else None
    if stats is not None:
        return stats
    out = arranged.mapInArrow(lambda batches: _write_task(batches, task, max_file_size),
                                               executor.STATS_DDL)
    with _arrow_batches_of(df.sparkSession, _batch_rows(df)):
        return [WriteStat.from_row(r.asDict()) for r in out.collect()]


def _batch_rows(df: DataFrame) -> int:
    """Rows per Arrow batch handed to the writers: about ARROW_BATCH_BYTES by Spark's estimate of a row's size.
    Spark's default of 10,000 rows makes the hand-off cost a sixth of a bulk load of narrow rows."""
    row_bytes = max(1, df._jdf.schema().defaultSize())
    return max(ARROW_BATCH_MIN_ROWS, min(ARROW_BATCH_MAX_ROWS, ARROW_BATCH_BYTES // row_bytes))


@contextlib.contextmanager
def _arrow_batches_of(spark, rows: int) -> Iterator[None]:
    """spark.sql.execution.arrow.maxRecordsPerBatch for one job (Spark reads it when the job is planned), unless
    the session sets its own; restored after."""
    conf, key = spark.conf, "spark.sql.execution.arrow.maxRecordsPerBatch"
    own = conf.get(key, None)
    if own is not None:
        yield
        return
    conf.set(key, str(rows))
    try:
        yield
    finally:
        conf.unset(key)


# ---- on executors ------------------------------------------------------------------------------

def _write_task(batches: Iterator[pa.RecordBatch], task: WriteTask, max_file_size: int
                ) -> Iterator[pa.RecordBatch]:
    files = _TaskFiles(task, max_file_size)
    for batch in batches:
        for partition, rows in _by_partition(batch):
            files.add(partition, rows)
    for stat in files.close():
        yield from stat.to_batches()


def _by_partition(batch: pa.RecordBatch) -> Iterator[tuple[str, pa.RecordBatch]]:
    column = batch.column(PARTITION)
    values = pc.unique(column).to_pylist()
    if len(values) == 1:  # sorted or partition-clustered input: the usual case
        yield values[0], batch
        return
    for value in values:
        yield value, batch.filter(pc.equal(column, value))


class _OpenFile:
    """A new file group's base file being written by this task."""

    def __init__(self, task: WriteTask, partition: str):
        self.task, self.partition = task, partition
        self.file_id = filenames.new_file_id()
        self.name = str(filenames.BaseFileName(self.file_id, executor.task_write_token(), task.instant, "parquet"))
        self.rel = posixpath.join(partition, self.name) if partition else self.name
        storage, base = Storage.for_uri(task.base_uri)
        executor.marker(storage, base, task, partition, self.name, "CREATE")
        self.writer = base_file.BaseFileWriter(posixpath.join(base, self.rel), task.writer_schema,
                                               filesystem=storage.fs, compression=task.compression)

    def write(self, rows: pa.Table) -> None:
        """Rows in one row group, with their meta columns (commit time, `<instant>_<task>_<n>` sequence numbers)."""
        from pyspark import TaskContext

        ctx = TaskContext.get()
        data = rows.drop_columns([c for c in rows.column_names if c in HELPER_COLUMNS])
        self.writer.write(base_file.add_meta_columns(
            data, commit_time=self.task.instant, partition_path=self.partition, file_name=self.name,
            record_keys=rows.column(KEY), partition_id=ctx.partitionId() if ctx else 0,
            start_seq=self.writer.num_records))

    def close(self) -> pa.Table:
        stats = self.writer.close()
        n = stats.num_records
        return executor.stats_table(WriteStat(
            partition=self.partition, file_id=self.file_id, path=self.rel, prev_commit="null", num_writes=n,
            num_inserts=n, num_update_writes=0, num_deletes=0, file_size=stats.file_size,
            min_key=stats.min_record_key, max_key=stats.max_record_key,
            column_stats=metadata.column_stats_json(self.writer.arrow_schema, stats.parquet_metadata),
            bloom=stats.bloom_filter.serialize() if stats.bloom_filter else None))


class _TaskFiles:
    """One task's open base files, one per partition path, and the rows each has gathered."""

    def __init__(self, task: WriteTask, max_file_size: int):
        self.task, self.max_file_size = task, max_file_size
        self.open: dict[str, _OpenFile] = {}
        self.pending: dict[str, list[pa.RecordBatch]] = {}
        self.sizes: dict[str, int] = {}
        self.done: list[pa.Table] = []

    def add(self, partition: str, rows: pa.RecordBatch) -> None:
        self.pending.setdefault(partition, []).append(rows)
        self.sizes[partition] = self.sizes.get(partition, 0) + rows.nbytes
        if self.sizes[partition] >= self._flush_bytes():
            self._flush(partition)
        while sum(self.sizes.values()) >= TASK_BUFFER_BYTES:
            self._flush(max(self.sizes, key=self.sizes.__getitem__))

    def _flush(self, partition: str) -> None:
        """The partition's gathered rows written as row groups of at most the flush size each."""
        rows = pa.Table.from_batches(self.pending.pop(partition))
        size = self.sizes.pop(partition)
        step = max(1, rows.num_rows * self._flush_bytes() // max(1, size))
        for start in range(0, rows.num_rows, step):
            file = self.open.get(partition) or self.open.setdefault(partition, _OpenFile(self.task, partition))
            file.write(rows.slice(start, step))
            if file.writer.bytes_written >= self.max_file_size:  # the next rows start a new file group
                self.done.append(self.open.pop(partition).close())

    def _flush_bytes(self) -> int:
        return min(ROW_GROUP_BYTES, self.max_file_size)  # no row group outgrows a file

    def close(self) -> list[pa.Table]:
        for partition in list(self.pending):
            self._flush(partition)
        return self.done + [f.close() for f in self.open.values()]
