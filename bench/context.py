"""What every case of a run shares: the scale, the workspace, the SparkSession (started on first
use), the pyiceberg catalog, and the prepared tables the read and upsert workloads start from."""
from __future__ import annotations

import time
from dataclasses import dataclass, field

from bench.scales import Scale
from bench.workspace import Workspace, copy_table, remove


@dataclass
class RunContext:
    scale: Scale
    ws: Workspace
    systems: dict[str, bool]              # name -> installed
    log: callable = print
    spark_settings: dict[str, str] = field(default_factory=dict)
    _spark: object = None
    _catalog: object = None

    @property
    def spark(self):
        if self._spark is None:
            from bench import spark

            self.log("starting Spark (pyhudi.spark_session) ...")
            self._spark = spark.session(self.spark_settings)
        return self._spark

    @property
    def catalog(self):
        if self._catalog is None:
            from bench.systems import iceberg

            self._catalog = iceberg.catalog(self.ws.root)
        return self._catalog

    def source(self, name: str) -> str:
        return self.ws.source(name)

    # ---- prepared tables ---------------------------------------------------------------------
    def table(self, name: str) -> str:
        """The prepared table `name` (a directory, or for pyiceberg a catalog table name), built
        first when this workdir does not hold it for the current data."""
        if not self.ws.ready(name, WRITERS.get(name)):
            t0 = time.perf_counter()
            self.log(f"preparing table {name} (untimed) ...")
            BUILDERS[name](self)
            self.ws.mark_ready(name, seconds=round(time.perf_counter() - t0, 2), writer=WRITERS.get(name))
        return ICEBERG_BASE if name == "iceberg" else self.ws.table(name)


ICEBERG_BASE = "base"


def _pyhudi_commit() -> str | None:
    from bench import env

    return env.pyhudi_commit()


class _Writers(dict):
    """Prepared Hudi tables are only reused when the same pyhudi commit wrote them."""
    def get(self, name, default=None):
        return _pyhudi_commit() if name.startswith("hudi_") else default


WRITERS = _Writers()


def _hudi(table_type: str):
    def build(ctx: RunContext) -> None:
        from bench.systems import hudi

        path = ctx.ws.table(f"hudi_{table_type.lower()}")
        remove(path)
        hudi.write(ctx.spark, path, ctx.source("base"), "bulk_insert", table_type)
    return build


def _hudi_mor_logs(ctx: RunContext) -> None:
    from bench.systems import hudi

    path = ctx.ws.table("hudi_mor_logs")
    remove(path)
    copy_table(ctx.table("hudi_mor"), path)
    hudi.write(ctx.spark, path, ctx.source("log_update"), "upsert", "MOR")


def _delta(ctx: RunContext) -> None:
    from bench.systems import delta

    path = ctx.ws.table("delta")
    remove(path)
    delta.load(path, ctx.source("base"))


def _iceberg(ctx: RunContext) -> None:
    from bench.systems import iceberg

    iceberg.drop(ctx.catalog, ICEBERG_BASE)
    iceberg.load(ctx.catalog, ICEBERG_BASE, ctx.source("base"))


def _parquet(ctx: RunContext) -> None:
    from bench.systems import parquet

    path = ctx.ws.table("parquet")
    remove(path)
    parquet.load(ctx.spark, path, ctx.source("base"))


BUILDERS = {
    "hudi_cow": _hudi("COW"),
    "hudi_mor": _hudi("MOR"),
    "hudi_mor_logs": _hudi_mor_logs,
    "delta": _delta,
    "iceberg": _iceberg,
    "parquet": _parquet,
}
