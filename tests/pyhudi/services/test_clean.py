"""Cleaning: the file versions each policy names go and nothing else (savepointed files, slices a
pending compaction needs stay), rows read the same through the connector and hudi-rs, the metadata
table agrees with storage, a clean that died is finished by the next run, and reads of cleaned
instants fail with a message that says how far back the table is readable (io.hudimeta.table.CleanHorizon)."""
from pathlib import Path

import pyarrow as pa
import pytest

from pyhudi import faults
from pyhudi.cli import main as cli
from pyhudi.config import OptionError
from pyhudi.hudi_table import HudiTable
from pyhudi.services import clean, compaction
from pyhudi.services.instant import ServiceTable
from pyhudi.table import file_names
from pyhudi.table import instant_metadata as im
from pyhudi.table.timeline import INFLIGHT, Instant

SCHEMA = "id string, ts long, region string, val string"
OPTS = {"hoodie.table.name": "cl", "hoodie.datasource.write.recordkey.field": "id",
        "hoodie.datasource.write.precombine.field": "ts", "hoodie.datasource.write.partitionpath.field": "region",
        "hoodie.clean.automatic": "false", "hoodie.archive.automatic": "false", "hoodie.compact.inline": "false"}
MOR = {**OPTS, "hoodie.datasource.write.table.type": "MERGE_ON_READ", "hoodie.metadata.enable": "false"}


class Boom(Exception):
    pass


def _boom():
    raise Boom()


def _rows(spark, ts, ids=range(4)):
    return spark.createDataFrame([(f"k{i}", ts, ("eu", "us")[i % 2], f"v{i}-{ts}") for i in ids], SCHEMA)


def _table(spark, path, commits, options=OPTS):
    """A table of `commits` upserts of the same keys: each one a new version of both file groups."""
    t = HudiTable(spark, path, options)
    return t, [t.upsert(_rows(spark, ts)) for ts in range(1, commits + 1)]


def _files(path, kind="base"):
    check = file_names.is_log if kind == "log" else file_names.is_base
    return {p.relative_to(path).as_posix() for p in Path(path).rglob("*")
            if ".hoodie" not in p.parts and check(p.name)}


def _instant_of(rel):
    name = rel.rsplit("/", 1)[-1]
    return (file_names.parse_log(name) if file_names.is_log(name) else file_names.parse_base(name)).instant


def _read(spark, path, **options):
    return {r["id"]: r["val"] for r in spark.read.format("hudi-meta").options(**options).load(path).collect()}


def _hudi_rs(path):
    from hudi import HudiTableBuilder
    t = pa.Table.from_batches(HudiTableBuilder.from_base_uri(path).build().read())
    return dict(zip(t.column("id").to_pylist(), t.column("val").to_pylist()))


def _timeline_names(path):
    return sorted(p.name for p in Path(path, ".hoodie", "timeline").iterdir() if p.is_file())


def _agrees(spark, path, expected):
    assert _read(spark, path) == expected
    assert _hudi_rs(path) == expected
    if ServiceTable.open(path).metadata_writer() is not None:
        assert cli(["metadata", "validate", path]) == 0


def test_keep_latest_commits_deletes_exactly_the_old_versions(spark, tmp_path, capsys):
    path = str(tmp_path / "t")
    _, (c1, c2, c3, c4) = _table(spark, path, 4)
    before, files = _read(spark, path), _files(path)
    assert {_instant_of(f) for f in files} == {c1, c2, c3, c4} and len(files) == 8

    assert cli(["clean", path, "--retain-commits", "2"]) == 0
    # the 2 last commits (c3, c4) stay readable; c2 is each group's version before them; c1 goes
    gone = files - _files(path)
    assert {_instant_of(f) for f in gone} == {c1} and len(gone) == 2
    printed = "".join(capsys.readouterr().out.split())  # rich wraps long lines
    assert all(f"deleted{f}" in printed for f in gone) and "2filesdeleted" in printed
    _agrees(spark, path, before)

    table = ServiceTable.open(path)
    done = [i for i in table.timeline.instants() if i.action == "clean"]
    assert len(done) == 1 and done[0].is_completed
    t = done[0].requested_time
    plan = im.decode(table.timeline.read(Instant(t, "clean", "requested")), im.CLEANER_PLAN)
    assert plan["earliestInstantToRetain"] == {"timestamp": c3, "action": "commit", "state": "COMPLETED"}
    assert (plan["policy"], plan["version"], plan["lastCompletedCommitTimestamp"]) == ("KEEP_LATEST_COMMITS", 2, c4)
    assert {p: [i["filePath"] for i in infos] for p, infos in plan["filePathsToBeDeletedPerPartition"].items()} == {
        f.split("/")[0]: [f"{path}/{f}"] for f in gone}
    assert table.timeline.read(Instant(t, "clean", INFLIGHT)) == b""  # Hudi 1.x leaves the inflight file empty
    meta = im.decode(table.timeline.read(done[0]), im.CLEAN)
    assert meta["startCleanTime"] == t and meta["totalFilesDeleted"] == 2 and meta["version"] == 2
    assert meta["earliestCommitToRetain"] == c3 and meta["lastCompletedCommitTimestamp"] == c4
    assert {p: (m["policy"], m["successDeleteFiles"], m["failedDeleteFiles"], m["isPartitionDeleted"])
            for p, m in meta["partitionMetadata"].items()} == {
        f.split("/")[0]: ("KEEP_LATEST_COMMITS", [f.split("/")[1]], [], False) for f in gone}

    # no commit since: nothing is due, nothing is written
    names = _timeline_names(path)
    assert clean.clean(path, {"hoodie.cleaner.commits.retained": "2"}) is None
    assert clean.clean_if_due(path, {"hoodie.cleaner.commits.retained": "2"}) is None
    assert _timeline_names(path) == names

    # reads of cleaned instants fail and say how far back the table is readable
    with pytest.raises(Exception) as err:
        _read(spark, path, **{"as.of.instant": c1})
    message = str(err.value)
    assert f"as.of.instant={c1}" in message and "earliest instant still readable" in message and c3 in message
    assert "hoodie.cleaner.commits.retained" in message
    assert _read(spark, path, **{"as.of.instant": c3}) == {f"k{i}": f"v{i}-3" for i in range(4)}
    incremental = {"hoodie.datasource.query.type": "incremental"}
    with pytest.raises(Exception, match=f"hoodie.datasource.read.begin.instanttime={c1}.*older than {c3}"):
        _read(spark, path, **incremental, **{"hoodie.datasource.read.begin.instanttime": c1})
    assert len(_read(spark, path, **incremental, **{"hoodie.datasource.read.begin.instanttime": c3})) == 4
    jvm = spark._jvm
    jpath = jvm.org.apache.hadoop.fs.Path(path)
    fs = jpath.getFileSystem(spark._jsc.hadoopConfiguration())
    horizon = jvm.io.hudimeta.table.CleanHorizon.of(
        jvm.io.hudimeta.table.Timeline.load(fs, jpath, jvm.io.hudimeta.table.TableConfig.load(fs, jpath)))
    assert horizon.earliestReadable() == c3 and horizon.clean() == t


def test_file_versions_keep_savepointed_files_and_the_trigger_waits(spark, tmp_path):
    path = str(tmp_path / "t")
    t, (c1, c2, c3) = _table(spark, path, 3)
    before, files = _read(spark, path), _files(path)
    saved = {f for f in files if _instant_of(f) == c1}
    _savepoint(path, c1, saved)
    options = {"hoodie.cleaner.policy": "KEEP_LATEST_FILE_VERSIONS", "hoodie.cleaner.fileversions.retained": "1"}
    assert t.clean(options) is not None
    # one version kept (c3), and the savepointed c1 files
    assert _files(path) == {f for f in files if _instant_of(f) in (c1, c3)}
    _agrees(spark, path, before)
    table = ServiceTable.open(path)
    last = [i for i in table.timeline.instant_files() if i.action == "clean" and i.is_completed][-1]
    meta = im.decode(table.timeline.read(last), im.CLEAN)
    assert meta["earliestCommitToRetain"] == "" and meta["extraMetadata"] == {"savepointed_timestamps": c1}
    # time travel after a file-versions clean is not refused (Hudi records no horizon); the savepoint reads
    assert _read(spark, path, **{"as.of.instant": c1}) == {f"k{i}": f"v{i}-1" for i in range(4)}

    t.upsert(_rows(spark, 4))
    waiting = {**options, "hoodie.clean.max.commits": "2"}
    assert clean.clean_if_due(path, waiting) is None  # one commit since the last clean, two asked for
    c5 = t.upsert(_rows(spark, 5))
    assert clean.clean_if_due(path, waiting) is not None
    assert {_instant_of(f) for f in _files(path)} == {c1, c5}


def _savepoint(path, commit_time, files):
    """A completed savepoint of `commit_time` keeping `files` (as Hudi's SavepointActionExecutor writes it)."""
    table = ServiceTable.open(path)
    by_partition = {}
    for f in sorted(files):
        partition, name = f.rsplit("/", 1)
        by_partition.setdefault(partition, []).append(name)
    meta = {"savepointedBy": "test", "savepointedAt": 0, "comments": "",
            "partitionMetadata": {p: {"partitionPath": p, "savepointDataFile": ns} for p, ns in by_partition.items()},
            "version": 1}
    inflight = Instant(commit_time, "savepoint", INFLIGHT)
    table.storage.create_if_absent(f"{table.timeline.dir}/{inflight.file_name()}", b"")
    table.timeline.complete(inflight, im.encode(im.SAVEPOINT, meta))


def test_a_clean_that_died_is_finished_by_the_next_run(spark, tmp_path):
    path = str(tmp_path / "t")
    t, (c1, c2, c3) = _table(spark, path, 3)
    before, files = _read(spark, path), _files(path)
    options = {"hoodie.cleaner.commits.retained": "1"}
    with faults.at("after_requested", _boom), pytest.raises(Boom):
        clean.clean(path, options)
    pending = [i for i in ServiceTable.open(path).timeline.instants() if i.action == "clean"]
    assert [i.state for i in pending] == ["requested"] and _files(path) == files
    assert _read(spark, path) == before
    done = clean.clean(path, options)  # finishes that plan; nothing new is due after it
    assert done.requested_time == pending[0].requested_time and done.is_completed
    assert {_instant_of(f) for f in files - _files(path)} == {c1}
    _agrees(spark, path, before)

    c4 = t.upsert(_rows(spark, 4))
    before, files = _read(spark, path), _files(path)
    with faults.at("after_files", _boom), pytest.raises(Boom):  # files gone, metadata table not told yet
        clean.clean(path, options)
    assert {_instant_of(f) for f in files - _files(path)} == {c2}
    done = clean.clean_if_due(path, options)
    meta = im.decode(ServiceTable.open(path).timeline.read(done), im.CLEAN)
    assert meta["totalFilesDeleted"] == 2 and meta["earliestCommitToRetain"] == c4  # a file already gone counts
    _agrees(spark, path, before)


def test_merge_on_read_slices_and_a_pending_compaction(spark, tmp_path):
    """Without a metadata table: the files come from storage listings."""
    path = str(tmp_path / "t")
    t = HudiTable(spark, path, MOR)
    c1 = t.insert(_rows(spark, 1))
    t.upsert(_rows(spark, 2, ids=[0, 1]))  # log files on the c1 slices
    c3 = compaction.compact(spark, path, MOR)[0]
    t.upsert(_rows(spark, 4, ids=[2, 3]))  # log files on the compacted slices
    before, bases, logs = _read(spark, path), _files(path), _files(path, "log")
    options = {"hoodie.cleaner.policy": "KEEP_LATEST_FILE_VERSIONS", "hoodie.cleaner.fileversions.retained": "1"}
    assert clean.clean(path, options) is not None
    old = {f for f in bases | logs if _instant_of(f) < c3}  # the c1 slices: base files and their logs
    assert {_instant_of(f) for f in bases if f in old} == {c1} and any(f in old for f in logs)
    assert (bases | logs) - (_files(path) | _files(path, "log")) == old
    _agrees(spark, path, before)

    # a compaction planned on the latest slices: they stay, and with them nothing is old enough
    assert compaction.compact(spark, path, MOR, schedule_only=True)
    t.upsert(_rows(spark, 5, ids=[0]))
    kept = _files(path) | _files(path, "log")
    assert clean.clean(path, options) is None
    assert _files(path) | _files(path, "log") == kept
    table = ServiceTable.open(path)
    assert table.metadata_writer() is None
    everywhere = clean._listing(table, clean._Timeline(table), None)
    assert clean._listing(table, clean._Timeline(table), {"eu"}) == {"eu": everywhere["eu"]}


def test_option_errors_and_nothing_to_clean(spark, tmp_path, capsys):
    path = str(tmp_path / "t")
    t, _ = _table(spark, path, 1)
    with pytest.raises(OptionError, match="hoodie.cleaner.policy=KEEP_SOME is not valid; valid values: "
                                          "KEEP_LATEST_COMMITS, KEEP_LATEST_FILE_VERSIONS, KEEP_LATEST_BY_HOURS"):
        clean.clean(path, {"hoodie.cleaner.policy": "KEEP_SOME"})
    assert cli(["clean", path, "--option", "hoodie.cleaner.commits.retained=0"]) == 2
    assert "hoodie.cleaner.commits.retained=0 is not valid" in capsys.readouterr().out
    names = _timeline_names(path)
    assert t.clean() is None and clean.clean_if_due(path, OPTS) is None
    for policy in ("KEEP_LATEST_FILE_VERSIONS", "KEEP_LATEST_BY_HOURS"):
        assert cli(["clean", path, "--policy", policy, "--retain-versions", "1"]) == 0
        assert "nothing to clean" in capsys.readouterr().out
    assert _timeline_names(path) == names  # nothing written


def test_earliest_commit_to_retain_by_policy():
    import datetime as dt

    def inst(t, state="completed", action="commit"):
        return Instant(t, action, state, t + "9" if state == "completed" else None)

    class Fake:
        pass

    tl = Fake()
    tl.commits = [inst("20240101000000000"), inst("20240101100000000"), inst("20240101200000000"),
                  inst("20240102000000000")]
    tl.pending = []
    by = {"hoodie.cleaner.commits.retained": "2"}
    assert clean.earliest_commit_to_retain(tl, clean._Policy.of(by), {}).requested_time == "20240101200000000"
    tl.pending = [inst("20240101150000000", "inflight", "deltacommit")]  # never past a write still running
    assert clean.earliest_commit_to_retain(tl, clean._Policy.of(by), {}).requested_time == "20240101100000000"
    tl.pending = []
    hours = clean._Policy.of({"hoodie.cleaner.policy": "KEEP_LATEST_BY_HOURS", "hoodie.cleaner.hours.retained": "8"})
    now = dt.datetime(2024, 1, 2, 3)
    assert clean.earliest_commit_to_retain(tl, hours, {}, now).requested_time == "20240101200000000"
    assert clean.earliest_commit_to_retain(tl, clean._Policy.of({"hoodie.cleaner.commits.retained": "4"}), {}) is None


def test_a_partition_emptied_by_delete_partition_goes_with_its_files(spark, tmp_path):
    """Hudi's CleanPlanner: once every file group of a partition is replaced and cleanable, the partition itself
    is deleted (`partitionsToBeDeleted`) and the metadata table's partition list drops it; not while a write is
    pending, which could be writing into it."""
    path = str(tmp_path / "t")
    t, _ = _table(spark, path, 1)
    t.delete_partition(["eu"])
    t.upsert(_rows(spark, 2, ids=[1]))
    expected = {"k1": "v1-2", "k3": "v3-1"}
    assert _read(spark, path) == expected
    table = ServiceTable.open(path)
    writing = table.timeline.create_requested("commit")
    assert clean.plan(table, {"hoodie.cleaner.commits.retained": "1"})["partitionsToBeDeleted"] == []
    Path(path, ".hoodie", "timeline", f"{writing.requested_time}.commit.requested").unlink()

    done = clean.clean(path, {"hoodie.cleaner.commits.retained": "1"})
    table = ServiceTable.open(path)
    plan = im.decode(table.timeline.read(Instant(done.requested_time, "clean", "requested")), im.CLEANER_PLAN)
    assert plan["partitionsToBeDeleted"] == ["eu"]
    meta = im.decode(table.timeline.read(done), im.CLEAN)
    assert meta["partitionMetadata"]["eu"]["isPartitionDeleted"] is True
    assert not Path(path, "eu").exists() and Path(path, "us").is_dir()
    _agrees(spark, path, expected)
    from pyhudi.metadata import reader as mdt_reader
    assert sorted(mdt_reader.files_listing(table.metadata_writer().state())) == ["us"]


def test_an_empty_clean_gives_the_next_clean_a_horizon(spark, tmp_path, monkeypatch):
    """hoodie.write.empty.clean.interval.hours: a table whose file groups never get a second slice (inserts into
    new partitions) has nothing to clean; without an empty clean every clean looks at every partition, with one
    only at the partitions written since its earliest commit to retain."""
    path = str(tmp_path / "t")
    t = HudiTable(spark, path, OPTS)
    for n in range(4):
        t.insert(spark.createDataFrame([(f"k{n}", n, f"r{n}", "v")], SCHEMA))
    looked_at = []
    real = clean._listing
    monkeypatch.setattr(clean, "_listing",
                        lambda table, tl, parts, quiet: looked_at.append(parts) or real(table, tl, parts, quiet))
    retain = {"hoodie.cleaner.commits.retained": "2"}
    assert clean.clean(path, retain) is None and looked_at == [None]  # no clean yet: every partition
    assert not [n for n in _timeline_names(path) if ".clean" in n]
    with pytest.raises(OptionError, match="hoodie.write.empty.clean.interval.hours=-2 is not valid"):
        clean.clean(path, {**retain, "hoodie.write.empty.clean.interval.hours": "-2"})

    every_time = {**retain, "hoodie.write.empty.clean.interval.hours": "0"}
    done = clean.clean(path, every_time)
    assert done is not None and done.is_completed
    meta = im.decode(ServiceTable.open(path).timeline.read(done), im.CLEAN)
    commits = sorted(i.requested_time for i in ServiceTable.open(path).timeline.completed(("commit",)))
    assert meta["totalFilesDeleted"] == 0 and meta["partitionMetadata"] == {}
    assert meta["earliestCommitToRetain"] == commits[2]  # the 3rd of 4: 2 retained
    t.insert(spark.createDataFrame([("k9", 9, "r1", "v")], SCHEMA))
    looked_at.clear()
    clean.clean(path, {**every_time, "hoodie.write.empty.clean.interval.hours": "24"})  # the last one is recent
    assert looked_at == [{"r2"}]  # written by the commits leaving the window since: commits[2], into r2
    assert len([n for n in _timeline_names(path) if n.endswith(".clean")]) == 1  # none written: too soon
    assert _read(spark, path) == {"k0": "v", "k1": "v", "k2": "v", "k3": "v", "k9": "v"}


def _plan_seeing(path, options):
    said = []
    plan = clean.plan(ServiceTable.open(path), options, said.append)
    return plan, said[-1]


@pytest.mark.parametrize("mdt", ["true", "false"])
def test_a_full_look_again_skips_the_partitions_found_quiet_and_plans_the_same(spark, tmp_path, mdt):
    """With no earlier clean every plan looks at every partition. A process that looked before skips the
    partitions it found with one file per file group, unless a write completed since wrote into them: the plan
    is the one a fresh look makes, after every step."""
    path = str(tmp_path / "t")
    opts = {**OPTS, "hoodie.metadata.enable": mdt}
    by = {"hoodie.cleaner.commits.retained": "1"}
    t = HudiTable(spark, path, opts)
    t.upsert(_rows(spark, 1))  # eu: k0, k2; us: k1, k3; one file each
    t.upsert(_rows(spark, 2, ids=[0, 2]))  # eu's file group gets a second file
    clean.quiet_partitions.forget()
    first, said = _plan_seeing(path, by)
    assert first is None and "(KEEP_LATEST_COMMITS; 0 known quiet)" in said
    steps = [lambda: t.upsert(_rows(spark, 3, ids=[0, 2])),  # eu's first file may go now; us still quiet
             lambda: t.delete_partition(["us"]),  # us's file group replaced: looked at again
             lambda: t.upsert(_rows(spark, 4, ids=[0]))]
    for step, quiet_then in zip(steps, (1, 0, 0)):
        step()
        remembered, said = _plan_seeing(path, by)
        assert f"; {quiet_then} known quiet)" in said
        clean.quiet_partitions.forget(ServiceTable.open(path).uri)
        fresh, said = _plan_seeing(path, by)
        assert "; 0 known quiet)" in said and remembered == fresh
    assert sorted(fresh["filePathsToBeDeletedPerPartition"]) == ["eu", "us"]
    assert fresh["partitionsToBeDeleted"] == ["us"]
