"""Compaction of merge-on-read tables: plans over slices with log files, merged records written as new
base files keeping their commit times, writers going on while a plan is pending, inline triggering,
a dead attempt rolled back and run again, and hudi-rs reading the result as the connector does."""
from pathlib import Path

import pyarrow as pa
import pytest

from pyhudi.cli import main as cli
from pyhudi.hudi_table import HudiTable
from pyhudi.services import compaction
from pyhudi.services.instant import ServiceTable
from pyhudi.table import file_names
from pyhudi.table import instant_metadata as im

SCHEMA = "id string, ts long, region string, val string"
OPTS = {"hoodie.table.name": "c", "hoodie.datasource.write.recordkey.field": "id",
        "hoodie.datasource.write.precombine.field": "ts", "hoodie.datasource.write.partitionpath.field": "region",
        "hoodie.datasource.write.table.type": "MERGE_ON_READ", "hoodie.compact.inline": "false",
        "hoodie.clean.automatic": "false", "hoodie.archive.automatic": "false"}


def _rows(spark, ids, ts):
    return spark.createDataFrame([(f"k{i}", ts, ("eu", "us")[i % 2], f"v{i}-{ts}") for i in ids], SCHEMA)


def _read(spark, path):
    return {r["id"]: (r["val"], r["_hoodie_commit_time"])
            for r in spark.read.format("hudi-meta").load(path).collect()}


def _hudi_rs(path):
    from hudi import HudiTableBuilder
    t = pa.Table.from_batches(HudiTableBuilder.from_base_uri(path).build().read())
    return {i: v for i, v in zip(t.column("id").to_pylist(), t.column("val").to_pylist())}


def _files(path, kind):
    check = file_names.is_log if kind == "log" else file_names.is_base
    return sorted(p.name for p in Path(path).rglob("*") if ".hoodie" not in p.parts and check(p.name))


def _table(spark, path):
    t = HudiTable(spark, path, OPTS)
    t.upsert(_rows(spark, range(8), 1))
    t.upsert(_rows(spark, range(0, 8, 2), 2))  # updates: log files
    t.delete(_rows(spark, [1], 3))
    return t


def test_scheduled_and_executed_compaction_reads_the_same(spark, tmp_path):
    path = str(tmp_path / "t")
    _table(spark, path)
    before = _read(spark, path)
    assert _files(path, "log")
    scheduled = compaction.schedule(spark, path, OPTS)
    table = ServiceTable.open(path)
    plan = compaction.plan_of(table, scheduled)
    assert {op["partitionPath"] for op in plan["operations"]} == {"eu", "us"}
    assert all(op["deltaFilePaths"] and op["dataFilePath"] for op in plan["operations"])
    assert _read(spark, path) == before  # a pending plan changes no read
    done = compaction.execute(spark, path, scheduled.requested_time, OPTS)
    assert done.action == "commit" and done.is_completed
    after = _read(spark, path)
    assert after == before  # same rows, same commit times (kept through compaction)
    new_bases = [n for n in _files(path, "base") if file_names.parse_base(n).instant == scheduled.requested_time]
    assert len(new_bases) == 2
    meta = im.decode(table.timeline.read(done))
    assert meta["operationType"] == "COMPACT" and meta["compacted"] is True
    assert {k: v for k, (v, _) in after.items()} == _hudi_rs(path)
    assert cli(["metadata", "validate", path]) == 0
    assert compaction.schedule(spark, path, OPTS) is None  # nothing left with log files


def test_writers_go_on_while_a_compaction_is_pending(spark, tmp_path):
    path = str(tmp_path / "t")
    t = _table(spark, path)
    scheduled = compaction.schedule(spark, path, OPTS).requested_time
    t.upsert(_rows(spark, [0, 3, 20], 5))  # after the plan: into the slice the compaction opens
    expected = {k: v for k, (v, _) in _read(spark, path).items()}
    assert expected["k0"] == "v0-5" and expected["k20"] == "v20-5" and "k1" not in expected
    compaction.execute(spark, path, scheduled, OPTS)
    got = {k: v for k, (v, _) in _read(spark, path).items()}
    assert got == expected == _hudi_rs(path)
    late_logs = [n for n in _files(path, "log") if file_names.parse_log(n).instant > scheduled]
    assert late_logs  # the later write's log files stay, after the compacted base files


def test_a_dead_attempt_is_rolled_back_and_run_again(spark, tmp_path):
    path = str(tmp_path / "t")
    _table(spark, path)
    before = _read(spark, path)
    scheduled = compaction.schedule(spark, path, OPTS).requested_time
    table = ServiceTable.open(path)
    table.timeline.transition_to_inflight(compaction.pending_compactions(table)[0])
    # what a killed attempt leaves: a marker and its half-written base file
    partial = Path(path) / "eu" / f"{compaction.plan_of(table, compaction.pending_compactions(table)[0])['operations'][0]['fileId']}_0-1-2_{scheduled}.parquet"  # noqa: E501
    partial.write_bytes(b"PAR1 half")
    marker = Path(path) / ".hoodie" / ".temp" / scheduled / "eu" / f"{partial.name}.marker.CREATE"
    marker.parent.mkdir(parents=True)
    marker.write_bytes(b"")
    assert compaction.compact(spark, path, OPTS) == [scheduled]
    assert not partial.exists()
    assert _read(spark, path) == before
    assert cli(["metadata", "validate", path]) == 0


def test_inline_compaction_every_five_delta_commits_by_default(spark, tmp_path):
    path = str(tmp_path / "t")
    opts = {k: v for k, v in OPTS.items() if k != "hoodie.compact.inline"}  # the default: on for MOR
    t = HudiTable(spark, path, opts)
    t.upsert(_rows(spark, range(4), 1))
    for ts in range(2, 6):
        t.upsert(_rows(spark, [0, 1], ts))
    table = ServiceTable.open(path)
    assert [i.action for i in table.timeline.completed()].count("commit") == 1  # after the 5th deltacommit
    got = {k: v for k, (v, _) in _read(spark, path).items()}
    assert got["k0"] == "v0-5" and got == _hudi_rs(path)
    t.upsert(_rows(spark, [2], 6), {"hoodie.compact.inline": "false"})
    assert [i.action for i in ServiceTable.open(path).timeline.completed()].count("commit") == 1


def test_compaction_errors_name_the_problem(spark, tmp_path):
    cow = str(tmp_path / "cow")
    HudiTable(spark, cow, {**OPTS, "hoodie.datasource.write.table.type": "COPY_ON_WRITE"}).upsert(
        _rows(spark, range(2), 1))
    with pytest.raises(compaction.CompactionError, match="COPY_ON_WRITE table; compaction merges"):
        compaction.compact(spark, cow, OPTS)
    mor = str(tmp_path / "mor")
    _table(spark, mor)
    with pytest.raises(compaction.CompactionError, match="20990101000000000 is not a pending compaction"):
        compaction.execute(spark, mor, "20990101000000000", OPTS)
    assert cli(["compact", mor, "--instant", "20990101000000000"]) == 2
    before = _read(spark, mor)
    assert cli(["compact", mor, "--schedule", "--option", "hoodie.compaction.strategy="
                "org.apache.hudi.table.action.compact.strategy.LogFileNumBasedCompactionStrategy"]) == 0
    assert len(compaction.pending_compactions(ServiceTable.open(mor))) == 1
    assert cli(["compact", mor]) == 0
    assert not compaction.pending_compactions(ServiceTable.open(mor)) and _read(spark, mor) == before


def test_a_pending_compaction_planned_by_apache_hudi(spark, fixture_tables, tmp_path):
    """The Hudi 1.0 trips table, set back to before its compaction completed (the completed instant and
    the base files it wrote removed; its metadata table, which has merged the compaction's files into
    its base files, dropped): pyhudi runs Hudi's own plan, and every reader sees the same rows."""
    import json
    import shutil

    from conftest import FIXTURES
    from tests.canonical import canon

    name = "quickstart_trips_table_mor_avro__v8_trips_8i3u1d"
    path = tmp_path / "trips"
    shutil.copytree(fixture_tables[name], path)
    t = "20251220210129235"
    (path / ".hoodie" / "timeline" / f"{t}_20251220210129883.commit").unlink()
    written = [p for p in path.rglob(f"*_{t}.parquet") if ".hoodie" not in p.parts]
    assert written
    for p in written:
        p.unlink()
    assert cli(["metadata", "delete", str(path)]) == 0
    data = json.loads((FIXTURES / "expected" / f"{name}.snapshot.json").read_text())
    expected = {"columns": data["columns"], "rows": data["rows"]}
    before = canon(spark.read.format("hudi-meta").load(str(path)).toArrow())
    assert before == expected
    assert compaction.compact(spark, str(path)) == [t]
    assert sorted(p.name.split("_")[0] for p in path.rglob(f"*_{t}.parquet") if ".hoodie" not in p.parts) == \
        sorted(p.name.split("_")[0] for p in written)
    assert canon(spark.read.format("hudi-meta").load(str(path)).toArrow()) == expected
    from hudi import HudiTableBuilder
    assert canon(pa.Table.from_batches(HudiTableBuilder.from_base_uri(str(path)).build().read())) == expected
