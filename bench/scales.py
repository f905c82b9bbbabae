"""Benchmark scales: the data shape and how many times each measurement is repeated."""
from __future__ import annotations

from dataclasses import dataclass

from bench.datagen import DataShape

SEED = 20250101


@dataclass(frozen=True)
class Scale:
    name: str
    shape: DataShape
    warmup: int       # runs of a write case before the measured ones, discarded
    write_reps: int   # measured runs of a write workload (each on a fresh copy of its input table)
    read_warmup: int  # runs of a read case before the measured ones, discarded
    read_reps: int    # measured runs of a read workload
    session_warmup: int  # rounds of tiny writes and reads that warm the JVM (JIT) before any case
    description: str


def _shape(rows: int, partitions: int = 50) -> DataShape:
    return DataShape(rows=rows, partitions=partitions, upsert_fraction=0.01, upsert_update_share=0.8,
                     log_update_fraction=0.10, seed=SEED)


SCALES = {
    "tiny": Scale("tiny", _shape(2_000, partitions=5), warmup=0, write_reps=1, read_warmup=0, read_reps=1,
                  session_warmup=0, description="seconds; for the smoke test"),
    "small": Scale("small", _shape(50_000), warmup=1, write_reps=3, read_warmup=2, read_reps=7,
                   session_warmup=3, description="a few minutes on 2 cores"),
    "medium": Scale("medium", _shape(5_000_000), warmup=1, write_reps=3, read_warmup=1, read_reps=3,
                    session_warmup=3,
                    description="the issue's sizes: 5M rows, 1% upsert = 40k updates + 10k inserts; hours on 2 cores"),
}
