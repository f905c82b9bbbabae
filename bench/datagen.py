"""Deterministic benchmark data: the base table, the 1% upsert batch and the 10% update batch.

Everything comes from one seed, so two runs (or two machines) write the same bytes into the
staged source files. Rows are generated in `event_ts` order: `event_ts` is the clustered numeric
column (milliseconds, increasing with the row number) and `day` (the partition column, 50 values)
is derived from it, so every partition holds one contiguous `event_ts` range.
"""
from __future__ import annotations

import datetime as dt
import math
import os
from dataclasses import dataclass

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

GENERATOR_VERSION = 1
START = dt.datetime(2024, 1, 1, tzinfo=dt.timezone.utc)
START_MS = int(START.timestamp() * 1000)
DAY_MS = 86_400_000
DESCRIPTION_CHARS = 50
CATEGORIES = 20
UPDATED_AT_BUMP = 10 ** 12  # updates carry a larger ordering value than any original row

SCHEMA = pa.schema([
    pa.field("id", pa.string(), nullable=False),          # record key: a UUID string
    pa.field("day", pa.string(), nullable=False),         # partition column: 50 distinct days
    pa.field("event_ts", pa.int64(), nullable=False),     # clustered numeric column (range scans)
    pa.field("updated_at", pa.int64(), nullable=False),   # ordering (precombine) field
    pa.field("amount", pa.float64()),
    pa.field("quantity", pa.int32()),
    pa.field("category", pa.string()),
    pa.field("description", pa.string()),                  # 50 characters
    pa.field("active", pa.bool_()),
    pa.field("customer_id", pa.int64()),
])
KEY, PARTITION, CLUSTERED, ORDERING = "id", "day", "event_ts", "updated_at"


@dataclass(frozen=True)
class DataShape:
    rows: int
    partitions: int
    upsert_fraction: float      # size of the upsert batch, as a fraction of `rows`
    upsert_update_share: float  # share of the upsert batch that updates existing keys
    log_update_fraction: float  # fraction of rows updated into logs for the MOR snapshot scan
    seed: int

    @property
    def upsert_rows(self) -> int:
        return max(2, round(self.rows * self.upsert_fraction))

    @property
    def upsert_updates(self) -> int:
        return round(self.upsert_rows * self.upsert_update_share)

    @property
    def upsert_inserts(self) -> int:
        return self.upsert_rows - self.upsert_updates

    @property
    def log_updates(self) -> int:
        return max(1, round(self.rows * self.log_update_fraction))

    @property
    def step_ms(self) -> int:
        """`event_ts` distance between consecutive rows: the rows span `partitions` days."""
        return max(1, (self.partitions * DAY_MS) // self.rows)

    def fingerprint(self) -> str:
        return (f"v{GENERATOR_VERSION}-rows{self.rows}-parts{self.partitions}-seed{self.seed}"
                f"-ups{self.upsert_fraction}x{self.upsert_update_share}-log{self.log_update_fraction}")


# ---- column generators ---------------------------------------------------------------------------

_HEX = np.frombuffer(b"0123456789abcdef", dtype=np.uint8)
_UUID_DIGITS = [i for i in range(36) if i not in (8, 13, 18, 23)]
_CATEGORY_NAMES = pa.array([f"cat_{i:02d}" for i in range(CATEGORIES)])
_TEXT = np.frombuffer(b"abcdefghijklmnopqrstuvwxyz     ", dtype=np.uint8)


def uuids(rng: np.random.Generator, n: int) -> pa.Array:
    """`n` random version-4 UUID strings, formatted without a Python loop."""
    raw = rng.integers(0, 256, size=(n, 16), dtype=np.uint8)
    raw[:, 6] = (raw[:, 6] & 0x0F) | 0x40
    raw[:, 8] = (raw[:, 8] & 0x3F) | 0x80
    nibbles = np.empty((n, 32), dtype=np.uint8)
    nibbles[:, 0::2] = raw >> 4
    nibbles[:, 1::2] = raw & 0x0F
    out = np.full((n, 36), ord("-"), dtype=np.uint8)
    out[:, _UUID_DIGITS] = _HEX[nibbles]
    return _fixed_width_strings(out)


def texts(rng: np.random.Generator, n: int, width: int = DESCRIPTION_CHARS) -> pa.Array:
    chars = _TEXT[rng.integers(0, len(_TEXT), size=(n, width))]
    chars[:, 0] = ord("x")  # never a leading blank
    return _fixed_width_strings(chars)


def _fixed_width_strings(chars: np.ndarray) -> pa.Array:
    n, width = chars.shape
    offsets = np.arange(0, (n + 1) * width, width, dtype=np.int32 if n * width < 2 ** 31 else np.int64)
    typ = pa.string() if offsets.dtype == np.int32 else pa.large_string()
    arr = pa.Array.from_buffers(typ, n, [None, pa.py_buffer(offsets), pa.py_buffer(np.ascontiguousarray(chars))])
    return arr if typ == pa.string() else arr.cast(pa.string())


def days_of(event_ts: np.ndarray) -> pa.Array:
    """The `day` partition value (YYYY-MM-DD) of each `event_ts`."""
    index = (event_ts - START_MS) // DAY_MS
    names = pa.array([(START + dt.timedelta(days=d)).strftime("%Y-%m-%d") for d in range(int(index.max()) + 1)])
    return names.take(pa.array(index))


def _values(rng: np.random.Generator, n: int) -> dict[str, pa.Array]:
    """The non-key, non-time columns: drawn fresh for new rows and for updated rows alike."""
    return {
        "amount": pa.array(np.round(rng.gamma(2.0, 50.0, n), 2)),
        "quantity": pa.array(rng.integers(1, 100, n, dtype=np.int32)),
        "category": _CATEGORY_NAMES.take(pa.array(rng.integers(0, CATEGORIES, n))),
        "description": texts(rng, n),
        "active": pa.array(rng.random(n) < 0.8),
        "customer_id": pa.array(rng.integers(0, 1_000_000, n, dtype=np.int64)),
    }


def _table(ids: pa.Array, event_ts: np.ndarray, updated_at: np.ndarray, values: dict[str, pa.Array]) -> pa.Table:
    cols = {"id": ids, "day": days_of(event_ts), "event_ts": pa.array(event_ts, pa.int64()),
            "updated_at": pa.array(updated_at, pa.int64()), **values}
    return pa.Table.from_pydict(cols, schema=SCHEMA)


# ---- the three data sets -------------------------------------------------------------------------

def _rngs(shape: DataShape) -> list[np.random.Generator]:
    return [np.random.default_rng(s) for s in np.random.SeedSequence(shape.seed).spawn(4)]


def base_table(shape: DataShape) -> pa.Table:
    """The initial load: `rows` rows in `event_ts` order, `partitions` days."""
    rng = _rngs(shape)[0]
    event_ts = START_MS + np.arange(shape.rows, dtype=np.int64) * shape.step_ms
    return _table(uuids(rng, shape.rows), event_ts, event_ts.copy(), _values(rng, shape.rows))


def _updates_of(base: pa.Table, rng: np.random.Generator, n: int) -> pa.Table:
    """New values for `n` distinct random existing rows (same key, partition and event_ts)."""
    idx = np.sort(rng.choice(base.num_rows, size=n, replace=False))
    old = base.take(pa.array(idx))
    event_ts = old.column("event_ts").to_numpy()
    return _table(old.column("id").combine_chunks(), event_ts, event_ts + UPDATED_AT_BUMP, _values(rng, n))


def upsert_batch(shape: DataShape, base: pa.Table) -> pa.Table:
    """The 1% upsert: updates of random existing keys, then new keys spread over the time range."""
    rng = _rngs(shape)[1]
    updates = _updates_of(base, rng, shape.upsert_updates)
    n = shape.upsert_inserts
    event_ts = np.sort(START_MS + rng.integers(0, shape.rows, n) * shape.step_ms + rng.integers(0, shape.step_ms, n))
    inserts = _table(uuids(rng, n), event_ts, event_ts + UPDATED_AT_BUMP, _values(rng, n))
    return pa.concat_tables([updates, inserts])


def log_update_batch(shape: DataShape, base: pa.Table) -> pa.Table:
    """Updates only (no new keys) of `log_update_fraction` of the rows: on a merge-on-read table
    they all land in log files, over the unchanged base files."""
    return _updates_of(base, _rngs(shape)[2], shape.log_updates)


def lookup_keys(shape: DataShape, base: pa.Table, count: int) -> list[str]:
    rng = _rngs(shape)[3]
    idx = rng.choice(base.num_rows, size=count, replace=False)
    return base.column("id").take(pa.array(idx)).to_pylist()


def range_bounds(shape: DataShape, count: int, fraction: float = 0.01) -> list[tuple[int, int]]:
    """`count` [lo, hi] windows of `event_ts`, each holding `fraction` of the rows, spread over
    the table's time range (deterministic)."""
    width = max(1, round(shape.rows * fraction))
    out = []
    for i in range(count):
        first = ((2 * i + 1) * (shape.rows - width)) // (2 * count)
        lo = START_MS + first * shape.step_ms
        out.append((lo, lo + (width - 1) * shape.step_ms))
    return out


# ---- staging -------------------------------------------------------------------------------------

def write_staged(table: pa.Table, directory: str, rows_per_file: int = 500_000) -> list[str]:
    """Writes `table` as Parquet files (zstd, no index columns) under `directory`; the source every
    system loads from."""
    os.makedirs(directory, exist_ok=True)
    files = math.ceil(table.num_rows / rows_per_file) or 1
    paths = []
    for i in range(files):
        part = table.slice(i * rows_per_file, rows_per_file)
        path = os.path.join(directory, f"part-{i:05d}.parquet")
        pq.write_table(part, path, compression="zstd", row_group_size=128 * 1024)
        paths.append(path)
    return paths
