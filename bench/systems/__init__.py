"""One module per system under test: how each one loads, upserts and reads, set up as its own
documentation recommends. Peers are imported lazily, so the bench runs with whichever of them are
installed (`SYSTEMS` names the package each one needs)."""
from __future__ import annotations

import importlib.util
from dataclasses import dataclass


@dataclass(frozen=True)
class System:
    name: str
    ours: bool
    modules: tuple[str, ...]   # what must be importable
    package: str               # the distribution whose version the report names
    what: str

    def available(self) -> bool:
        return all(importlib.util.find_spec(m) is not None for m in self.modules)


SYSTEMS = {s.name: s for s in [
    System("pyhudi", True, ("pyhudi", "pyspark"), "pyhudi", "this project's writer (Spark + pyarrow executors)"),
    System("hudi-meta", True, ("pyhudi", "pyspark"), "pyhudi", "this project's Spark DataSource V2 reader"),
    System("hudi-rs", False, ("hudi",), "hudi", "Apache Hudi's Rust reader, Python binding"),
    System("delta-rs", False, ("deltalake",), "deltalake", "Delta Lake's Rust implementation, Python binding"),
    System("pyiceberg", False, ("pyiceberg", "sqlalchemy"), "pyiceberg", "Apache Iceberg's Python library, SQL catalog on sqlite"),
    System("spark-parquet", False, ("pyspark",), "pyspark", "Spark's built-in Parquet data source, no table format"),
]}


def available() -> dict[str, bool]:
    return {name: s.available() for name, s in SYSTEMS.items()}
