"""pyiceberg: a SQL catalog on sqlite (the setup pyiceberg's docs give for local use), tables
partitioned by identity(day); Table.append for loads, Table.upsert for upserts, Table.scan for
queries.

Settings: pyiceberg defaults (format version 2, zstd Parquet, 512 MB target file size, column
metrics for every column); upsert joins on `id` (join_cols=["id"]), updating matched rows and
inserting the rest.
"""
from __future__ import annotations

import os
import shutil

import pyarrow as pa
import pyarrow.parquet as pq

from bench import datagen

NAMESPACE = "bench"
SETTINGS = ("pyiceberg defaults (format v2, zstd Parquet, full column metrics), SqlCatalog on sqlite, "
            "partition spec identity(day); append for loads, upsert(join_cols=[id]), scan(row_filter=...)")


def catalog(workdir: str):
    from pyiceberg.catalog.sql import SqlCatalog

    root = os.path.join(workdir, "iceberg")
    os.makedirs(os.path.join(root, "warehouse"), exist_ok=True)
    cat = SqlCatalog("bench", uri=f"sqlite:///{os.path.join(root, 'catalog.db')}",
                     warehouse=f"file://{os.path.join(root, 'warehouse')}")
    cat.create_namespace_if_not_exists(NAMESPACE)
    return cat


def ident(name: str) -> tuple[str, str]:
    return (NAMESPACE, name)


def create(cat, name: str, schema: pa.Schema):
    table = cat.create_table(ident(name), schema=schema)
    with table.update_spec() as spec:
        spec.add_identity(datagen.PARTITION)
    return table


def load(cat, name: str, source_dir: str) -> None:
    data = pq.read_table(source_dir)
    create(cat, name, data.schema).append(data)


def _listed(cat, name: str) -> bool:
    """In the catalog (without loading the table, whose files may be gone)."""
    return ident(name) in [tuple(t) for t in cat.list_tables(NAMESPACE)]


def drop(cat, name: str) -> None:
    """Drops the table from the catalog and removes its files."""
    if not _listed(cat, name):
        return
    try:
        location = cat.load_table(ident(name)).location()
    except FileNotFoundError:  # a stale entry whose files are gone
        location = None
    cat.drop_table(ident(name))
    if location:
        shutil.rmtree(location.removeprefix("file://"), ignore_errors=True)


def register_copy(cat, name: str, of: str) -> None:
    """A second catalog entry at `of`'s current metadata: writes to it leave `of` unchanged (they
    add new metadata and data files; `of`'s metadata file still names its own snapshot)."""
    if _listed(cat, name):
        cat.drop_table(ident(name))
    cat.register_table(ident(name), cat.load_table(ident(of)).metadata_location)


def unregister(cat, name: str) -> None:
    if _listed(cat, name):
        cat.drop_table(ident(name))


def upsert(cat, name: str, source_dir: str) -> dict:
    result = cat.load_table(ident(name)).upsert(pq.read_table(source_dir), join_cols=[datagen.KEY])
    return {"updated": result.rows_updated, "inserted": result.rows_inserted}


def row_filter(predicate: list[tuple[str, str, object]]):
    from pyiceberg.expressions import And, EqualTo, GreaterThanOrEqual, LessThanOrEqual

    ops = {"=": EqualTo, ">=": GreaterThanOrEqual, "<=": LessThanOrEqual}
    exprs = [ops[op](c, v) for c, op, v in predicate]
    out = exprs[0]
    for e in exprs[1:]:
        out = And(out, e)
    return out


def query(cat, name: str, predicate: list[tuple[str, str, object]]) -> tuple[pa.Table, int]:
    """(rows, files opened): the data files (plus delete files) the scan plan keeps after
    partition and column-metric pruning."""
    scan = cat.load_table(ident(name)).scan(row_filter=row_filter(predicate))
    tasks = list(scan.plan_files())
    rows = scan.to_arrow()
    return rows, sum(1 + len(t.delete_files) for t in tasks)


def row_count(cat, name: str) -> int:
    return cat.load_table(ident(name)).scan(selected_fields=(datagen.KEY,)).to_arrow().num_rows
