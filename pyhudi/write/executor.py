"""What runs on Spark executors: one call per file group (applyInArrow), writing that group's new
base file or log file and returning its write stats. Nothing here talks to the driver."""
from __future__ import annotations

import posixpath
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from pyhudi import log as lf
from pyhudi import metadata
from pyhudi.avro import schema as avro_schema
from pyhudi.basefile import bloom
from pyhudi.basefile import parquet as base_file
from pyhudi.log.ordering import ordering_type_for_avro
from pyhudi.storage import Storage
from pyhudi.table.file_names import BaseFileName, LogFileName
from pyhudi.table.write_stat import WriteStat
from pyhudi.write import cdc
from pyhudi.write.tagged import BASE, COMPACTED, DELETE, FG, HELPER_COLUMNS, INSERT, OLD, OP, UPDATE

if TYPE_CHECKING:
    from pyspark.sql import DataFrame

META = avro_schema.META_FIELDS

# a WriteStat per written file (WriteStat.from_row), as Arrow gives it back to the driver
STATS_SCHEMA = pa.schema([
    ("partition", pa.string()), ("file_id", pa.string()), ("path", pa.string()), ("prev_commit", pa.string()),
    ("num_writes", pa.int64()), ("num_deletes", pa.int64()), ("num_inserts", pa.int64()),
    ("num_update_writes", pa.int64()), ("file_size", pa.int64()), ("min_key", pa.string()),
    ("max_key", pa.string()), ("is_log", pa.bool_()), ("base_file", pa.string()),
    # for the metadata table: column statistics (metadata.column_stats_json) and bloom filter
    ("column_stats", pa.string()), ("bloom", pa.string()),
    # the CDC log file written beside a rewritten base file (pyhudi.write.cdc), and its size
    ("cdc_path", pa.string()), ("cdc_size", pa.int64())])
_DDL_TYPES = {pa.string(): "string", pa.int64(): "bigint", pa.bool_(): "boolean"}
STATS_DDL = ", ".join(f"{f.name} {_DDL_TYPES[f.type]}" for f in STATS_SCHEMA)


@dataclass(frozen=True)
class WriteTask:
    """Everything an executor needs to write one instant's files (pickled to every task)."""
    base_uri: str
    instant: str
    writer_schema: str          # Avro JSON with the meta fields
    table_type: str
    ordering_field: str | None
    event_time: bool
    log_block_format: str
    compression: str
    sort_by: tuple[str, ...] = ()  # clustering: columns each new base file's records are sorted by
    inserts_to_logs: bool = False  # merge-on-read, an index that finds keys in log files: inserts join logs
    cdc_mode: str | None = None  # CDC logging mode of a data write to a table with CDC enabled
    # a data write: a group rewritten into a new base file merges the rows of its current base file, read here
    # (its slice has no log files); services hand every row over themselves (OP = O)
    merge_base_file: bool = False
    record_positions: bool = False  # log blocks of updates and deletes carry their base-file row positions
    keep_duplicates: bool = False  # an insert: incoming records join the group's, none replaced (Hudi's concat)
    # log-file indexing (RFC-06): Parquet log blocks carry a bloom filter and min/max keys in their footer, and
    # each log file's keys get a bloom filter for the metadata table's bloom_filters partition
    key_summaries: bool = False


def write_groups(work: DataFrame, task: WriteTask, tasks: int) -> list[WriteStat]:
    """Rows tagged with their file group (FG, OP, BASE) written by one write_group call per file group, in
    `tasks` tasks; the write stats of every file written."""
    out = work.repartition(tasks, FG).groupBy(FG).applyInArrow(lambda t: write_group(t, task), STATS_DDL)
    return [WriteStat.from_row(r.asDict()) for r in out.collect()]


def task_write_token() -> str:
    from pyspark import TaskContext

    ctx = TaskContext.get()
    if ctx is None:
        return "0-0-0"
    return f"{ctx.partitionId()}-{ctx.stageId()}-{ctx.taskAttemptId()}"


def _storage(task: WriteTask) -> tuple[Storage, str]:
    return Storage.for_uri(task.base_uri)


def marker(storage: Storage, base: str, task: WriteTask, partition: str, name: str, kind: str) -> None:
    """The marker comes first: a crash after it leaves a file the rollback knows to delete."""
    path = posixpath.join(base, ".hoodie", ".temp", task.instant, partition, f"{name}.marker.{kind}")
    storage.write(path, b"")


def _data_columns(table: pa.Table) -> list[str]:
    return [c for c in table.column_names if c not in HELPER_COLUMNS and c not in META]


def write_group(table: pa.Table, task: WriteTask) -> pa.Table:
    """Entry point for one file group: a merge-on-read update goes to a log file, anything else
    (inserts, copy-on-write merges) to a new base file version."""
    if table.num_rows == 0:
        return STATS_SCHEMA.empty_table()
    ops = set(table.column(OP).unique().to_pylist())
    if task.table_type == "MERGE_ON_READ" and (ops <= {UPDATE, DELETE} or (
            task.inserts_to_logs and OLD not in ops and table.column(BASE)[0].as_py())):
        return _write_log(table, task)
    return _write_base(table, task)


# ---- base files ---------------------------------------------------------------------------

def _ordering(table: pa.Table, task: WriteTask, i: int):
    given = task.ordering_field and task.ordering_field in table.column_names  # deletes may give keys only
    return table.column(task.ordering_field)[i].as_py() if given else None


def _incoming_wins(old: pa.Table, j: int, new: pa.Table, i: int, task: WriteTask) -> bool:
    if not task.event_time:
        return True
    o, n = _ordering(old, task, j), _ordering(new, task, i)
    return o is None or (n is not None and n >= o)


def _deleted_flags(table: pa.Table) -> list[bool]:
    """Per row: does _hoodie_is_deleted mark it a soft delete?"""
    if "_hoodie_is_deleted" not in table.column_names:
        return [False] * table.num_rows
    return [bool(v) for v in table.column("_hoodie_is_deleted").to_pylist()]


def _old_and_new(table: pa.Table, task: WriteTask, storage: Storage, base: str, partition: str,
                 prev: str | None) -> tuple[pa.Table, pa.Table]:
    """(the group's current rows, incoming rows)."""
    if task.merge_base_file and prev:
        path = posixpath.join(base, partition, prev) if partition else posixpath.join(base, prev)
        return pq.read_table(path, filesystem=storage.fs), table
    is_old = pc.equal(table.column(OP), OLD)
    return table.filter(is_old), table.filter(pc.invert(is_old))


def merge(old: pa.Table, new: pa.Table, task: WriteTask) -> cdc.Changes:
    """What the merge of one file group does with its current rows and the incoming ones."""
    if task.keep_duplicates:  # hoodie.merge.allow.duplicate.on.inserts: every current row kept, every new one added
        dropped = pc.equal(new.column(OP), DELETE).to_numpy(zero_copy_only=False) | np.array(_deleted_flags(new), bool)
        return cdc.Changes([], [], np.flatnonzero(~dropped).tolist())
    if pc.count_distinct(new.column("_hoodie_record_key")).as_py() == new.num_rows:
        try:
            return _merge_unique(old, new, task)
        except (pa.ArrowInvalid, pa.ArrowNotImplementedError):  # keys or ordering values Arrow cannot compare
            pass
    return _merge_rows(old, new, task)


def _merge_unique(old: pa.Table, new: pa.Table, task: WriteTask) -> cdc.Changes:
    """The merge, column at a time, when the incoming keys are distinct (upserts, deletes: always)."""
    old_keys = old.column("_hoodie_record_key").combine_chunks()
    at = pc.index_in(old_keys, value_set=new.column("_hoodie_record_key").combine_chunks().cast(old_keys.type))
    j = np.flatnonzero(at.is_valid().to_numpy(zero_copy_only=False))
    i = at.drop_null().to_numpy(zero_copy_only=False).astype(np.int64)
    hard = pc.equal(new.column(OP), DELETE).to_numpy(zero_copy_only=False)
    soft = np.array(_deleted_flags(new), dtype=bool)
    wins = _incoming_wins_all(old, j, new, i, task)
    gone = hard[i] | (soft[i] & wins)
    kept = wins & ~gone
    consumed = np.zeros(new.num_rows, dtype=bool)
    consumed[i] = True
    inserts = np.flatnonzero(~consumed & ~hard & ~soft)
    return cdc.Changes(list(zip(j[kept].tolist(), i[kept].tolist())), j[gone].tolist(), inserts.tolist())


def _incoming_wins_all(old: pa.Table, j: np.ndarray, new: pa.Table, i: np.ndarray, task: WriteTask) -> np.ndarray:
    """_incoming_wins for every matched pair (old row j[k], incoming row i[k])."""
    if not (task.event_time and task.ordering_field in new.column_names and len(j)):
        return np.ones(len(j), dtype=bool)  # no ordering (or a keys-only delete): the incoming record wins
    n = new.column(task.ordering_field).take(pa.array(i))
    o = old.column(task.ordering_field).take(pa.array(j)).cast(n.type)  # an older file may hold a narrower type
    return pc.fill_null(pc.or_kleene(pc.is_null(o), pc.greater_equal(n, o)), False).to_numpy(zero_copy_only=False)


def _merge_rows(old: pa.Table, new: pa.Table, task: WriteTask) -> cdc.Changes:
    """The merge, row by row: inserts may repeat a key (the last one meets the current row)."""
    new_index = {k: i for i, k in enumerate(new.column("_hoodie_record_key").to_pylist())}
    ops = new.column(OP).to_pylist()
    soft_deleted = _deleted_flags(new)
    updated, deleted, consumed = [], [], set()
    for j, key in enumerate(old.column("_hoodie_record_key").to_pylist()):
        i = new_index.get(key)
        if i is None:
            continue
        consumed.add(i)
        if ops[i] == DELETE or (_incoming_wins(old, j, new, i, task) and soft_deleted[i]):
            deleted.append(j)
        elif _incoming_wins(old, j, new, i, task):
            updated.append((j, i))
    inserts = [i for i in range(new.num_rows)
               if i not in consumed and ops[i] != DELETE and not soft_deleted[i]]
    return cdc.Changes(updated, deleted, inserts)


def _merged(old: pa.Table, new: pa.Table, changes: cdc.Changes) -> tuple[pa.Table, pa.Table]:
    """(old rows kept, incoming rows written)."""
    keep = np.ones(old.num_rows, dtype=bool)
    keep[changes.deleted] = False
    keep[[j for j, _ in changes.updated]] = False
    take = [i for _, i in changes.updated] + changes.inserted
    return old.filter(pa.array(keep)), new.take(pa.array(take, pa.int64()))


def _write_base(table: pa.Table, task: WriteTask) -> pa.Table:
    storage, base = _storage(task)
    fg = table.column(FG)[0].as_py()
    partition = table.column("_hoodie_partition_path")[0].as_py()
    prev = table.column(BASE)[0].as_py() if BASE in table.column_names else None
    if task.sort_by:
        table = table.sort_by([(c, "ascending") for c in task.sort_by])
    old, new = _old_and_new(table, task, storage, base, partition, prev)
    changes = merge(old, new, task)
    kept, written = _merged(old, new, changes)
    token = task_write_token()
    name = str(BaseFileName(fg, token, task.instant, "parquet"))
    rows = _with_meta(kept, written, task, partition, name)
    rel = posixpath.join(partition, name) if partition else name
    cdc_path, cdc_size = (_write_cdc(storage, base, task, partition, fg, token, old, new, changes)
                          if prev and task.cdc_mode else (None, None))
    marker(storage, base, task, partition, name, "MERGE" if prev else "CREATE")
    stats = base_file.write_base_file(posixpath.join(base, rel), rows, task.writer_schema,
                                      filesystem=storage.fs, compression=task.compression)
    return stats_table(WriteStat(
        partition=partition, file_id=fg, path=rel, prev_commit=_instant_of(prev) if prev else "null",
        num_writes=rows.num_rows, num_update_writes=len(changes.updated), num_deletes=len(changes.deleted),
        num_inserts=len(changes.inserted), file_size=stats.file_size, min_key=stats.min_record_key,
        max_key=stats.max_record_key, column_stats=metadata.column_stats_json(rows, stats.parquet_metadata),
        bloom=stats.bloom_filter.serialize() if stats.bloom_filter else None, cdc_path=cdc_path, cdc_size=cdc_size))


def _write_cdc(storage: Storage, base: str, task: WriteTask, partition: str, fg: str, token: str,
               old: pa.Table, new: pa.Table, changes: cdc.Changes) -> tuple[str, int]:
    """A rewritten file group's changes, in its CDC log file (pyhudi.write.cdc); (path, size)."""
    assert task.cdc_mode is not None  # called only for a task with CDC logging
    name = str(LogFileName(fg, task.instant, 1, token, cdc.SUFFIX))
    data = cdc.log_file_bytes(task.cdc_mode, task.instant, task.writer_schema, old, new, changes)
    rel = posixpath.join(partition, name) if partition else name
    marker(storage, base, task, partition, name, "APPEND")
    storage.write(posixpath.join(base, rel), data)
    return rel, len(data)


def _instant_of(base_name: str) -> str:
    from pyhudi.table.file_names import parse_base
    return parse_base(base_name).instant


def _strings(table: pa.Table, name: str) -> pa.Array:
    if name not in table.column_names:  # a group with new records only
        return pa.nulls(table.num_rows, pa.string())
    return table.column(name).combine_chunks().cast(pa.string())


def _with_meta(kept: pa.Table, written: pa.Table, task: WriteTask, partition: str, name: str) -> pa.Table:
    """Kept rows keep their commit time and sequence number; written rows get this instant's."""
    n_new = written.num_rows
    commit = pa.concat_arrays([_strings(kept, "_hoodie_commit_time"), base_file.constant(task.instant, n_new)])
    seqno = pa.concat_arrays([_strings(kept, "_hoodie_commit_seqno"), base_file.seqnos(task.instant, 0, 0, n_new)])
    both = pa.concat_tables([_like(kept, written, task), written.select(_schema_columns(written, task))],
                            promote_options="permissive")  # a column one side lacks: nulls there
    data_cols = [c for c in both.column_names if c != "_hoodie_record_key"]
    n = both.num_rows
    meta = {"_hoodie_commit_time": commit, "_hoodie_commit_seqno": seqno,
            "_hoodie_record_key": both.column("_hoodie_record_key"),
            "_hoodie_partition_path": base_file.constant(partition, n),
            "_hoodie_file_name": base_file.constant(name, n)}
    out = pa.table(meta)
    for c in data_cols:
        out = out.append_column(both.schema.field(c), both.column(c))
    return out


def _schema_columns(table: pa.Table, task: WriteTask) -> list[str]:
    """The record key and the writer schema's data columns `table` has, in schema order."""
    names = [f["name"] for f in avro_schema.parse(task.writer_schema)["fields"] if f["name"] not in META]
    return [c for c in ["_hoodie_record_key", *names] if c in table.column_names]


def _like(kept: pa.Table, written: pa.Table, task: WriteTask) -> pa.Table:
    """Kept rows (as their base file holds them) with the incoming rows' types where both have a column: an older
    file may hold a narrower type, another list item name, another time zone."""
    kept = kept.select(_schema_columns(kept, task))
    for c in set(kept.column_names) & set(written.column_names):
        want = written.schema.field(c).type
        if kept.schema.field(c).type != want:
            try:
                kept = kept.set_column(kept.column_names.index(c), c, kept.column(c).cast(want))
            except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
                pass  # left to the permissive concatenation
    return kept


# ---- log files ----------------------------------------------------------------------------

def _write_log(table: pa.Table, task: WriteTask) -> pa.Table:
    storage, base = _storage(task)
    fg = table.column(FG)[0].as_py()
    partition = table.column("_hoodie_partition_path")[0].as_py()
    positions = _base_positions(table, task, storage, base, partition)
    is_delete = pc.equal(table.column(OP), DELETE)
    upserts, deletes = table.filter(pc.invert(is_delete)), table.filter(is_delete)
    token = task_write_token()
    name = str(LogFileName(fg, task.instant, 1, token))
    attempt = token.rsplit("-", 1)[1]
    # a log compaction's blocks name the instants whose blocks they replace (Hudi's LogCompactionExecutionHelper)
    compacted = table.column(COMPACTED)[0].as_py() if COMPACTED in table.column_names else None
    header = {lf.HeaderKey.COMPACTED_BLOCK_TIMES: compacted} if compacted else {}
    # BLOCK_IDENTIFIER "<task attempt>,<block sequence>": readers drop blocks a retried task repeated
    blocks: list[lf.LogBlock] = []
    log_rows = None
    if upserts.num_rows:
        upserts, extra = _in_position_order(upserts, positions, pc.invert(is_delete), header)
        log_rows = _log_rows(upserts, task, partition, fg, preserve=compacted is not None)
        ident = f"{attempt},{len(blocks)}"
        if task.log_block_format == "parquet":
            blocks.append(lf.parquet_data_block(log_rows, task.writer_schema, task.instant,
                                                compression=task.compression, block_identifier=ident,
                                                extra_header=extra, key_summary=task.key_summaries))
        else:
            blocks.append(lf.avro_data_block(log_rows, task.writer_schema, task.instant, block_identifier=ident,
                                             extra_header=extra))
    if deletes.num_rows:
        deletes, extra = _in_position_order(deletes, positions, is_delete, header)
        blocks.append(lf.delete_block(_delete_records(deletes, task, partition, compacted is not None), task.instant,
                                      task.writer_schema, block_identifier=f"{attempt},{len(blocks)}",
                                      extra_header=extra))
    data = lf.encode_blocks(blocks)
    rel = posixpath.join(partition, name) if partition else name
    marker(storage, base, task, partition, name, "APPEND")
    storage.write(posixpath.join(base, rel), data)
    lo, hi = base_file.java_min_max(table.column("_hoodie_record_key"))
    summary = None
    if task.key_summaries and log_rows is not None:  # a Parquet block's footer filter is the same filter
        summary = blocks[0].key_filter or _log_bloom(log_rows)
    return stats_table(WriteStat(
        partition=partition, file_id=fg, path=rel, prev_commit=task.instant, num_writes=upserts.num_rows,
        num_update_writes=upserts.num_rows, num_deletes=deletes.num_rows, file_size=len(data), min_key=lo,
        max_key=hi, is_log=True, base_file=table.column(BASE)[0].as_py() or "",
        column_stats=metadata.column_stats_json(log_rows) if log_rows is not None else None,
        bloom=summary, bloom_type=bloom.DYNAMIC_V0 if summary else None,
        num_inserts=pc.sum(pc.equal(table.column(OP), INSERT)).as_py() or 0))


def _log_bloom(log_rows: pa.Table) -> str:
    """The Base64 bloom filter of the keys a log file's data block holds, sized to them (its deletes hold no
    key): the log file's entry in the metadata table's bloom_filters partition."""
    bf = bloom.create_bloom_filter(bloom.DYNAMIC_V0, max(log_rows.num_rows, 1))
    bf.add_all(log_rows.column("_hoodie_record_key").combine_chunks())
    return bf.serialize()


def _base_positions(table: pa.Table, task: WriteTask, storage: Storage, base: str, partition: str
                    ) -> tuple[str, np.ndarray] | None:
    """(the slice's base file instant, each row's row position in that file, -1 where the file lacks its key),
    when the write records positions (Hudi's simple index learns them from the keys it reads)."""
    prev = table.column(BASE)[0].as_py() if BASE in table.column_names else None
    if not (task.record_positions and prev) or COMPACTED in table.column_names:
        return None
    path = posixpath.join(base, partition, prev) if partition else posixpath.join(base, prev)
    keys = pq.read_table(path, columns=["_hoodie_record_key"], filesystem=storage.fs).column(0).combine_chunks()
    at = pc.index_in(table.column("_hoodie_record_key").combine_chunks().cast(keys.type), value_set=keys)
    return _instant_of(prev), pc.fill_null(at, -1).to_numpy(zero_copy_only=False).astype(np.int64)


def _in_position_order(rows: pa.Table, positions: tuple[str, np.ndarray] | None, mask: pa.Array,
                       header: dict) -> tuple[pa.Table, dict]:
    """A block's rows and header: in row-position order with RECORD_POSITIONS and the base file's instant when
    every row has its own position (Hudi's HoodieLogBlock.addRecordPositionsIfRequired), else as they are."""
    if positions is None:
        return rows, header
    instant, at = positions
    at = at[mask.to_numpy(zero_copy_only=False)]
    if len(at) == 0 or at.min() < 0 or len(np.unique(at)) != len(at):
        return rows, header
    order = np.argsort(at, kind="stable")
    return rows.take(pa.array(order)), {**header, lf.HeaderKey.RECORD_POSITIONS: lf.encode_positions(at[order]),
                                        lf.HeaderKey.BASE_FILE_INSTANT_TIME_OF_RECORD_POSITIONS: instant}


def _delete_records(deletes: pa.Table, task: WriteTask, partition: str, with_ordering: bool) -> list:
    """A write's deletes win by log order (Hudi's default ordering value 0); a log compaction keeps the ordering
    value each delete had."""
    keys = deletes.column("_hoodie_record_key").to_pylist()
    if not (with_ordering and task.ordering_field):
        return [lf.DeleteRecord(k, partition) for k in keys]
    fields = {f["name"]: f["type"] for f in avro_schema.parse(task.writer_schema)["fields"]}
    kind = ordering_type_for_avro(fields[task.ordering_field])
    values = deletes.column(task.ordering_field).to_pylist()
    return [lf.DeleteRecord(k, partition, 0 if v is None else v, None if v is None else kind)
            for k, v in zip(keys, values)]


def _log_rows(upserts: pa.Table, task: WriteTask, partition: str, fg: str, preserve: bool = False) -> pa.Table:
    """Log records carry the file id in _hoodie_file_name, as Hudi writes them; a log compaction's (`preserve`)
    keep the commit time and sequence number they were written with."""
    n = upserts.num_rows
    meta = {"_hoodie_commit_time": _strings(upserts, "_hoodie_commit_time") if preserve
            else base_file.constant(task.instant, n),
            "_hoodie_commit_seqno": _strings(upserts, "_hoodie_commit_seqno") if preserve
            else base_file.seqnos(task.instant, 0, 0, n),
            "_hoodie_record_key": upserts.column("_hoodie_record_key"),
            "_hoodie_partition_path": base_file.constant(partition, n),
            "_hoodie_file_name": base_file.constant(fg, n)}
    out = pa.table(meta)
    for c in _data_columns(upserts):
        out = out.append_column(upserts.schema.field(c), upserts.column(c))
    return out


def stats_table(stat: WriteStat) -> pa.Table:
    return pa.Table.from_pylist([{f.name: getattr(stat, f.name) for f in STATS_SCHEMA}], schema=STATS_SCHEMA)
