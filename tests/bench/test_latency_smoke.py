"""Smoke test of the write-latency benchmark (bench/latency/): a tiny run (4 partitions x 5 files, 2
commits, 1 timed upsert per case) through runner.run with the session's SparkSession, pyhudi with its
metadata table (SIMPLE index and record index) and delta-rs (reported skipped when deltalake is not
installed)."""
from __future__ import annotations

import importlib.util
import json

from pyspark.sql import functions as F

from bench.latency import build, runner, systems


def test_upsert_batch_is_deterministic_and_shaped():
    shape = build.SHAPES["20k"]
    batch = systems.upsert_batch(shape, 12)
    assert batch.equals(systems.upsert_batch(shape, 12))
    keys = batch.column(build.KEY).to_pylist()
    assert batch.num_rows == 100 and len(set(keys)) == 100
    assert set(batch.column(build.PARTITION).to_pylist()) == {shape.partition_value(50)}
    assert sum(k.startswith("u000012") for k in keys) == 50
    files = {k[:8] for k in keys if k.startswith("k")}  # the load file number, k{k:07d}
    assert len(files) == systems.UPDATE_FILES
    assert all(50 * 200 <= int(f[1:]) < 51 * 200 for f in files)  # load files of partition 50
    assert set(batch.column(build.ORDERING).to_pylist()) == {12}
    assert systems.upsert_batch(shape, 13).column(build.KEY).to_pylist() != keys


def test_latency_run_tiny(spark, tmp_path):
    out = tmp_path / "results"
    doc = runner.run(["tiny"], [2], reps=1, root=str(tmp_path / "work"), out=str(out), plots=False,
                     only=["pyhudi-mdt-on", "pyhudi-ri", "delta-rs"], spark=spark, warmup_rounds=0,
                     log=lambda *_: None)
    has_delta = importlib.util.find_spec("deltalake") is not None
    measured = ["pyhudi-mdt-on", "pyhudi-ri"] + (["delta-rs"] if has_delta else [])
    saved = json.loads((out / "results.json").read_text())
    entry = saved["sizes"]["tiny"]
    assert sorted(entry["cases"]) == sorted(measured)
    assert ("delta-rs" in saved["skipped"]) is not has_delta
    for name in measured:
        case = entry["cases"][name]["2"]
        assert case["summary"]["runs"] == 1 and case["summary"]["median"] > 0 and case["warmup"] > 0
        assert case["commits_before_runs"] == [3]  # the load + 1 prior commit + the warm-up upsert
        assert case["partition_check"]["ok"], case["partition_check"]
        counted = entry["row_counts"][name]
        assert counted["commits"] == 4 and counted["rows"] == 200 + 3 * 50, counted
    assert doc["sizes"]["tiny"]["row_counts"] == entry["row_counts"]
    # the table reads back right through hudi-meta: the load, 1 prior commit and 2 upserts of 50 new keys
    path = build.working(str(tmp_path / "work"), build.SHAPES["tiny"], "mdt-on")
    df = spark.read.format("hudi-meta").load(path)
    assert df.count() == df.select(build.KEY).distinct().count() == 350
    # the record-index table: the index (built, then told of the prior commit's keys) places every key
    # where a read finds it
    path = build.working(str(tmp_path / "work"), build.SHAPES["tiny"], build.RI_KIND)
    rows = (spark.read.format("hudi-meta").load(path)
            .select("_hoodie_record_key", "_hoodie_partition_path",
                    F.split("_hoodie_file_name", "_")[0].alias("fid")).collect())
    where = {k: {"partition": p, "fileId": f} for k, p, f in rows}
    found = json.loads(spark._jvm.io.hudimeta.index.RecordIndex.lookupJson(path, {}, json.dumps(sorted(where))))
    assert len(where) == 350 and {k: {"partition": v["partition"], "fileId": v["fileId"]}
                                  for k, v in found.items()} == where
    report = (out / "report.md").read_text()
    assert "## Goal" in report and "not measured" in report and "pyhudi mdt=on" in report
    assert "pyhudi rec-index" in report


def test_a_second_run_starts_its_case_from_the_kept_snapshot(spark, tmp_path):
    root, shape = str(tmp_path / "work"), build.SHAPES["tiny"]

    def run():
        doc = runner.run(["tiny"], [3], reps=1, root=root, out=str(tmp_path / "results"), plots=False,
                         only=["pyhudi-mdt-on"], spark=spark, warmup_rounds=0, log=lambda *_: None)
        return doc["sizes"]["tiny"]["cases"]["pyhudi-mdt-on"]["3"]

    first = run()
    assert first["prior"]["added"] == 2 and "snapshot" not in first["prior"]
    snap = build.snapshot(root, shape, "mdt-on", 3)
    assert build.commits("mdt-on", f"{snap}/table") == 3
    second = run()
    assert second["prior"]["added"] == 0 and second["prior"]["snapshot"] == snap
    assert second["commits_before_runs"] == first["commits_before_runs"] == [4]
    assert second["partition_check"]["ok"], second["partition_check"]
    # the snapshot is its own copy: the second run's upserts did not reach it
    assert build.commits("mdt-on", f"{snap}/table") == 3
