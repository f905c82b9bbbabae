"""Smoke test of the object-store benchmark (bench/object_store/): the tiny scale (a 200-file real table, a
2,000-file .hoodie-only one, a 20-file upsert table) at 0 and 5 ms, one cold and one warm run per case, on the
session's S3 server and SparkSession. Checks that every case is in results.json with its requests; no timing."""
from __future__ import annotations

import json

from bench.object_store import runner, tables


def test_object_store_run_tiny(spark, s3_server, tmp_path):
    out = tmp_path / "results"
    runner.run("tiny", root=str(tmp_path / "work"), out=str(out), plots=False, spark=spark, server=s3_server,
               log=lambda *_: None)
    assert s3_server.latency_ms == 0  # the shared server is left as the other tests expect it
    doc = json.loads((out / "results.json").read_text())
    scale = tables.SCALES["tiny"]
    latencies = [f"{ms:g}" for ms in scale.latencies]
    assert sorted(doc["planning"]) == sorted(runner.planning_cases(scale))
    for cid, case in doc["planning"].items():
        assert sorted(case["by_latency"]) == sorted(latencies), cid
        for ms, res in case["by_latency"].items():
            for kind in ("cold", "warm"):
                r = res[kind]
                assert len(r["samples"]) == 1 and r["requests"]["total"] > 0, (cid, ms, kind)
                assert all(x["files"] == case["files_expected"] for x in r["runs"]), (cid, ms, kind, r["runs"])
                assert r["request_log"] and sum(r["requests"]["by_op"].values()) == r["requests"]["total"]
            cold = res["cold"]["requests"]["by_area_op"]
            if case["mode"] == "hudi-meta-mdt":
                assert {x["listing"] for x in res["cold"]["runs"]} == {"metadata"}
                assert not cold.get("data:LIST"), (cid, cold)  # the metadata table lists no data folder
            else:
                assert cold.get("data:LIST"), (cid, cold)
    up = doc["upsert"]
    assert sorted(up["by_latency"]) == sorted(latencies)
    for r in list(up["by_latency"].values()) + [up["tenx"]]:
        assert len(r["runs"]) == 1 and r["requests"]["by_op"].get("PUT"), r["requests"]
        assert r["partition_check"]["ok"], r["partition_check"]
    ext = doc["extrapolated"]["cases"]
    assert sorted(ext) == ["2k/hudi-meta-listing", "2k/spark-parquet"]
    assert all(x["requests"] > 0 for e in ext.values() for x in e["by_latency"].values())
    assert doc["targets"][0]["met"] is not None and doc["targets"][0]["case"] == "2k/hoodie/hudi-meta-mdt"
    report = (out / "report.md").read_text()
    assert "## Goal" in report and "EXTRAPOLATED" in report and "## The small upsert" in report
