"""Log compaction (Apache Hudi's `logcompaction`): the log blocks of a slice merged into one new log file whose
blocks name the instants they replace (COMPACTED_BLOCK_TIMES), records keeping their commit times; the
connector and hudi-rs read the same rows before and after, writes made while a plan is pending still win,
and it runs inline, from the CLI and before a full compaction."""
from pathlib import Path

import pyarrow as pa
import pytest

from pyhudi import log as lf
from pyhudi.cli import main as cli
from pyhudi.hudi_table import HudiTable
from pyhudi.services import compaction, log_compaction
from pyhudi.services.instant import ServiceTable
from pyhudi.table import file_names
from pyhudi.table import instant_metadata as im

SCHEMA = "id string, ts long, region string, val string"
OPTS = {"hoodie.table.name": "lc", "hoodie.datasource.write.recordkey.field": "id",
        "hoodie.datasource.write.precombine.field": "ts", "hoodie.datasource.write.partitionpath.field": "region",
        "hoodie.datasource.write.table.type": "MERGE_ON_READ", "hoodie.compact.inline": "false",
        "hoodie.clean.automatic": "false", "hoodie.archive.automatic": "false"}


def _rows(spark, ids, ts, region="eu"):
    return spark.createDataFrame([(f"k{i}", ts, region, f"v{i}-{ts}") for i in ids], SCHEMA)


def _read(spark, path):
    return {r["id"]: (r["val"], r["_hoodie_commit_time"]) for r in spark.read.format("hudi-meta").load(path).collect()}


def _hudi_rs(path):
    from hudi import HudiTableBuilder
    t = pa.Table.from_batches(HudiTableBuilder.from_base_uri(path).build().read())
    return dict(zip(t.column("id").to_pylist(), t.column("val").to_pylist()))


def _logs(path, instant=None):
    return sorted(p for p in Path(path).rglob("*") if ".hoodie" not in p.parts and file_names.is_log(p.name)
                  and (instant is None or file_names.parse_log(p.name).instant == instant))


def _table(spark, path, opts=OPTS):
    """One slice in eu with a base file and six log blocks: updates (one losing on ts), an insert, a delete."""
    t = HudiTable(spark, path, opts)
    t.upsert(_rows(spark, range(6), 10))
    t.upsert(_rows(spark, [0, 1], 11))
    t.upsert(_rows(spark, [0], 5))  # a lower ordering value: loses to ts 11 under event-time ordering
    t.upsert(_rows(spark, [2, 3], 12))
    t.delete(_rows(spark, [4], 13))
    t.upsert(_rows(spark, [1], 14))
    return t


def _values(read):
    return {k: v for k, (v, _) in read.items()}


def test_log_compaction_merges_the_log_blocks_of_a_slice_into_one_log_file(spark, tmp_path):
    path = str(tmp_path / "t")
    _table(spark, path)
    before = _read(spark, path)
    assert _values(before) == {"k0": "v0-11", "k1": "v1-14", "k2": "v2-12", "k3": "v3-12", "k5": "v5-10"}
    merged_instants = sorted({file_names.parse_log(p.name).instant for p in _logs(path)})
    assert len(merged_instants) == 5

    scheduled = log_compaction.schedule(spark, path, OPTS)
    table = ServiceTable.open(path)
    plan = compaction.plan_of(table, scheduled)
    assert scheduled.action == "logcompaction"
    assert plan["strategy"]["compactorClassName"] == log_compaction.COMPACTOR and plan["preserveHoodieMetadata"]
    assert [len(op["deltaFilePaths"]) for op in plan["operations"]] == [5]
    done = compaction.execute(spark, path, scheduled.requested_time, OPTS, action="logcompaction")

    assert done.action == "deltacommit" and done.is_completed
    meta = im.decode(ServiceTable.open(path).timeline.read(done))
    assert meta["operationType"] == "LOG_COMPACT" and meta["compacted"] is True
    [new_log] = _logs(path, scheduled.requested_time)
    data, deletes = lf.read_log_file(str(new_log))
    for block in (data, deletes):
        assert block.instant_time == scheduled.requested_time
        assert sorted(block.header[lf.HeaderKey.COMPACTED_BLOCK_TIMES].split(",")) == merged_instants
    records = {r["_hoodie_record_key"]: r for r in data.records()}
    assert {k: r["val"] for k, r in records.items()} == {"k0": "v0-11", "k1": "v1-14", "k2": "v2-12", "k3": "v3-12"}
    assert {k: r["_hoodie_commit_time"] for k, r in records.items()} == {k: before[k][1] for k in records}
    assert [(d.record_key, d.ordering_value) for d in deletes.deletes()] == [("k4", 0)]

    assert _read(spark, path) == before
    assert _values(before) == _hudi_rs(path)
    assert cli(["metadata", "validate", path]) == 0
    assert log_compaction.schedule(spark, path, OPTS) is None  # one block per instant left: under the threshold


def test_a_write_made_while_the_plan_is_pending_still_wins(spark, tmp_path):
    """Commit-time ordering (no precombine field): the later write wins by position alone, so the compacted
    blocks must stand where the instants they replace stood, before the later write."""
    path = str(tmp_path / "t")
    opts = {k: v for k, v in OPTS.items() if k != "hoodie.datasource.write.precombine.field"}
    t = _table(spark, path, opts)
    scheduled = log_compaction.schedule(spark, path, opts).requested_time
    t.upsert(_rows(spark, [0, 9], 1))  # after the plan, with the lowest ts: wins on commit time
    expected = _values(_read(spark, path))
    assert expected["k0"] == "v0-1" and expected["k9"] == "v9-1"
    assert log_compaction.log_compact(spark, path, opts) == [scheduled]
    assert _values(_read(spark, path)) == expected == _hudi_rs(path)
    t.upsert(_rows(spark, [1], 2))  # and later writes land over the compacted blocks
    assert _values(_read(spark, path))["k1"] == "v1-2"


def test_then_a_full_compaction_reads_the_same(spark, tmp_path):
    path = str(tmp_path / "t")
    _table(spark, path)
    before = _read(spark, path)
    assert len(log_compaction.log_compact(spark, path, OPTS)) == 1
    assert len(compaction.compact(spark, path, OPTS)) == 1
    assert _read(spark, path) == before and _values(before) == _hudi_rs(path)
    assert cli(["metadata", "validate", path]) == 0


def test_inline_log_compaction_and_the_cli(spark, tmp_path):
    path = str(tmp_path / "t")
    opts = {**OPTS, "hoodie.log.compaction.inline": "true", "hoodie.log.compaction.blocks.threshold": "3"}
    t = HudiTable(spark, path, opts)
    t.upsert(_rows(spark, range(3), 1))
    for ts in (2, 3):
        t.upsert(_rows(spark, [0], ts))
    assert not [i for i in ServiceTable.open(path).timeline.instants() if i.requested_time > "0" and
                im.decode(ServiceTable.open(path).timeline.read(i)).get("operationType") == "LOG_COMPACT"]
    t.upsert(_rows(spark, [1], 4))  # the third log block of the slice
    kinds = [im.decode(ServiceTable.open(path).timeline.read(i))["operationType"]
             for i in ServiceTable.open(path).timeline.completed()]
    assert kinds.count("LOG_COMPACT") == 1
    assert _values(_read(spark, path)) == {"k0": "v0-3", "k1": "v1-4", "k2": "v2-1"} == _hudi_rs(path)

    plain = str(tmp_path / "plain")
    _table(spark, plain)
    assert cli(["log-compact", plain, "--schedule"]) == 0
    [pending] = compaction.pending_compactions(ServiceTable.open(plain), "logcompaction")
    assert cli(["log-compact", plain, "--instant", "20990101000000000"]) == 2
    assert cli(["log-compact", plain]) == 0
    assert not compaction.pending_compactions(ServiceTable.open(plain), "logcompaction")
    assert _logs(plain, pending.requested_time)


def test_log_compaction_errors_name_the_problem(spark, tmp_path):
    cow = str(tmp_path / "cow")
    HudiTable(spark, cow, {**OPTS, "hoodie.datasource.write.table.type": "COPY_ON_WRITE"}).upsert(
        _rows(spark, range(2), 1))
    with pytest.raises(compaction.CompactionError, match="COPY_ON_WRITE table"):
        log_compaction.log_compact(spark, cow, OPTS)
    mor = str(tmp_path / "mor")
    _table(spark, mor)
    with pytest.raises(compaction.CompactionError, match="not a pending logcompaction .* pyhudi log-compact"):
        log_compaction.log_compact(spark, mor, OPTS, instant="20990101000000000")
    with pytest.raises(ValueError, match="hoodie.log.compaction.blocks.threshold"):
        log_compaction.log_compact(spark, mor, {**OPTS, "hoodie.log.compaction.blocks.threshold": "0"})
