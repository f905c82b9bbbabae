"""Apache Hudi's own reading of a table's metadata table, set against the truth of the data files.

The `hudi-utilities-slim-bundle` that holds Apache Hudi's `HoodieMetadataTableValidator` is not served by the
registry this project's machines use (only `hudi-spark3.5-bundle_2.12` is), so its checks are made here of what
the Spark bundle has: Hudi's `HoodieBackedTableMetadata` reads each metadata partition (the file listing, set against
storage as Hudi's FileSystemBackedTableMetadata lists it; column stats; bloom filters; record-index locations),
and each answer is compared with the Parquet footers, the files' own keys and Hudi's own snapshot of the table.
"""
from __future__ import annotations

import math
from pathlib import Path

import pyarrow.parquet as pq

from apache_hudi.process import ApacheHudi

META = ["_hoodie_record_key", "_hoodie_partition_path", "_hoodie_file_name"]


def validate(hudi: ApacheHudi, base: str, absent_keys=()) -> list[str]:
    """Every difference found, one line each; empty when the metadata table agrees with the data.
    `absent_keys`: keys known deleted, which the record index must not hold."""
    partitions = _metadata_partitions(base)
    indexed = hudi.metadata_files(base, enabled=True)
    problems = _files(indexed, hudi.metadata_files(base, enabled=False))
    parquet = [(p, name) for p, files in indexed.items() for name in files if name.endswith(".parquet")]
    if "column_stats" in partitions and parquet:
        problems += _column_stats(hudi, base, parquet)
    if "bloom_filters" in partitions and parquet:
        problems += _bloom_filters(hudi, base, parquet)
    if "record_index" in partitions:
        problems += _record_index(hudi, base, absent_keys)
    return problems


def _files(indexed: dict, stored: dict) -> list[str]:
    """HoodieMetadataTableValidator's file-listing check: every partition and file with its size, from the
    metadata table and from storage. Not the validate_metadata_table_files procedure: its `table =>` needs
    Hudi's catalog, whose CREATE TABLE rewrites hoodie.properties, and its storage side is a
    HoodieBackedTableMetadata with the metadata table disabled, which in 1.0.2 and 1.2.0 still reads it."""
    problems = [f"files: partition {p!r} only in {'the metadata table' if p in indexed else 'storage'}"
                for p in sorted(set(indexed) ^ set(stored))]
    for partition in sorted(set(indexed) & set(stored)):
        mine, theirs = indexed[partition], stored[partition]
        for name in sorted(set(mine) | set(theirs)):
            if mine.get(name) != theirs.get(name):
                problems.append(f"files: {partition}/{name}: {mine.get(name)} bytes in the metadata table, "
                                f"{theirs.get(name)} in storage")
    return problems


def _column_stats(hudi: ApacheHudi, base: str, parquet: list) -> list[str]:
    footers = {name: _footer_stats(_file(base, p, name)) for p, name in parquet}
    columns = sorted({c for stats in footers.values() for c in stats if "." not in c})
    found = hudi.column_stats(base, parquet, columns)
    indexed_columns = {c for stats in found.values() for c in stats}
    problems = []
    for name, truth in sorted(footers.items()):
        got = found.get(name, {})
        for column in sorted(indexed_columns):
            if column not in truth:
                continue
            if column not in got:
                problems.append(f"column_stats: {name} {column}: not in the metadata table")
            elif not _same_stats(got[column], truth[column]):
                problems.append(f"column_stats: {name} {column}: Hudi reads [min, max, nulls, values] {got[column]}, "
                                f"the footer says {list(truth[column])}")
    return problems


def _bloom_filters(hudi: ApacheHudi, base: str, parquet: list) -> list[str]:
    files = [(p, name, pq.read_table(_file(base, p, name), columns=["_hoodie_record_key"])
              .column(0).to_pylist()) for p, name in parquet]
    answer = hudi.bloom_filters(base, files)
    problems = [f"bloom_filters: {name}: no filter in the metadata table" for name in answer["absent"]]
    problems += [f"bloom_filters: {name}: the filter rules out {len(keys)} of its keys, first {keys[:3]}"
                 for name, keys in sorted(answer["missing"].items())]
    return problems


def _record_index(hudi: ApacheHudi, base: str, absent_keys) -> list[str]:
    rows = hudi.read(base).select(META).to_pylist()
    where = {r["_hoodie_record_key"]: [r["_hoodie_partition_path"], r["_hoodie_file_name"].split("_")[0]]
             for r in rows}
    absent = [str(k) for k in absent_keys if str(k) not in where]
    found = hudi.record_index(base, sorted(where) + absent)
    problems = [f"record_index: {k}: the index says {found.get(k)}, the table has it in {v}"
                for k, v in sorted(where.items()) if found.get(k) != v]
    problems += [f"record_index: {k}: deleted, still indexed at {found[k]}" for k in absent if k in found]
    return problems[:20] + ([f"record_index: {len(problems) - 20} more"] if len(problems) > 20 else [])


def _file(base: str, partition: str, name: str) -> Path:
    return Path(base) / partition / name if partition else Path(base) / name


def _footer_stats(path: Path) -> dict:
    """{column: (min, max, nulls, values)} over the row groups of a Parquet file."""
    meta = pq.ParquetFile(path).metadata
    stats: dict = {}
    for g in range(meta.num_row_groups):
        group = meta.row_group(g)
        for c in range(group.num_columns):
            col = group.column(c)
            s = col.statistics
            if s is None or not s.has_min_max:
                continue
            mn, mx, nulls, values = stats.get(col.path_in_schema, (s.min, s.max, 0, 0))
            stats[col.path_in_schema] = (min(mn, s.min), max(mx, s.max), nulls + (s.null_count or 0),
                                         values + col.num_values)
    return stats


def _same_stats(got: list, truth: tuple) -> bool:
    return (_same(got[0], truth[0]) and _same(got[1], truth[1]) and got[2] == truth[2]
            and got[3] == truth[3])


def _same(shown, value) -> bool:
    if isinstance(value, (bytes, bytearray)) or hasattr(value, "as_tuple"):
        return True  # binary and decimal minima cross py4j as Java object names: not compared
    if isinstance(value, float):
        return shown is not None and (float(shown) == value or math.isclose(float(shown), value))
    if hasattr(value, "toordinal") or hasattr(value, "timestamp"):
        return True  # dates and timestamps come back as Hudi's ints and longs: not compared here
    return shown == value


def table_properties(base: str) -> dict:
    """The table's hoodie.properties, read by pyhudi's own loader (escapes, the backup file)."""
    from pyhudi.storage import Storage
    from pyhudi.table import properties

    return properties.load(*Storage.for_uri(str(base)))


def _metadata_partitions(base: str) -> set[str]:
    value = table_properties(base).get("hoodie.table.metadata.partitions", "")
    return {p for p in value.split(",") if p}
