"""Demo pipeline: what pyhudi and hudi-meta do today, end to end on local disk.

python -m pyhudi.demo [--dir DIR]
"""
from __future__ import annotations

import argparse
import tempfile

from rich.console import Console
from rich.table import Table

from pyhudi import properties
from pyhudi.storage import Storage
from pyhudi.timeline import Timeline


def create_empty_table(path: str) -> Timeline:
    storage, base = Storage.for_uri(path)
    schema = '{"type":"record","name":"demo_record","fields":[{"name":"id","type":"string"}]}'
    props = properties.v8_defaults("demo", "COPY_ON_WRITE", ["id"], [], None, schema, "NON_PARTITION",
                                   False, False)
    properties.save(storage, base, props)
    return Timeline.for_table(storage, base, props)


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dir", default=None, help="where to create the demo table (default: a temp dir)")
    args = ap.parse_args(argv)
    console = Console()
    path = args.dir or tempfile.mkdtemp(prefix="pyhudi-demo-")
    with console.status("building the connector and starting Spark..."):
        from pyhudi import connector_jar, spark_session
        jar = connector_jar()
        spark = spark_session(**{"spark.ui.enabled": "false"})
    console.print(f"connector jar: {jar}")
    tl = create_empty_table(path)
    inflight = tl.transition_to_inflight(tl.create_requested("commit"))
    tl.complete(inflight, b"")
    table = Table(title=f"timeline of {path}")
    for col in ("requested", "completed", "action"):
        table.add_column(col)
    for inst in tl.instants():
        table.add_row(inst.requested_time, inst.completion_time or "", inst.action)
    console.print(table)
    spark.stop()


if __name__ == "__main__":
    main()
