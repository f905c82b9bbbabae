"""Smoke test of the streaming-ingest benchmark (bench/streaming/): 3 commits of 20 inserts + 20 updates per
variant, log-file indexing on and off (Avro blocks), through runner.run with the session's SparkSession."""
from __future__ import annotations

import json

from bench.streaming import runner


def test_stream_is_deterministic_and_shaped():
    a, b = runner.Stream(20, 20), runner.Stream(20, 20)
    first = [a.next() for _ in range(3)]
    assert all(t.equals(b.next()) for t in first)
    assert [t.num_rows for t in first] == [20, 40, 40] and a.keys == 60
    seen = set(first[0].column("id").to_pylist())
    ids = first[1].column("id").to_pylist()
    assert set(ids[:20]) <= seen and not set(ids[20:]) & seen  # updates of earlier keys, then new keys
    assert len(set(first[1].column("day").to_pylist()) | set(first[0].column("day").to_pylist())) <= runner.PARTITIONS
    assert runner.variant_options("off").get(runner.LOG_INDEX_KEY) is None
    assert runner.variant_options("on")[runner.LOG_INDEX_KEY] == "true"
    assert runner.variant_options("on")[runner.BLOCK_FORMAT_KEY] == "avro"
    assert runner.variant_options("on-parquet")[runner.BLOCK_FORMAT_KEY] == "parquet"


def test_streaming_run_tiny(spark, tmp_path):
    out = tmp_path / "results"
    doc = runner.run(3, 20, 20, ["on", "off"], root=str(tmp_path / "work"), out=str(out), read_runs=1,
                     warmup_commits=0, plots=False, spark=spark, log=lambda *_: None)
    saved = json.loads((out / "results.json").read_text())
    assert sorted(saved["variants"]) == ["off", "on"]
    for name in ("on", "off"):
        v = saved["variants"][name]
        assert "error" not in v, v.get("error")
        assert len(v["commits"]) == 3 and all(c["seconds"] > 0 for c in v["commits"])
        s = v["commit_summary"]
        assert 0 < s["min"] <= s["median"] <= s["p90"] <= s["max"]
        assert v["files"]["base_files"] + v["files"]["log_files"] > 0 and v["files"]["data_bytes"] > 0
        assert v["reads"]["snapshot"]["median"] > 0 and v["reads"]["read_optimized"]["median"] > 0
        c = v["check"]
        assert c["keys_inserted"] == 60 and c["rows_read"] == c["distinct_keys_read"] == 60, c
        assert c["ok"], c
    assert doc["targets"] and all(t["met"] for t in doc["targets"])
    report = (out / "report.md").read_text()
    assert "log index on, avro blocks" in report and "log index off, avro blocks" in report
