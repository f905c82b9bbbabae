"""The reader's table model (io.hudimeta.table) on real Hudi tables, with hudi-rs as the oracle.

Java is reached through py4j; TableSummary returns a whole table's model as one JSON string so
each table costs a single round trip.
"""
from __future__ import annotations

import json
import shutil
import zlib
from pathlib import Path

import pytest
from hudi import HudiReadOptions, HudiTableBuilder
from py4j.protocol import Py4JJavaError

from conftest import TABLE_NAMES

COMMIT_ACTIONS = ("commit", "deltacommit", "replacecommit")
MOR_V9 = "sample_table_mor_avro__v9_txns_simple_nometa"


# ---------------------------------------------------------------- helpers

@pytest.fixture(scope="module")
def model(spark):
    return spark._jvm.io.hudimeta.table


@pytest.fixture(scope="module")
def summary(model, fixture_tables):
    """name -> the table's model: latest slices plus slices as of every completed commit."""
    cache = {}

    def get(name):
        if name not in cache:
            path = fixture_tables[name]
            as_ofs = ",".join(i.timestamp for i in rs_completed(path))
            cache[name] = json.loads(model.TableSummary.json(path, as_ofs))
        return cache[name]
    return get


def rs_table(path):
    return HudiTableBuilder.from_base_uri(path).build()


def rs_completed(path):
    """hudi-rs completed commits, deltacommits and replacecommits, by requested time."""
    tl = rs_table(path).get_timeline()
    instants = (tl.get_completed_commits() + tl.get_completed_deltacommits()
                + tl.get_completed_replacecommits())
    return sorted(instants, key=lambda i: i.timestamp)


def rs_slices(path, as_of=None):
    table = rs_table(path)
    slices = table.get_file_slices(HudiReadOptions().with_as_of_timestamp(as_of)) if as_of \
        else table.get_file_slices()
    return {(s.partition_path, s.file_id): (s.creation_instant_time, s.base_file_name, list(s.log_file_names))
            for s in slices}


def my_slices(slices):
    return {(s["partitionPath"], s["fileId"]): (s["baseInstantTime"], s["baseFile"], s["logFiles"])
            for s in slices}


def log_instant(name):
    return name[1:].split("_", 1)[1].split(".log.")[0]


def java_error(excinfo):
    err = excinfo.value.java_exception
    return err.getClass().getSimpleName(), err.getMessage()


def hadoop_path(spark, path):
    jpath = spark._jvm.org.apache.hadoop.fs.Path(str(path))
    return jpath.getFileSystem(spark._jsc.hadoopConfiguration()), jpath


def load_config(spark, path):
    fs, jpath = hadoop_path(spark, path)
    return spark._jvm.io.hudimeta.table.TableConfig.load(fs, jpath)


def load_view(spark, path):
    fs, jpath = hadoop_path(spark, path)
    return spark._jvm.io.hudimeta.table.FileSystemView.load(fs, jpath)


def raw_groups(view, partition, as_of=None):
    """fileId -> [(baseInstant, baseFile, logFiles)] for every committed slice, oldest first."""
    groups = {}
    for group in view.fileGroups(partition, as_of):
        groups[group.fileId()] = [
            (s.baseInstantTime(), s.baseFile().name() if s.baseFile() else None,
             [log.name() for log in s.logFiles()]) for s in group.slices()]
    return groups


def copy_table(fixture_tables, name, tmp_path):
    target = tmp_path / name
    shutil.copytree(fixture_tables[name], target)
    return target


# ---------------------------------------------------------------- table config

@pytest.mark.parametrize("name", TABLE_NAMES)
def test_config_loads_and_agrees_with_hudi_rs(name, summary, model, fixture_tables):
    cfg = summary(name)["config"]
    table = rs_table(fixture_tables[name])
    assert (cfg["tableName"], cfg["tableType"]) == (table.table_name, table.table_type)
    options = table.hudi_options()
    assert cfg["tableVersion"] == int(options["hoodie.table.version"])
    assert cfg["recordKeyFields"] == options["hoodie.table.recordkey.fields"].split(",")
    # loading validated the checksum; check the rule itself against Python's CRC32
    expected = zlib.crc32(f"{cfg['databaseName'] or ''}.{cfg['tableName']}".encode())
    assert int(options["hoodie.table.checksum"]) == expected
    assert model.TableConfig.checksum(cfg["databaseName"], cfg["tableName"]) == expected
    assert cfg["timelineLayoutVersion"] == (2 if cfg["tableVersion"] >= 8 else 1)
    assert cfg["timelinePath"].endswith(".hoodie/timeline" if cfg["tableVersion"] >= 8 else ".hoodie")
    assert json.loads(cfg["createSchema"])["type"] == "record"


def test_config_typed_accessors(summary):
    v6 = summary("sample_table_mor_parquet__v6_complexkeygen_hivestyle")["config"]
    assert v6["partitionFields"] == ["byteField", "shortField"]
    assert v6["orderingFields"] == ["longField"]
    assert v6["keyGeneratorType"] == "COMPLEX"  # derived from hoodie.table.keygenerator.class
    assert v6["recordMergeMode"] == "COMMIT_TIME_ORDERING"  # OverwriteWithLatestAvroPayload, as Hudi upgrades it
    assert v6["hiveStylePartitioning"] is True
    assert summary("sample_table_cow__v6_nonpartitioned")["config"]["recordMergeMode"] == "EVENT_TIME_ORDERING"
    v9 = summary("sample_table_mor_avro__v9_txns_simple_meta")["config"]
    assert v9["orderingFields"] == ["txn_ts"]  # hoodie.table.ordering.fields
    assert v9["recordMergeMode"] == "EVENT_TIME_ORDERING"
    assert "record_index" in v9["metadataPartitions"] and "files" in v9["metadataPartitions"]
    no_meta = summary("sample_table_cow__v8_simplekeygen_hivestyle_no_metafields")["config"]
    assert no_meta["populateMetaFields"] is False and no_meta["keyGeneratorType"] == "SIMPLE"


def test_custom_key_generator_partition_field_type_is_stripped(spark, fixture_tables, tmp_path):
    table = copy_table(fixture_tables, "sample_table_cow__v8_nonpartitioned", tmp_path)
    props = table / ".hoodie" / "hoodie.properties"
    props.write_text(props.read_text() + "hoodie.table.partition.fields=region\\:SIMPLE,ts\\:TIMESTAMP\n")
    assert list(load_config(spark, table).partitionFields()) == ["region", "ts"]


def test_metadata_table_configs_load(spark, fixture_tables):
    mdt = Path(fixture_tables["quickstart_trips_table_mor_avro__v8_trips_8i3u1d"]) / ".hoodie" / "metadata"
    cfg = load_config(spark, mdt)
    assert cfg.tableName() == "v8_trips_8i3u1d_metadata" and cfg.databaseName() is None
    assert cfg.baseFileFormat() == "HFILE" and cfg.recordMergeMode().name() == "CUSTOM"
    assert cfg.tableType().name() == "MERGE_ON_READ"


# ---------------------------------------------------------------- timeline

@pytest.mark.parametrize("name", TABLE_NAMES)
def test_completed_instants_match_hudi_rs(name, summary, fixture_tables):
    path = fixture_tables[name]
    model = summary(name)
    mine = [(i["requestedTime"], i["action"]) for i in model["instants"]
            if i["state"] == "COMPLETED" and i["action"] in COMMIT_ACTIONS]
    assert mine == [(i.timestamp, i.action) for i in rs_completed(path)]
    # completion times come from layout-2 file names `<requested>_<completion>.<action>`, none in layout 1
    timeline_dir = Path(model["config"]["timelinePath"])
    for i in model["instants"]:
        assert (timeline_dir / i["fileName"]).is_file()
        if i["state"] == "COMPLETED" and model["config"]["timelineLayoutVersion"] == 2:
            assert i["fileName"] == f"{i['requestedTime']}_{i['completionTime']}.{i['action']}"
        else:
            assert i["completionTime"] is None


def test_instant_states_and_actions(summary):
    instants = {i["requestedTime"]: i for i in summary(MOR_V9)["instants"]}
    assert instants["20260307135839895"]["action"] == "commit"  # compaction completes as a commit
    assert instants["20260307135840454"]["action"] == "replacecommit"  # clustering as a replacecommit
    assert all(i["state"] == "COMPLETED" for i in instants.values())
    v6 = {i["requestedTime"]: i for i in summary("sample_table_mor_parquet__v6_nonpartitioned_rollback")["instants"]}
    assert v6["20250126040936578"]["action"] == "rollback"


def test_instant_file_names_parse(model):
    def parse(name, layout=2):
        return model.Timeline.parseFileName(name, layout)

    done = parse("20260307135839895_20260307135840408.commit")
    assert (done.requestedTime(), done.completionTime(), done.action(), done.state().name()) == \
        ("20260307135839895", "20260307135840408", "commit", "COMPLETED")
    inflight = parse("20250713010139392.inflight")
    assert (inflight.action(), inflight.state().name()) == ("commit", "INFLIGHT")
    requested = parse("20260307135839895.compaction.requested")
    assert (requested.action(), requested.state().name()) == ("compaction", "REQUESTED")
    v6 = parse("20250126040936578.rollback", 1)
    assert (v6.completionTime(), v6.state().name()) == (None, "COMPLETED")
    for other in ["hoodie.properties", "history", ".aux", "20250126040936578.unknown", "20250126040936578.commit.crc"]:
        assert parse(other) is None


@pytest.mark.parametrize("name", TABLE_NAMES)
def test_commit_metadata_matches_hudi_rs(name, summary, fixture_tables):
    path = fixture_tables[name]
    commits = summary(name)["commits"]
    timeline = rs_table(path).get_timeline()
    for instant in rs_completed(path):
        expected = json.loads(timeline.get_instant_metadata_in_json(instant))
        mine = commits[instant.timestamp]
        assert mine["operationType"] == expected.get("operationType")
        assert mine["partitionToReplaceFileIds"] == (expected.get("partitionToReplaceFileIds") or {})
        assert mine["schema"] == ((expected.get("extraMetadata") or {}).get("schema") or None)
        # sorted: partitions come in map order, file order here and hash order in hudi-rs
        stats = sorted((s["partitionPath"], s["fileId"], s["path"], s["fileSizeInBytes"], s["numWrites"],
                        s["numInserts"], s["numDeletes"], s["numUpdateWrites"], s["prevCommit"])
                       for s in mine["writeStats"])
        want = sorted((s.get("partitionPath") or p, s.get("fileId"), s.get("path"), s.get("fileSizeInBytes", 0),
                       s.get("numWrites", 0), s.get("numInserts", 0), s.get("numDeletes", 0),
                       s.get("numUpdateWrites", 0), s.get("prevCommit"))
                      for p, ss in (expected.get("partitionToWriteStats") or {}).items() for s in ss)
        assert stats == want


@pytest.mark.parametrize("name", TABLE_NAMES)
def test_latest_schema_matches_hudi_rs(name, summary, fixture_tables):
    assert json.loads(summary(name)["latestSchema"]) == json.loads(rs_table(fixture_tables[name]).get_schema_in_avro_str())


def test_rolled_back_instants_are_excluded(spark, summary, fixture_tables):
    name = "sample_table_mor_parquet__v6_nonpartitioned_rollback"
    model = summary(name)
    rolled_back = "20250126040826878"
    assert model["rolledBack"] == [rolled_back]
    assert rolled_back not in {i["requestedTime"] for i in model["instants"]}
    timeline = load_view(spark, fixture_tables[name]).timeline()
    assert not timeline.visibility(None).isCommitted(rolled_back)
    assert timeline.visibility(None).isCommitted("20250126040823628")
    # layout 1 names logs after the slice's base instant, so the failed write's log stays in the slice;
    # the rollback command block in .log.2 is what tells the log reader to skip its blocks
    (slice_,) = model["slices"]["latest"]
    assert slice_["baseFile"] == "0712b9f9-d2d5-4cae-bcf4-8fd7146af503-0_0-13-23_20250126040823628.parquet"
    assert [n.split(".log.")[1] for n in slice_["logFiles"]] == ["1_0-33-43", "2_1-0-1", "3_0-13-9"]


def test_compaction_plan_is_decoded(spark, fixture_tables):
    timeline = load_view(spark, fixture_tables[MOR_V9]).timeline()
    ops = {op.fileId(): op for op in timeline.compactionPlan("20260307135839895")}
    op = ops["db2fca8f-03b7-4da7-b042-4b617ab79b9d-0"]
    assert (op.partitionPath(), op.baseInstantTime()) == ("region=us", "20260307135827749")
    assert op.dataFileName() == "db2fca8f-03b7-4da7-b042-4b617ab79b9d-0_1-3-7_20260307135827749.parquet"
    assert [log_instant(n) for n in op.deltaFileNames()] == ["20260307135830801", "20260307135832616"]
    assert len(timeline.compactionPlan("20260307135830801")) == 0  # a deltacommit has no plan
    assert len(timeline.pendingCompactions()) == 0


# ---------------------------------------------------------------- file-system view

@pytest.mark.parametrize("name", TABLE_NAMES)
def test_latest_slices_match_hudi_rs(name, summary, fixture_tables):
    assert my_slices(summary(name)["slices"]["latest"]) == rs_slices(fixture_tables[name])


@pytest.mark.parametrize("name", TABLE_NAMES)
def test_time_travel_slices_match_hudi_rs(name, summary, fixture_tables):
    """As of every completed commit. hudi-rs keeps layout-2 log files written after the as-of time in
    the slice (its log reader skips their blocks); the model drops them up front, so those are
    removed from hudi-rs's answer before comparing."""
    path = fixture_tables[name]
    model = summary(name)
    layout2 = model["config"]["timelineLayoutVersion"] == 2
    for instant in rs_completed(path):
        as_of = instant.timestamp
        expected = rs_slices(path, as_of)
        if layout2:
            expected = {k: (base_instant, base, [n for n in logs if log_instant(n) <= as_of])
                        for k, (base_instant, base, logs) in expected.items()}
        assert my_slices(model["slices"][as_of]) == expected, as_of


@pytest.mark.parametrize("name", ["sample_table_cow__v9_txns_simple_overwrite",
                                  "sample_table_cow__v6_simplekeygen_nonhivestyle_overwritetable",
                                  "sample_table_mor_parquet__v6_simplekeygen_nonhivestyle_overwritetable"])
def test_replaced_file_groups_are_excluded(name, summary):
    model = summary(name)
    replace_times = [t for t, c in model["commits"].items() if c["partitionToReplaceFileIds"]]
    assert replace_times
    for t in replace_times:
        replaced = {(p, f) for p, ids in model["commits"][t]["partitionToReplaceFileIds"].items() for f in ids}
        before = max(x for x in model["slices"] if x != "latest" and x < t)
        assert replaced <= set(my_slices(model["slices"][before]))  # still live just before
        assert not replaced & set(my_slices(model["slices"][t]))
        assert not replaced & set(my_slices(model["slices"]["latest"]))


def test_partitions_are_discovered(summary):
    assert summary("sample_table_cow__v6_complexkeygen_hivestyle")["partitions"] == [
        "byteField=10/shortField=300", "byteField=20/shortField=100", "byteField=30/shortField=100"]
    assert summary("sample_table_cow__v9_timebasedkeygen_nonhivestyle")["partitions"][0] == "2024/01/15/10"
    assert summary("sample_table_cow__v8_nonpartitioned")["partitions"] == [""]
    assert summary("sample_table_cow__v8_empty")["partitions"] == []
    assert summary("sample_table_cow__v8_empty")["slices"]["latest"] == []


def test_pending_compaction_slices(spark, fixture_tables, tmp_path):
    """Undo the compaction's completion and everything after it, then add two deltacommits by name:
    one requested before the compaction but completed after it, one requested after it."""
    table = copy_table(fixture_tables, MOR_V9, tmp_path)
    timeline = table / ".hoodie" / "timeline"
    compaction = "20260307135839895"
    for f in timeline.iterdir():
        if f.is_file() and (f.name[:17] > compaction or f.name == f"{compaction}_20260307135840408.commit"):
            f.unlink()
    us, apac = "db2fca8f-03b7-4da7-b042-4b617ab79b9d-0", "9c6ed25b-6c9d-4793-ad27-1c8518086b6a-0"
    (timeline / "20260307135839500_20260307135840000.deltacommit").write_bytes(b"")
    (table / "region=apac" / f".{apac}_20260307135839500.log.1_0-98-98").write_bytes(b"")
    (timeline / "20260307135841500_20260307135841900.deltacommit").write_bytes(b"")
    (table / "region=us" / f".{us}_20260307135841500.log.1_0-99-99").write_bytes(b"")

    view = load_view(spark, table)
    assert len(view.timeline().pendingCompactions()) == 2
    base_us = f"{us}_1-3-7_20260307135827749.parquet"
    old_us_logs = [f".{us}_20260307135830801.log.1_0-10-23", f".{us}_20260307135832616.log.1_0-17-38"]
    new_us_log = f".{us}_20260307135841500.log.1_0-99-99"
    # raw slices: the compaction's own base file (written, not committed) is ignored; new logs open its slice
    assert raw_groups(view, "region=us")[us] == [
        ("20260307135827749", base_us, old_us_logs), (compaction, None, [new_us_log])]
    apac_raw = raw_groups(view, "region=apac")[apac]
    assert apac_raw[1] == (compaction, None, [f".{apac}_20260307135839500.log.1_0-98-98"])  # completed after
    # readers get the pending slice joined to the previous one
    latest = {(s.fileId()): s for s in view.latestFileSlices("region=us", None)}
    merged = latest[us]
    assert (merged.baseInstantTime(), merged.baseFile().name()) == ("20260307135827749", base_us)
    assert [log.name() for log in merged.logFiles()] == old_us_logs + [new_us_log]
    # files of instants no longer on the timeline (clustering, the last deltacommit) are invisible
    assert {s.fileId() for s in view.latestFileSlices("region=us", None)} == {
        us, "8fbe3fc8-a15f-4ffe-aac5-20024bdc863d-0"}
    # before the compaction was planned there is no pending slice
    assert [len(g) for g in raw_groups(view, "region=us", "20260307135839205").values()] == [1, 1]


def test_uncommitted_and_archived_base_files(spark, fixture_tables, tmp_path):
    table = copy_table(fixture_tables, "sample_table_cow__v8_nonpartitioned", tmp_path)
    timeline = table / ".hoodie" / "timeline"
    file_id = "2746610d-ad02-4adb-a038-5cbb99cbd455-0"
    (timeline / "20250713010537999.commit.requested").write_bytes(b"")
    (timeline / "20250713010537999.inflight").write_bytes(b"")
    (table / f"{file_id}_0-99-99_20250713010537999.parquet").write_bytes(b"")  # failed write
    old = "aaaaaaaa-0000-0000-0000-000000000000-0"
    (table / f"{old}_0-1-1_20200101000000000.parquet").write_bytes(b"")  # older than the active timeline
    (table / "bbbbbbbb-0000-0000-0000-000000000000-0_0-1-1_20300101000000000.parquet").write_bytes(b"")
    slices = {s.fileId(): s.baseFile().name() for s in load_view(spark, table).latestFileSlices(None)}
    assert slices == {file_id: f"{file_id}_0-75-100_20250713010536861.parquet",
                      old: f"{old}_0-1-1_20200101000000000.parquet"}


def test_as_of_must_be_an_instant_time(spark, fixture_tables):
    view = load_view(spark, fixture_tables[MOR_V9])
    with pytest.raises(Exception, match="as-of instant must be an instant time .*yyyyMMddHHmmssSSS"):
        view.latestFileSlices("2026-03-07 13:58")  # pyspark converts IllegalArgumentException


# ---------------------------------------------------------------- incremental

def test_commits_between_uses_completion_time(model, summary, fixture_tables):
    name = "sample_table_mor_avro__v9_txns_simple_meta"
    path = fixture_tables[name]
    instants = summary(name)["instants"]
    commits = sorted((i for i in instants if i["state"] == "COMPLETED" and i["action"] in COMMIT_ACTIONS),
                     key=lambda i: i["completionTime"])
    everything = json.loads(model.TableSummary.incrementalJson(path, None, None))
    assert everything["commits"] == [i["requestedTime"] for i in commits]
    begin, end = commits[2]["completionTime"], commits[6]["completionTime"]
    ranged = json.loads(model.TableSummary.incrementalJson(path, begin, end))
    assert ranged["commits"] == [i["requestedTime"] for i in commits[3:7]]
    # files: the write stats of those commits (hudi-rs decodes them), minus groups replaced in the range
    timeline = rs_table(path).get_timeline()
    rs_by_time = {i.timestamp: json.loads(timeline.get_instant_metadata_in_json(i)) for i in rs_completed(path)}
    metas = [rs_by_time[t] for t in ranged["commits"]]
    replaced = {(p, f) for m in metas for p, ids in (m.get("partitionToReplaceFileIds") or {}).items() for f in ids}
    expected = [(t, s["partitionPath"], s["fileId"], s["path"].rsplit("/", 1)[-1])
                for t, m in zip(ranged["commits"], metas)
                for ss in (m.get("partitionToWriteStats") or {}).values() for s in ss
                if (s["partitionPath"], s["fileId"]) not in replaced]
    got = [(f["instantTime"], f["partitionPath"], f["fileId"], f["fileName"]) for f in ranged["files"]]
    assert sorted(got) == sorted(expected) and got
    assert [f[0] for f in got] == sorted((f[0] for f in got), key=ranged["commits"].index)  # commit order


def test_commits_between_layout1_uses_requested_time(model, fixture_tables):
    path = fixture_tables["sample_table_cow__v6_simplekeygen_nonhivestyle_overwritetable"]
    result = json.loads(model.TableSummary.incrementalJson(path, "20240707001301554", None))
    assert result["commits"] == ["20240707001302376", "20240707001303088"]
    # the insert_overwrite_table replaced every earlier group; only its new file is left
    assert [f["fileName"] for f in result["files"]] == \
        ["ebcb261d-62d3-4895-90ec-5b3c9622dff4-0_0-111-154_20240707001303088.parquet"]


# ---------------------------------------------------------------- file names

def test_file_names_parse_and_format(model):
    names = model.FileNames
    base = names.parseBaseFile("fc77c22c-d464-4c45-969f-6fcc0305a792-0_1-13-25_20250713010139392.parquet", 42)
    assert (base.fileId(), base.writeToken(), base.instantTime(), base.extension(), base.size()) == \
        ("fc77c22c-d464-4c45-969f-6fcc0305a792-0", "1-13-25", "20250713010139392", "parquet", 42)
    assert names.baseFileName(base.fileId(), "1-13-25", "20250713010139392", ".parquet") == base.name()
    mdt = names.parseBaseFile("files-0000-0_0-5-4_00000000000000000.hfile", -1)
    assert (mdt.fileId(), mdt.extension()) == ("files-0000-0", "hfile")
    log = names.parseLogFile(".c3b646cc-8602-47c5-b010-3fe002241298-0_20260307162611195.log.1_0-157-346", 7)
    assert (log.fileId(), log.instantTime(), log.version(), log.writeToken(), log.suffix(), log.isCdc()) == \
        ("c3b646cc-8602-47c5-b010-3fe002241298-0", "20260307162611195", 1, "0-157-346", "", False)
    assert names.logFileName(log.fileId(), log.instantTime(), 1, "0-157-346") == log.name()
    assert names.parseLogFile(".f-0_20260307162611195.log.1_0-1-2.cdc", -1).isCdc()
    # "-cdc" never shipped in a Hudi release (tests/conformance/log_file_names.json)
    assert names.parseLogFile(".f-0_20260307162611195.log.1_0-1-2-cdc", -1) is None
    for other in [".hoodie_partition_metadata", ".DS_Store", ".f-0_1-2-3_20250101.parquet.crc",
                  ".commits_.archive.1_1-0-1", "README.md", "x_1-2-3_notatime.parquet"]:
        assert not names.isBaseFile(other) and not names.isLogFile(other), other
    assert names.isLogFile(".f-0_20250126040823628.log.2_1-0-1") and not names.isBaseFile(".f-0_20250126040823628.log.2_1-0-1")


def test_log_files_order_by_instant_version_token(spark, model):
    shuffled = [".f-0_20250102.log.1_0-1-1", ".f-0_20250101.log.10_0-1-1", ".f-0_20250101.log.2_1-0-1",
                ".f-0_20250101.log.2_0-9-9", ".f-0_20250101.log.1_5-0-0"]
    logs = spark._jvm.java.util.ArrayList()
    for name in shuffled:
        logs.add(model.FileNames.parseLogFile(name, -1))
    spark._jvm.java.util.Collections.sort(logs)
    assert [log.name() for log in logs] == [
        ".f-0_20250101.log.1_5-0-0", ".f-0_20250101.log.2_0-9-9", ".f-0_20250101.log.2_1-0-1",
        ".f-0_20250101.log.10_0-1-1", ".f-0_20250102.log.1_0-1-1"]


# ---------------------------------------------------------------- errors

def test_no_table_at_path(spark, tmp_path):
    with pytest.raises(Py4JJavaError) as excinfo:
        load_config(spark, tmp_path)
    kind, message = java_error(excinfo)
    assert kind == "TableNotFoundException"
    assert message.startswith("no Hudi table at ") and message.endswith("/.hoodie/hoodie.properties not found")
    assert str(tmp_path) in message


def _corrupt(spark, fixture_tables, tmp_path, edit):
    table = copy_table(fixture_tables, "sample_table_cow__v8_nonpartitioned", tmp_path)
    props = table / ".hoodie" / "hoodie.properties"
    props.write_bytes(edit(props.read_text()).encode("latin-1"))
    with pytest.raises(Py4JJavaError) as excinfo:
        load_config(spark, table)
    return java_error(excinfo)


@pytest.mark.parametrize("edit, expected", [
    (lambda t: "\\u12G4 not a properties file\n", "is not a valid properties file"),
    (lambda t: "complete garbage \x00\x01\x02\n", "hoodie.table.name is missing"),
    (lambda t: "\n".join(l for l in t.splitlines() if not l.startswith("hoodie.table.type=")),
     "hoodie.table.type is missing"),
    (lambda t: t.replace("hoodie.table.version=8", "hoodie.table.version=eight"),
     "hoodie.table.version is 'eight', not an integer"),
    (lambda t: t.replace("hoodie.table.checksum=", "hoodie.table.checksum=1"),
     "hoodie.table.checksum is 1"),
    (lambda t: t.replace("hoodie.table.name=v8_nonpartitioned", "hoodie.table.name=renamed"),
     "but CRC32 of 'default.renamed'"),
])
def test_corrupt_properties_name_file_and_key(spark, fixture_tables, tmp_path, edit, expected):
    kind, message = _corrupt(spark, fixture_tables, tmp_path, edit)
    assert kind == "CorruptTableException"
    assert expected in message
    assert ".hoodie/hoodie.properties" in message and "no hoodie.properties.backup" in message


def test_backup_is_used_when_the_main_file_is_bad(spark, fixture_tables, tmp_path):
    table = copy_table(fixture_tables, "sample_table_cow__v8_nonpartitioned", tmp_path)
    meta = table / ".hoodie"
    shutil.copy(meta / "hoodie.properties", meta / "hoodie.properties.backup")
    (meta / "hoodie.properties").write_text("hoodie.table.name=v8_nonpart")  # a torn write
    cfg = load_config(spark, table)
    assert cfg.sourceFile().getName() == "hoodie.properties.backup" and cfg.tableName() == "v8_nonpartitioned"
    (meta / "hoodie.properties").unlink()  # mid-update: only the backup exists
    assert load_config(spark, table).sourceFile().getName() == "hoodie.properties.backup"
