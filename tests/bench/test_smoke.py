"""Smoke test of the benchmark (bench/): the data generator, then `python -m bench run` at the
tiny scale for one load and one query of the project's own systems (pyhudi, hudi-meta, Spark
Parquet, and hudi-rs from the dev extras). Peers (deltalake, pyiceberg, matplotlib) are not needed."""
from __future__ import annotations

import importlib.util
import json

import pyarrow.compute as pc

from bench import datagen, runner
from bench.scales import SCALES


def test_data_generation_is_deterministic_and_shaped():
    shape = SCALES["tiny"].shape
    base = datagen.base_table(shape)
    assert base.equals(datagen.base_table(shape))
    assert base.num_rows == shape.rows and base.num_columns == 10
    assert len(pc.unique(base.column("day"))) == shape.partitions
    ids = base.column("id")
    assert len(pc.unique(ids)) == shape.rows
    assert all(len(k) == 36 and k[14] == "4" for k in ids.slice(0, 50).to_pylist())
    assert set(pc.utf8_length(base.column("description")).to_pylist()) == {datagen.DESCRIPTION_CHARS}
    ts = base.column("event_ts").to_numpy()
    assert (ts[1:] > ts[:-1]).all()  # clustered: increasing with the row number

    batch = datagen.upsert_batch(shape, base)
    existing = set(ids.to_pylist())
    updated = [k for k in batch.column("id").to_pylist() if k in existing]
    assert batch.num_rows == shape.upsert_rows and len(updated) == shape.upsert_updates
    assert pc.min(batch.column("updated_at")).as_py() > pc.max(base.column("updated_at")).as_py()
    (lo, hi), = datagen.range_bounds(shape, 1)
    inside = pc.sum(pc.and_(pc.greater_equal(base.column("event_ts"), lo), pc.less_equal(base.column("event_ts"), hi)))
    assert inside.as_py() == round(shape.rows * 0.01)


def test_bench_run_tiny(spark, tmp_path):
    only = ["bulk_load/pyhudi bulk_insert COW", "point_lookup/hudi-meta", "point_lookup/spark-parquet"]
    if importlib.util.find_spec("hudi") is not None:
        only.append("point_lookup/hudi-rs")
    out = tmp_path / "results"
    doc = runner.run(scale="tiny", only=only, workdir=str(tmp_path / "work"), out=str(out), plots=False,
                     spark=spark)
    cases = doc["cases"]
    assert len(cases) == len(only)
    for cid, case in cases.items():
        assert case["status"] == "ok", (cid, case.get("traceback"))
        assert case["summary"]["runs"] == SCALES["tiny"].write_reps and case["summary"]["median"] > 0
    lookup = cases["point_lookup/hudi-meta (COW)"]["info"]
    assert lookup["rows"] == 1 and 1 <= lookup["files"] <= SCALES["tiny"].shape.partitions
    saved = json.loads((out / "results.json").read_text())
    assert saved["cases"].keys() == cases.keys()
    report = (out / "report.md").read_text()
    assert "pyhudi bulk_insert COW" in report and "## The issue's targets" in report
