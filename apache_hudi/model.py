"""An independent model of a Hudi table's rows: what a snapshot must return after each write, worked out in
plain Python from the write operations' meaning, never from either reader."""
from __future__ import annotations

from dataclasses import dataclass, field

import pyarrow as pa

CITIES = ("sf", "la", "ny")
SCHEMA = pa.schema([("id", pa.int32()), ("name", pa.string()), ("ts", pa.int64()), ("city", pa.string()),
                    ("fare", pa.float64())])


def row(key: int, version: int) -> tuple:
    """The row of `key` as written by the `version`-th write (its ordering value, so a later one wins)."""
    return (key, f"n{key}v{version}", version, CITIES[key % len(CITIES)], key * 0.5 + version)


def table(rows: list[tuple]) -> pa.Table:
    return pa.Table.from_pylist([dict(zip(SCHEMA.names, r)) for r in rows], schema=SCHEMA)


@dataclass
class Model:
    rows: dict = field(default_factory=dict)  # key -> row
    partitioned: bool = True

    def apply(self, op: str, keys, version: int, partitions=()) -> None:
        written = {k: row(k, version) for k in keys}
        if op in ("upsert", "insert", "bulk_insert"):
            self.rows.update(written)
        elif op == "delete":
            for k in keys:
                self.rows.pop(k, None)
        elif op == "insert_overwrite":
            touched = {r[3] for r in written.values()} if self.partitioned else None
            self.rows = {k: r for k, r in self.rows.items() if touched is not None and r[3] not in touched}
            self.rows.update(written)
        elif op == "insert_overwrite_table":
            self.rows = written
        elif op == "delete_partition":
            self.rows = {k: r for k, r in self.rows.items() if r[3] not in partitions}
        else:
            raise ValueError(f"the model has no write operation {op!r}")

    def canon(self) -> dict:
        """The form of tests.canonical.canon: columns by name, each value's str(), rows sorted."""
        from tests.canonical import canon

        return canon(table(list(self.rows.values())))
