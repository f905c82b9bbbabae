"""Demo pipeline: what pyhudi and hudi-meta do today, end to end on local disk.

python -m pyhudi.demo [--table ZIP_OR_DIR]

1. builds the connector (if its sources changed) and starts Spark with it;
2. writes a new merge-on-read table with pyhudi (insert, upsert with an ordering field, delete)
   and reads it back through format("hudi-meta") and hudi-rs;
3. reads a real Apache Hudi merge-on-read table through format("hudi-meta"): snapshot,
   read-optimized, time travel to each commit, and an incremental query.
"""
from __future__ import annotations

import argparse
import tempfile
import zipfile
from pathlib import Path

from rich.console import Console
from rich.table import Table

from pyhudi.storage import Storage
from pyhudi.table import properties
from pyhudi.table.timeline import Timeline

DEFAULT_TABLE = (Path(__file__).resolve().parents[2] / "shared" / "fixtures" / "hudi-tables"
                 / "sample_table_mor_avro__v9_txns_simple_meta.zip")


def write_table(spark, console: Console, path: str) -> None:
    from pyhudi.write.hudi_table import HudiTable

    table = HudiTable(spark, path, {
        "hoodie.table.name": "rides", "hoodie.datasource.write.recordkey.field": "ride_id",
        "hoodie.datasource.write.precombine.field": "ts", "hoodie.datasource.write.partitionpath.field": "city",
        "hoodie.datasource.write.hive_style_partitioning": "true",
        "hoodie.datasource.write.table.type": "MERGE_ON_READ"})
    schema = "ride_id string, ts long, city string, fare double"
    table.insert(spark.createDataFrame([(f"r{i}", 1, ("paris", "lima", "oslo")[i % 3], 10.0 + i)
                                        for i in range(9)], schema))
    table.upsert(spark.createDataFrame([("r1", 2, "lima", 99.0), ("r2", 0, "oslo", -1.0)], schema))
    table.delete(spark.createDataFrame([("r3", 3, "paris", 0.0)], schema))
    console.rule(f"written with pyhudi, read with hudi-meta: {path}")
    table.read().select("_hoodie_commit_time", "ride_id", "city", "fare").orderBy("ride_id").show()
    from hudi import HudiTableBuilder  # the independent reader, when installed
    rows = sum(b.num_rows for b in HudiTableBuilder.from_base_uri(path).build().read())
    console.print(f"hudi-rs reads {rows} rows of the same table")


def table_root(path: str) -> str:
    if path.endswith(".zip"):
        target = tempfile.mkdtemp(prefix="pyhudi-demo-table-")
        zipfile.ZipFile(path).extractall(target)
        path = target
    found = [p.parent.parent for p in Path(path).rglob(".hoodie/hoodie.properties")
             if p.parent.parent.parent.name != ".hoodie"]
    if not found:
        raise SystemExit(f"no Hudi table under {path}")
    return str(found[0])


def show_timeline(console: Console, tl: Timeline, title: str) -> None:
    table = Table(title=title)
    for col in ("requested", "completed", "action"):
        table.add_column(col)
    for inst in tl.completed():
        table.add_row(inst.requested_time, inst.completion_time or "", inst.action)
    console.print(table)


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--table", default=str(DEFAULT_TABLE), help="a Hudi table directory or zip to read")
    args = ap.parse_args(argv)
    console = Console()
    with console.status("building the connector and starting Spark..."):
        from pyhudi import connector_jar, spark_session
        jar = connector_jar()
        spark = spark_session(**{"spark.ui.enabled": "false", "spark.sql.shuffle.partitions": "2"})
        spark.sparkContext.setLogLevel("ERROR")
    console.print(f"connector jar: {jar}")

    new_table = tempfile.mkdtemp(prefix="pyhudi-demo-") + "/rides"
    try:
        write_table(spark, console, new_table)
    except ImportError:
        console.print("(install the `hudi` package to compare with hudi-rs)")
    storage, base = Storage.for_uri(new_table)
    show_timeline(console, Timeline.for_table(storage, base, properties.load(storage, base)), "its timeline")

    path = table_root(args.table)
    storage, base = Storage.for_uri(path)
    existing = Timeline.for_table(storage, base, properties.load(storage, base))
    show_timeline(console, existing, f"timeline of {path}")
    reader = spark.read.format("hudi-meta")
    console.rule("snapshot")
    reader.load(path).drop("_hoodie_commit_seqno", "_hoodie_file_name").show(truncate=False)
    console.rule("read optimized")
    reader.option("hoodie.datasource.query.type", "read_optimized").load(path).select("txn_id", "amount").show()
    commits = existing.completed(("commit", "deltacommit", "replacecommit"))
    counts = Table(title="time travel")
    counts.add_column("as.of.instant")
    counts.add_column("rows")
    for inst in commits:
        n = spark.read.format("hudi-meta").option("as.of.instant", inst.requested_time).load(path).count()
        counts.add_row(inst.requested_time, str(n))
    console.print(counts)
    if len(commits) >= 3 and commits[0].completion_time:
        begin, end = commits[0].completion_time, commits[-1].completion_time
        console.rule(f"incremental ({begin}, {end}]")
        (spark.read.format("hudi-meta").option("hoodie.datasource.query.type", "incremental")
         .option("hoodie.datasource.read.begin.instanttime", begin)
         .option("hoodie.datasource.read.end.instanttime", end)
         .load(path).select("_hoodie_commit_time", "txn_id", "amount").show())
    spark.stop()


if __name__ == "__main__":
    main()
