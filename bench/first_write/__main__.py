"""A new user's first write (issue 47): in a fresh process, the seconds to start a session, then the first
3-row write into a new table, then a second write, at the defaults a user gets - through the DataFrame API and
through SQL (CREATE TABLE, then the first INSERT), next to Apache Hudi 1.2.0's own Spark bundle doing the same
write in a fresh session of its own (the harness's worker: pyspark 3.5.5; its rows come from a Parquet file the
harness writes, so its write reads one small file first), and Spark alone running the same SQL on a Parquet table
(what any first statement of a Spark 4.3 session pays). Each figure: the median of RUNS fresh processes, with the
lowest and highest.

    python -m bench.first_write             # writes bench/results/first_write/report.md (about 3 minutes)
"""
from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

RUNS = 5
OUT = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "results", "first_write")
OPTIONS = {"hoodie.table.name": "first", "hoodie.datasource.write.recordkey.field": "id",
           "hoodie.datasource.write.precombine.field": "ts", "hoodie.datasource.write.partitionpath.field": "city"}
ROWS = [(1, "a", 1, "sf"), (2, "b", 1, "la"), (3, "c", 1, "sf")]
DDL = "id int, name string, ts long, city string"

DATAFRAME = """
import json, sys, time
started = time.perf_counter()
from pyhudi import spark_session
spark = spark_session()
up = time.perf_counter()
rows, options, path = json.loads(sys.argv[1]), json.loads(sys.argv[2]), sys.argv[3]
times = {"session": up - started}
for name in ("first write", "second write"):
    df = spark.createDataFrame([tuple(r) for r in rows], sys.argv[4])
    start = time.perf_counter()
    df.write.format("hudi-meta").options(**options).mode("append").save(path)
    times[name] = time.perf_counter() - start
assert spark.read.format("hudi-meta").load(path).count() == len(rows)
print("RESULT " + json.dumps(times))
"""

SQL = """
import json, sys, time
started = time.perf_counter()
if sys.argv[5] == "hudi-meta":
    from pyhudi import spark_session
    spark, using = spark_session(), "`hudi-meta` PARTITIONED BY (city)"
    props = " TBLPROPERTIES (primaryKey = 'id', preCombineField = 'ts')"
else:  # Spark alone, a Parquet table
    from pyspark.sql import SparkSession
    spark = SparkSession.builder.master("local[*]").config("spark.sql.session.timeZone", "UTC").getOrCreate()
    using, props = "parquet PARTITIONED BY (city)", ""
times = {"session": time.perf_counter() - started}
path = sys.argv[3]
for name, statement in (
        ("CREATE TABLE", f"CREATE TABLE first (id INT, name STRING, ts BIGINT, city STRING) USING {using} "
                         f"LOCATION '{path}'{props}"),
        ("first INSERT", "INSERT INTO first VALUES (1, 'a', 1, 'sf'), (2, 'b', 1, 'la'), (3, 'c', 1, 'sf')"),
        ("second INSERT", "INSERT INTO first VALUES (4, 'd', 1, 'sf')")):
    start = time.perf_counter()
    spark.sql(statement)
    times[name] = time.perf_counter() - start
assert spark.table("first").count() == 4
print("RESULT " + json.dumps(times))
"""

HUDI = """
import json, sys, time
import pyarrow as pa
from apache_hudi.process import ApacheHudi
started = time.perf_counter()
hudi = ApacheHudi("1.2.0").start()
times = {"session": time.perf_counter() - started}
rows, options, path = json.loads(sys.argv[1]), json.loads(sys.argv[2]), sys.argv[3]
table = pa.table({"id": pa.array([r[0] for r in rows], pa.int32()), "name": [r[1] for r in rows],
                  "ts": pa.array([r[2] for r in rows], pa.int64()), "city": [r[3] for r in rows]})
for name in ("first write", "second write"):
    start = time.perf_counter()
    hudi.write(path, table, **options)
    times[name] = time.perf_counter() - start
assert hudi.read(path).num_rows == len(rows)
hudi.stop()
print("RESULT " + json.dumps(times))
"""


def _run(script: str, path: str, source: str) -> dict:
    project = os.path.dirname(OUT).rsplit(os.sep, 2)[0]
    done = subprocess.run([sys.executable, "-c", script, json.dumps(ROWS), json.dumps(OPTIONS), path, DDL, source],
                          capture_output=True, text=True, timeout=900, cwd=project,
                          env={**os.environ, "PYTHONPATH": project})
    line = next((x for x in done.stdout.splitlines() if x.startswith("RESULT ")), None)
    if line is None:
        raise RuntimeError(f"the run failed:\n{done.stdout[-2000:]}\n{done.stderr[-4000:]}")
    return json.loads(line[len("RESULT "):])


def main() -> None:
    systems = {"pyhudi + hudi-meta, DataFrame API": (DATAFRAME, ""), "pyhudi + hudi-meta, SQL": (SQL, "hudi-meta"),
               "Spark 4.3 alone, SQL on a Parquet table (the floor)": (SQL, "parquet"),
               "Apache Hudi 1.2.0 (its Spark bundle), DataFrame API": (HUDI, "")}
    figures: dict[str, dict[str, list[float]]] = {}
    with tempfile.TemporaryDirectory(prefix="pyhudi-first-write-") as work:
        for run in range(RUNS):  # interleaved: each system sees the machine as the others do
            for number, (system, (script, source)) in enumerate(systems.items()):
                times = _run(script, os.path.join(work, f"run{run}-system{number}"), source)
                for step, seconds in times.items():
                    figures.setdefault(system, {}).setdefault(step, []).append(seconds)
                print(f"run {run + 1}/{RUNS} {system}: " + ", ".join(f"{k} {v:.2f} s" for k, v in times.items()),
                      flush=True)
    os.makedirs(OUT, exist_ok=True)
    with open(os.path.join(OUT, "report.md"), "w") as f:
        f.write(_report(figures))
    print(open(os.path.join(OUT, "report.md")).read())


def _report(figures: dict[str, dict[str, list[float]]]) -> str:
    lines = ["# A first write, in a fresh process", "",
             f"`python -m bench.first_write`, {time.strftime('%Y-%m-%d')}, {os.cpu_count()} cores; median of "
             f"{RUNS} fresh processes (lowest - highest), seconds, defaults throughout (`spark_session()`, "
             "a new copy-on-write table partitioned by `city`, 3 rows).", "",
             "| system | step | median | lowest - highest |", "| --- | --- | --- | --- |"]
    for system, steps in figures.items():
        for step, values in steps.items():
            lines.append(f"| {system} | {step} | {statistics.median(values):.2f} | "
                         f"{min(values):.2f} - {max(values):.2f} |")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    main()
