"""python -m bench.latency server [--sizes 1k,20k,100k] [--calls N] [--reps N] [--workdir DIR] [--out DIR]

The timeline server's costs, on this bench's metadata-table tables (1k, 20k, 100k files):
- a view call: the latest file slices of one partition over HTTP from pyhudi's client
  (pyhudi.write.timeline_client), median of --calls calls, with the client's timeline hash current
  (the server answers from its synced view) and stale (the server lists the timeline first);
- a sync after one new commit against a rebuild: the JVM's synced view of every partition built
  from scratch (the metadata table's files partition read whole) versus brought up to date after one
  more commit (the timeline listed, one instant file read and applied). Both leave the same view;
  both are timed inside the JVM (the view's counters), without py4j round trips.
The issue's targets: a view call within 5 ms median; a sync under 5% of a rebuild at 100k files.
"""
from __future__ import annotations

import json
import os
import statistics
import time

from bench.latency import build

TARGET_CALL_MS = 5.0
TARGET_SYNC_SHARE = 0.05


def _state(path: str) -> tuple[str | None, str]:
    from pyhudi.storage import Storage
    from pyhudi.table import properties
    from pyhudi.table.timeline import Timeline

    storage, base = Storage.for_uri(path)
    return Timeline.for_table(storage, base, properties.load(storage, base)).view_state()


def _call_ms(client, path: str, partition: str, state, calls: int) -> float:
    times = []
    for _ in range(calls):
        t0 = time.perf_counter()
        client.latest_file_slices(path, [partition], *state)
        times.append((time.perf_counter() - t0) * 1000)
    return statistics.median(times)


def _whole_view_ms(jvm, fs, jpath) -> float:
    """Syncs the JVM's view of the table and loads every partition: milliseconds of the view's own work
    (SyncedView's lastSyncMicros plus the loadMicros this call added), py4j round trips left out."""
    views = jvm.io.hudimeta.view
    view = views.TableViews.synced(fs, jpath, views.ViewStorageConfig.DEFAULT)
    before = view.counters().get("loadMicros")
    view.files(view.partitions())
    counters = view.counters()
    return (counters.get("lastSyncMicros") + counters.get("loadMicros") - before) / 1000


def measure(spark, shape, root: str, calls: int, reps: int, log=print) -> dict:
    from pyhudi.write.timeline_client import TimelineClient
    from pyhudi.write.view import view_options

    build.ensure(shape, root, delta=False, log=log)
    path = build.reset(root, shape, "mdt-on")
    jvm, conf = spark._jvm, spark._jsc.hadoopConfiguration()
    jpath = jvm.org.apache.hadoop.fs.Path(path)
    fs = jpath.getFileSystem(conf)
    port = jvm.io.hudimeta.view.TimelineServer.startEmbedded(conf, 0, view_options({}))
    client, partition = TimelineClient("localhost", int(port), 60), shape.partition_path(0)
    state = _state(path)
    client.latest_file_slices(path, [partition], *state)  # the first call builds the view
    out = {"size": shape.name, "files": shape.files,
           "call_ms_current": round(_call_ms(client, path, partition, state, calls), 3),
           "call_ms_stale": round(_call_ms(client, path, partition, (None, None), calls), 3)}
    rebuilds, syncs = [], []
    committer = build.HudiCommits(path, shape, True)
    for r in range(reps + 1):  # the first round warms the JVM up
        jvm.io.hudimeta.view.TableViews.invalidate(path)
        rebuild = _whole_view_ms(jvm, fs, jpath)
        committer.add(shape, build.commits("mdt-on", path) + 1)
        sync = _whole_view_ms(jvm, fs, jpath)
        if r:
            rebuilds.append(rebuild)
            syncs.append(sync)
    out.update(rebuild_ms=round(statistics.median(rebuilds), 1), sync_ms=round(statistics.median(syncs), 1),
               rebuild_runs_ms=[round(x, 1) for x in rebuilds], sync_runs_ms=[round(x, 1) for x in syncs])
    out["sync_share"] = round(out["sync_ms"] / out["rebuild_ms"], 4)
    log(f"[{shape.name}] view call {out['call_ms_current']} ms (stale hash {out['call_ms_stale']} ms); "
        f"rebuild {out['rebuild_ms']} ms, sync after one commit {out['sync_ms']} ms ({out['sync_share']:.1%})")
    return out


def report(results: list[dict]) -> str:
    lines = ["# Timeline server: view calls, sync against rebuild", "",
             "`python -m bench.latency server` (see bench/README.md). Medians; the view's files come from the "
             "metadata table.", "",
             "| files | view call, hash current (ms) | view call, hash stale (ms) | rebuild of every partition (ms) "
             "| sync after one commit (ms) | sync / rebuild |", "| --- | --- | --- | --- | --- | --- |"]
    for r in results:
        lines.append(f"| {r['files']:,} | {r['call_ms_current']} | {r['call_ms_stale']} | {r['rebuild_ms']} | "
                     f"{r['sync_ms']} | {r['sync_share']:.1%} |")
    lines += ["", "## Targets", ""]
    worst_call = max(r["call_ms_current"] for r in results)
    lines.append(f"- a view call answers in <= {TARGET_CALL_MS:g} ms median: "
                 f"{'met' if worst_call <= TARGET_CALL_MS else 'missed'} (slowest size {worst_call} ms)")
    big = [r for r in results if r["size"] == "100k"]
    if big:
        share = big[0]["sync_share"]
        lines.append(f"- a sync after one new commit costs < {TARGET_SYNC_SHARE:.0%} of a rebuild at 100k files: "
                     f"{'met' if share < TARGET_SYNC_SHARE else 'missed'} ({share:.1%})")
    else:
        lines.append("- sync against rebuild at 100k files: not measured (run with --sizes including 100k)")
    return "\n".join(lines) + "\n"


def run(sizes: list[str], calls: int, reps: int, root: str, out: str, spark=None, log=print) -> list[dict]:
    from bench import spark as bench_spark

    spark = spark or bench_spark.session()
    results = [measure(spark, build.SHAPES[s], root, calls, reps, log) for s in sizes]
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, "server.json"), "w") as f:
        json.dump(results, f, indent=2)
    with open(os.path.join(out, "server.md"), "w") as f:
        f.write(report(results))
    log(f"results in {out}/server.md")
    return results
