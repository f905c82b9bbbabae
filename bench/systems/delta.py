"""delta-rs (`deltalake`): write_deltalake for loads, DeltaTable.merge for upserts, and
DeltaTable.scan (its built-in DataFusion engine) for queries.

Settings: deltalake defaults (snappy Parquet, file statistics on the first 32 columns, no
deletion vectors), partition_by=["day"]; the merge predicate names the partition column as well
as the key, as the delta-rs docs advise for partition pruning of the target.
"""
from __future__ import annotations

import pyarrow as pa
import pyarrow.parquet as pq

from bench import datagen

SETTINGS = ("deltalake defaults (snappy Parquet, min/max statistics on the first 32 columns), "
            "partition_by=[day]; merge predicate `t.day = s.day AND t.id = s.id`, "
            "when_matched_update_all + when_not_matched_insert_all; reads with DeltaTable.scan(predicate=...)")
MERGE_PREDICATE = f"t.{datagen.PARTITION} = s.{datagen.PARTITION} AND t.{datagen.KEY} = s.{datagen.KEY}"


def load(path: str, source_dir: str) -> None:
    from deltalake import write_deltalake

    write_deltalake(path, pq.read_table(source_dir), partition_by=[datagen.PARTITION], mode="error")


def merge(path: str, source_dir: str) -> dict:
    from deltalake import DeltaTable

    source = pq.read_table(source_dir)
    metrics = (DeltaTable(path).merge(source, predicate=MERGE_PREDICATE, source_alias="s", target_alias="t")
               .when_matched_update_all().when_not_matched_insert_all().execute())
    return {"updated": metrics.get("num_target_rows_updated"), "inserted": metrics.get("num_target_rows_inserted"),
            "files_rewritten": metrics.get("num_target_files_removed")}


def sql_predicate(predicate: list[tuple[str, str, object]]) -> str:
    def lit(v):
        return f"'{v}'" if isinstance(v, str) else str(v)
    return " AND ".join(f"{c} {op} {lit(v)}" for c, op, v in predicate)


def query(path: str, predicate: list[tuple[str, str, object]]) -> tuple[pa.Table, int]:
    """(rows, files opened): the engine reads exactly the files left after pruning on partition
    values and min/max statistics, which `file_uris` lists for the same predicate."""
    from deltalake import DeltaTable

    dt = DeltaTable(path)
    where = sql_predicate(predicate)
    rows = pa.RecordBatchReader.from_stream(dt.scan(predicate=where)).read_all()
    return rows, len(dt.file_uris(file_pruning_predicate=where))


def row_count(path: str) -> int:
    from deltalake import DeltaTable

    return pa.RecordBatchReader.from_stream(DeltaTable(path).scan(columns=[datagen.KEY])).read_all().num_rows
