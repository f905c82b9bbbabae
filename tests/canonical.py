"""Canonical rows of a table, so that two readers can be compared value by value.

The form: Hudi's `_hoodie_*` columns left out, the other columns in name order, each value as the
`str()` of its Python value (None stays None), the rows sorted. Timestamps are UTC instants, so a
Spark reader compared with it runs with spark.sql.session.timeZone=UTC.

    python -m tests.canonical TABLE_DIR_OR_ZIP [--ro] [--as-of INSTANT]

prints that form of a table as hudi-rs reads it (the files of tests/fixtures/expected/).
"""
from __future__ import annotations

import argparse
import json
import tempfile
import zipfile
from pathlib import Path

import pyarrow as pa


def canon(table: pa.Table) -> dict:
    """{"columns": [...], "rows": [[str | None, ...], ...]} of a pyarrow table."""
    columns = sorted(name for name in table.column_names if not name.startswith("_hoodie_"))
    rows = [[None if row[c] is None else str(row[c]) for c in columns]
            for row in table.select(columns).to_pylist()]
    rows.sort(key=lambda row: [v or "" for v in row])
    return {"columns": columns, "rows": rows}


def table_base(path: str) -> str:
    """The base path of the one table in a folder, or in a zip (unpacked into a new temp folder)."""
    if path.endswith(".zip"):
        folder = tempfile.mkdtemp(prefix="hudi-table-")
        zipfile.ZipFile(path).extractall(folder)
        path = folder
    for props in sorted(Path(path).rglob(".hoodie/hoodie.properties")):
        base = props.parent.parent
        if base.parent.name != ".hoodie":  # not the metadata table inside .hoodie/metadata
            return str(base)
    raise SystemExit(f"no Hudi table under {path}")


def hudi_rs_rows(base: str, read_optimized: bool = False, as_of: str | None = None) -> dict:
    from hudi import HudiReadOptions, HudiTableBuilder

    table = HudiTableBuilder.from_base_uri(base).build()
    options = HudiReadOptions(hudi_options={"hoodie.read.use.read_optimized.mode": "true"}) \
        if read_optimized else HudiReadOptions()
    if as_of:
        options = options.with_as_of_timestamp(as_of)
    batches = table.read(options)
    found = canon(pa.Table.from_batches(batches)) if batches else {"columns": [], "rows": []}
    found["table_type"] = table.table_type
    return found


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("path", help="a table's folder or zip")
    ap.add_argument("--ro", action="store_true", help="the read-optimized query of a merge-on-read table")
    ap.add_argument("--as-of", help="time travel to this instant")
    args = ap.parse_args()
    print(json.dumps(hudi_rs_rows(table_base(args.path), args.ro, args.as_of), indent=1))


if __name__ == "__main__":
    main()
