"""Demo: what a Hudi table does, on a table the demo writes and then removes.

python -m pyhudi.demo [--table PATH_OR_ZIP]

Without --table: writes a merge-on-read table of rides with pyhudi and shows, one step at a time and
each with why it matters, upsert ordering, deletes, pruning from the metadata table, time travel,
incremental and change-data-capture reads, and compaction. With --table: shows any Hudi table (its
timeline, schema, rows, time travel and an incremental read), changing nothing.
"""
from __future__ import annotations

import argparse
import re
import shutil
import tempfile
from pathlib import Path

from rich.console import Console
from rich.table import Table

from pyhudi.storage import Storage
from pyhudi.table import properties
from pyhudi.table.timeline import Timeline

SCHEMA = "ride_id string, ts long, city string, fare double"
OPTIONS = {
    "hoodie.table.name": "rides", "hoodie.datasource.write.recordkey.field": "ride_id",
    "hoodie.datasource.write.precombine.field": "ts", "hoodie.datasource.write.partitionpath.field": "city",
    "hoodie.datasource.write.hive_style_partitioning": "true",
    "hoodie.datasource.write.table.type": "MERGE_ON_READ", "hoodie.table.cdc.enabled": "true",
    "hoodie.metadata.index.column.stats.enable": "true"}
SCAN_FILES = re.compile(r"files (\d+) -> column_stats (\d+)")


class Demo:
    def __init__(self, spark, console: Console):
        self.spark, self.console = spark, console

    def step(self, title: str, why: str) -> None:
        self.console.rule(title)
        self.console.print(f"[dim]{why}[/dim]")

    def show(self, df, limit: int = 20) -> None:
        rows = df.limit(limit).collect()
        table = Table(*df.columns)
        for row in rows:
            table.add_row(*("" if v is None else str(v) for v in row))
        self.console.print(table)

    def timeline(self, path: str) -> Timeline:
        storage, base = Storage.for_uri(path)
        tl = Timeline.for_table(storage, base, properties.load(storage, base))
        table = Table("requested", "completed", "action", title=f"timeline of {path}")
        for inst in tl.completed():
            table.add_row(inst.requested_time, inst.completion_time or "", inst.action)
        self.console.print(table)
        return tl

    def read(self, path: str, **options):
        return self.spark.read.format("hudi-meta").options(**options).load(path)


def own_table(demo: Demo, path: str) -> None:
    from pyhudi.hudi_table import HudiTable

    spark, rides = demo.spark, HudiTable(demo.spark, path, OPTIONS)
    cities = ("paris", "lima", "oslo")
    demo.step("insert", "9 rides in 3 city partitions: one deltacommit on the timeline, one file group per city.")
    first = rides.insert(spark.createDataFrame(
        [(f"r{i}", 1, cities[i % 3], 10.0 + i) for i in range(9)], SCHEMA))
    demo.step("upsert", "r1 arrives with a newer ts and wins; r2 with an older ts loses "
              "(hoodie.datasource.write.precombine.field orders versions of a key).")
    rides.upsert(spark.createDataFrame([("r1", 2, "lima", 99.0), ("r2", 0, "oslo", -1.0)], SCHEMA))
    demo.show(demo.read(path).where("ride_id in ('r1', 'r2')").select("ride_id", "ts", "fare").orderBy("ride_id"))
    demo.step("delete", "a delete is one more commit: r3 is gone from every query from here on.")
    rides.delete(spark.createDataFrame([("r3", 3, "paris", 0.0)], SCHEMA))
    demo.show(demo.read(path).select("_hoodie_commit_time", "ride_id", "city", "fare").orderBy("ride_id"))
    pruning(demo, path)
    demo.step("time travel", f"as.of.instant={first}: the table as the first commit left it (r1's old fare, r3 back).")
    demo.show(demo.read(path, **{"as.of.instant": first}).select("ride_id", "fare").orderBy("ride_id"))
    completed = demo.timeline(path).completed()
    begin = completed[0].completion_time
    demo.step("incremental", f"only what changed after {begin}: what a downstream job reads instead of the table.")
    demo.show(demo.read(path, **{"hoodie.datasource.query.type": "incremental",
                                 "hoodie.datasource.read.begin.instanttime": begin})
              .select("_hoodie_commit_time", "ride_id", "fare"))
    demo.step("change data capture", "hoodie.table.cdc.enabled logs each change with its before and after images.")
    demo.show(demo.read(path, **{"hoodie.datasource.query.type": "incremental",
                                 "hoodie.datasource.query.incremental.format": "cdc",
                                 "hoodie.datasource.read.begin.instanttime": begin}))
    demo.step("compaction", "updates of a merge-on-read table land in log files; compaction merges them into new "
              "base files, so read_optimized queries (base files only) see them too.")
    before = demo.read(path, **{"hoodie.datasource.query.type": "read_optimized"}).where("ride_id = 'r1'")
    demo.console.print(f"read_optimized fare of r1 before: {before.first()['fare']}")
    demo.console.print(f"compacted: {rides.compact()}")
    after = demo.read(path, **{"hoodie.datasource.query.type": "read_optimized"}).where("ride_id = 'r1'")
    demo.console.print(f"read_optimized fare of r1 after: {after.first()['fare']}")
    try:
        from hudi import HudiTableBuilder  # an independent reader, when installed
        rows = sum(b.num_rows for b in HudiTableBuilder.from_base_uri(path).build().read())
        demo.console.print(f"hudi-rs, another implementation, reads the same {rows} rows")
    except ImportError:
        demo.console.print("(pip install hudi to read the same table with hudi-rs)")


def pruning(demo: Demo, path: str) -> None:
    demo.step("pruning", "column_stats in the metadata table hold each file's min/max: a filter reads only the "
              "files that can match, with no listing and no footer read.")
    query = demo.read(path).where("ts >= 2")
    plan = query._jdf.queryExecution().executedPlan().toString()
    found = SCAN_FILES.search(plan)
    if found:
        demo.console.print(f"ts >= 2: {found.group(1)} files before column_stats, {found.group(2)} read")
    demo.show(query.select("ride_id", "ts", "fare"))


def any_table(demo: Demo, path: str) -> None:
    tl = demo.timeline(path)
    df = demo.read(path)
    demo.step("schema", "Hudi's _hoodie_* columns first: commit time, sequence number, key, partition, file.")
    demo.console.print(df.schema.simpleString())
    demo.step("snapshot", f"{df.count()} rows: the latest committed version of every key.")
    demo.show(df.drop("_hoodie_commit_seqno", "_hoodie_file_name"), limit=10)
    commits = tl.completed(("commit", "deltacommit", "replacecommit"))
    demo.step("time travel", "the row count as each commit left the table (as.of.instant).")
    counts = Table("as.of.instant", "rows")
    for inst in commits:
        counts.add_row(inst.requested_time, str(demo.read(path, **{"as.of.instant": inst.requested_time}).count()))
    demo.console.print(counts)
    if len(commits) >= 2 and commits[0].completion_time:
        begin = commits[0].completion_time
        demo.step("incremental", f"rows written after {begin}, the first commit's completion.")
        demo.show(demo.read(path, **{"hoodie.datasource.query.type": "incremental",
                                     "hoodie.datasource.read.begin.instanttime": begin}), limit=10)


def table_base(path: str, scratch: str) -> str:
    """The base path of the table in a local folder or zip (unpacked into scratch); a URI as it is."""
    if path.endswith(".zip"):
        shutil.unpack_archive(path, scratch)
        path = scratch
    if "://" in path or (Path(path) / ".hoodie").is_dir():
        return path
    for props in sorted(Path(path).rglob(".hoodie/hoodie.properties")):
        if props.parent.parent.parent.name != ".hoodie":  # not a metadata table
            return str(props.parent.parent)
    raise SystemExit(f"no Hudi table under {path}: give the folder that holds .hoodie/")


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--table", help="show this Hudi table (a folder, a URI or a zip) instead of writing one")
    args = ap.parse_args(argv)
    console = Console()
    with console.status("starting Spark with the hudi-meta connector..."):
        from pyhudi import spark_session
        spark = spark_session(**{"spark.ui.enabled": "false", "spark.sql.shuffle.partitions": "2",
                                 "spark.ui.showConsoleProgress": "false"})
        spark.sparkContext.setLogLevel("ERROR")
    scratch = tempfile.mkdtemp(prefix="pyhudi-demo-")
    try:
        demo = Demo(spark, console)
        if args.table:
            any_table(demo, table_base(args.table, scratch))
        else:
            own_table(demo, f"{scratch}/rides")
    finally:
        spark.stop()
        shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    main()
