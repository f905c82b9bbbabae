"""Archival into the LSM timeline history: the history's bytes as Apache Hudi 1.x lays them out
(Parquet of HoodieLSMTimelineInstant, Jackson manifests, `_version_`), level compaction and cleaning,
crash safety; Hudi's rules on hand-made timelines (max/min commits, pending instants, savepoints,
compaction, clustering, cleaning); and a real copy-on-write table with a metadata table: bounded active
timeline, rows through the connector and hudi-rs, the metadata table valid, time travel and incremental
reads into archived commits, every archived instant read back exactly."""
import json
import re
from pathlib import Path

import fastavro
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from pyhudi import faults
from pyhudi.cli import main as cli
from pyhudi.config import OptionError
from pyhudi.hudi_table import HudiTable
from pyhudi.services import archival
from pyhudi.services.instant import ServiceTable
from pyhudi.storage import Storage
from pyhudi.table import instant_metadata as im
from pyhudi.table import lsm_timeline as lsm
from pyhudi.table import properties
from pyhudi.table.timeline import Instant, Timeline

NAME = re.compile(r"[0-9]{17}_[0-9]{17}_[0-9]\.parquet")


class Boom(Exception):
    pass


def _boom():
    raise Boom()


# ---- the history's files ---------------------------------------------------------------------------

def test_manifest_is_jacksons_pretty_printed_pojo():
    assert lsm.manifest_json([]) == '{\n  "files" : [ ]\n}'
    entries = [lsm.FileEntry("1_2_0.parquet", 10), lsm.FileEntry("3_4_0.parquet", 20)]
    text = lsm.manifest_json(entries)
    assert text == ('{\n  "files" : [ {\n    "fileName" : "1_2_0.parquet",\n    "fileLen" : 10\n  }, {\n'
                    '    "fileName" : "3_4_0.parquet",\n    "fileLen" : 20\n  } ]\n}')
    assert lsm.parse_manifest(text) == entries
    assert lsm.parse_manifest('{"files":[{"fileName":"5_6_1.parquet","fileLen":3,"other":1}],"x":2}') == \
        [lsm.FileEntry("5_6_1.parquet", 3)]
    assert lsm.parse_data_file("20240101000000000_20240102000000000_1.parquet") == \
        ("20240101000000000", "20240102000000000", 1)
    assert lsm.parse_data_file("manifest_1") is None and lsm.parse_data_file("1_2_10.parquet") is None


def test_history_file_is_parquet_of_hoodie_lsm_timeline_instant(tmp_path):
    rows = [lsm.ArchivedInstant("20240101000000001", "20240101000000002", "commit", b"meta", None),
            lsm.ArchivedInstant("20240101000000003", None, "clean", None, b"plan")]
    data = lsm.encode_file(rows)
    f = pq.ParquetFile(pa.BufferReader(data))
    assert [(c.name, c.physical_type, c.max_repetition_level, c.max_definition_level) for c in f.schema] == [
        ("instantTime", "BYTE_ARRAY", 0, 1), ("completionTime", "BYTE_ARRAY", 0, 1), ("action", "BYTE_ARRAY", 0, 1),
        ("metadata", "BYTE_ARRAY", 0, 1), ("plan", "BYTE_ARRAY", 0, 1), ("version", "INT32", 0, 0)]
    assert str(f.schema.column(0).logical_type) == "String" and str(f.schema.column(3).logical_type) == "None"
    footer = {k.decode(): v.decode() for k, v in f.metadata.metadata.items()}
    assert footer["writer.model.name"] == "avro"
    avro = json.loads(footer["parquet.avro.schema"])
    assert (avro["name"], avro["namespace"]) == ("HoodieLSMTimelineInstant", "org.apache.hudi.avro.model")
    assert [x["name"] for x in avro["fields"]] == list(lsm.FIELDS)
    assert avro["fields"][5] == {"name": "version", "type": "int", "default": 1}
    fastavro.parse_schema(avro)
    assert lsm.decode_file(data) == rows
    assert [r.metadata for r in lsm.decode_file(data, columns=("instantTime", "action"))] == [None, None]


def _history(tmp_path):
    storage, base = Storage.for_uri(str(tmp_path / "h"))
    return lsm.LSMTimeline(storage, base), Path(base)


def _row(t):
    return lsm.ArchivedInstant(f"2024010100000{t:04d}", f"2024010100000{t:04d}", "commit", str(t).encode())


def test_levels_merge_upwards_and_unreferenced_files_go(tmp_path):
    h, folder = _history(tmp_path)
    for t in range(1, 10):
        h.write([_row(2 * t), _row(2 * t + 1)])
        h.compact_and_clean(batch_size=3)
    names = h.file_names()
    levels = sorted(lsm.parse_data_file(n)[2] for n in names)
    assert levels == [2]  # 9 files: 3 x L0 -> 3 x L1 -> 1 x L2
    assert names == ["20240101000000002_20240101000000019_2.parquet"]
    assert [int(r.metadata) for r in h.instants()] == list(range(2, 20))
    on_disk = sorted(p.name for p in folder.iterdir())
    kept = [f"manifest_{v}" for v in h.versions()]
    assert len(kept) <= lsm.RETAINED_VERSIONS + 2 and (folder / "_version_").read_text() == str(h.latest_version())
    referenced = {e.name for v in h.versions() for e in h.manifest(v)}
    assert {n for n in on_disk if n.endswith(".parquet")} == referenced
    assert [r.instant_time for r in h.instants("20240101000000005", "20240101000000008")] == \
        [f"2024010100000{t:04d}" for t in range(5, 9)]


def test_a_crash_at_any_step_leaves_the_last_version_readable(tmp_path):
    h, folder = _history(tmp_path)
    h.write([_row(1), _row(2)])
    # died after the data file: readers see version 1; the next run replaces the file
    (folder / "20240101000000003_20240101000000004_0.parquet").write_bytes(b"half a parquet file")
    assert [r.instant_time for r in h.instants()] == ["20240101000000001", "20240101000000002"]
    # died after manifest 2, before _version_: still version 1
    (folder / "manifest_2").write_text('{"files":[]}')
    assert h.latest_version() == 1 and len(h.instants()) == 2
    h.write([_row(3), _row(4)])
    assert h.latest_version() == 2 and [int(r.metadata) for r in h.instants()] == [1, 2, 3, 4]
    # the same instants again (a run that died before deleting the active files): nothing new
    assert h.write([_row(3), _row(4)]) == "20240101000000003_20240101000000004_0.parquet"
    assert h.latest_version() == 2
    # _version_ lost: the highest manifest
    (folder / "_version_").unlink()
    assert h.latest_version() == 2 and len(h.instants()) == 4


# ---- Hudi's rules, on hand-made timelines ---------------------------------------------------------

CREATE_SCHEMA = '{"type":"record","name":"r","fields":[{"name":"id","type":"string"}]}'
KEEP = {"hoodie.keep.min.commits": "3", "hoodie.keep.max.commits": "5", "hoodie.cleaner.commits.retained": "2"}


def _timeline(tmp_path, table_type="COPY_ON_WRITE"):
    storage, base = Storage.for_uri(str(tmp_path / "t"))
    props = properties.v8_defaults("hand", table_type, ["id"], [], None, CREATE_SCHEMA, "NON_PARTITION",
                                   False, False)
    properties.save(storage, base, props)
    return base, Timeline.for_table(storage, base, props)


def _stats(file_id="fg1"):
    return {"": [im.write_stat(fileId=file_id, path=f"{file_id}_0-0-0_x.parquet", partitionPath="")]}


def _write(tl, action="commit", file_id="fg1"):
    """A completed write: empty requested file, inflight and completed commit metadata."""
    r = tl.create_requested(action, b"" if action != "replacecommit" else im.encode(
        im.REQUESTED_REPLACE, {"operationType": "INSERT_OVERWRITE", "clusteringPlan": None, "extraMetadata": {},
                               "version": 1}))
    i = tl.transition_to_inflight(r, im.encode(im.COMMIT, im.commit_metadata({}, "UPSERT", None)))
    if action == "replacecommit":
        return tl.complete(i, im.encode(im.REPLACE_COMMIT, im.replace_commit_metadata(
            _stats(file_id), "INSERT_OVERWRITE", "{}", {"": ["old"]})))
    return tl.complete(i, im.encode(im.COMMIT, im.commit_metadata(_stats(file_id), "UPSERT", "{}")))


def _clean(tl, retain):
    plan = {"earliestInstantToRetain": {"timestamp": retain, "action": "commit", "state": "COMPLETED"},
            "policy": "KEEP_LATEST_COMMITS", "filesToBeDeletedPerPartition": {}, "version": 2,
            "filePathsToBeDeletedPerPartition": {}, "partitionsToBeDeleted": []}
    r = tl.create_requested("clean", im.encode(im.CLEANER_PLAN, plan))
    i = tl.transition_to_inflight(r, b"")
    return tl.complete(i, im.encode(im.CLEAN, {
        "policy": "KEEP_LATEST_COMMITS", "startCleanTime": r.requested_time, "timeTakenInMillis": 1,
        "totalFilesDeleted": 0, "earliestCommitToRetain": retain, "lastCompletedCommitTimestamp": retain,
        "partitionMetadata": {}, "version": 2, "bootstrapPartitionMetadata": {}}))


def _times(instants):
    """Requested times of active (Instant) or archived (ArchivedInstant) instants."""
    return [i.instant_time if isinstance(i, lsm.ArchivedInstant) else i.requested_time for i in instants]


def _active(tl, actions=("commit", "deltacommit", "replacecommit")):
    return [i.requested_time for i in tl.completed(actions)]


def test_oldest_commits_go_past_max_down_to_min_with_the_cleans_before_them(tmp_path):
    base, tl = _timeline(tmp_path)
    commits = [_write(tl).requested_time for _ in range(5)]
    assert archival.archive(base, KEEP) == [] and archival.archive_if_due(base, KEEP) == []
    clean = _clean(tl, commits[3])
    commits += [_write(tl).requested_time for _ in range(2)]
    files_before = {p.name: p.read_bytes() for p in Path(tl.dir).iterdir() if p.is_file()}
    done = archival.archive_if_due(base, KEEP)
    # 7 commits > 5: the oldest go until 3 remain - past the last clean's earliest commit to retain (commits[3]):
    # Apache Hudi 1.x's archiver has no bound there, only the cleaner's retained commits (2 here, 3 kept)
    assert _times(done) == commits[:4]
    assert _active(tl) == commits[4:] and _times(tl.completed(("clean",))) == [clean.requested_time]
    later_clean = _clean(tl, commits[6])
    commits += [_write(tl).requested_time for _ in range(3)]
    done = archival.archive(base, KEEP)
    # 6 > 5 again: down to 3; the clean made between commits[4] and commits[5] goes with the commits around it
    assert _times(done) == sorted([*commits[4:7], clean.requested_time])
    assert _active(tl) == commits[7:] and _times(tl.completed(("clean",))) == [later_clean.requested_time]
    names = sorted(p.name for p in (Path(tl.dir) / "history").iterdir())
    assert all(NAME.fullmatch(n) for n in names if n.endswith(".parquet")) and "_version_" in names
    # each archived action's row holds its completed file, and a clean its plan
    rows = {r.instant_time: r for r in archival.archived_instants(base)}
    assert sorted(rows) == sorted(commits[:7] + [clean.requested_time])
    for t in commits[:3]:
        done_name = next(n for n in files_before if n.startswith(t + "_") and n.endswith(".commit"))
        assert rows[t].metadata == files_before[done_name] and rows[t].plan is None
        assert rows[t].completion_time == done_name.split("_")[1].split(".")[0] and rows[t].version == 1
    assert rows[clean.requested_time].plan == files_before[f"{clean.requested_time}.clean.requested"]
    assert im.decode(rows[clean.requested_time].metadata, im.CLEAN)["earliestCommitToRetain"] == commits[3]
    # the active files of archived instants are gone, every state of them
    assert not [p for p in Path(tl.dir).iterdir() if p.name[:17] in rows]


def test_a_pending_instant_or_a_savepoint_stops_archival(tmp_path):
    base, tl = _timeline(tmp_path)
    keep = {**KEEP, "hoodie.cleaner.policy": "KEEP_LATEST_FILE_VERSIONS"}  # (a pending write raises the cleaner's
    commits = [_write(tl).requested_time for _ in range(4)]              # retained commits, and keep.min with them)
    pending = tl.create_requested("commit")
    commits += [_write(tl).requested_time for _ in range(4)]
    # never at or past the pending instant, nor the last completed commit before it
    assert _times(archival.archive_if_due(base, keep)) == commits[:3]
    assert _active(tl)[0] == commits[3] and pending in tl.pending()
    tl.delete_pending(pending)
    savepoint = Instant(commits[5], "savepoint", "inflight")
    tl.storage.create_if_absent(f"{tl.dir}/{savepoint.file_name()}", b"")
    tl.complete(savepoint, im.encode(im.SAVEPOINT, {"savepointedBy": "t", "savepointedAt": 1, "comments": "",
                                                    "partitionMetadata": {}}))
    commits += [_write(tl).requested_time for _ in range(2)]
    archival.archive(base, keep)
    assert _active(tl)[0] == commits[5]  # the savepointed commit and what follows stay
    with pytest.raises(OptionError, match="hoodie.archive.beyond.savepoint"):
        archival.archive(base, {**KEEP, "hoodie.archive.beyond.savepoint": "true"})
    with pytest.raises(ValueError, match="hoodie.keep.max.commits=3 to be greater than hoodie.keep.min.commits=3"):
        archival.archive(base, {"hoodie.keep.min.commits": "3", "hoodie.keep.max.commits": "3"})


def test_merge_on_read_keeps_the_last_compaction_and_replacecommits_not_cleaned_after(tmp_path):
    base, tl = _timeline(tmp_path, "MERGE_ON_READ")
    deltas = [_write(tl, "deltacommit").requested_time for _ in range(3)]
    plan = {"operations": [], "extraMetadata": {}, "version": 2, "strategy": None, "preserveHoodieMetadata": True,
            "missingSchedulePartitions": []}
    r = tl.create_requested("compaction", im.encode(im.COMPACTION_PLAN, plan))
    compaction = tl.complete(tl.transition_to_inflight(r, b""), im.encode(im.COMMIT, im.commit_metadata(
        _stats(), "COMPACT", "{}", compacted=True)))
    replace = _write(tl, "replacecommit")
    more = [_write(tl, "deltacommit").requested_time for _ in range(3)]
    snapshot = {p.name: p.read_bytes() for p in Path(tl.dir).iterdir() if p.is_file()}
    opts = {**KEEP, "hoodie.keep.min.commits": "1", "hoodie.keep.max.commits": "2"}
    done = archival.archive(base, opts)
    assert _times(done) == deltas  # not the compaction: the trigger counts delta commits after it
    rows = {r.instant_time: r for r in archival.archived_instants(base)}
    assert all(rows[t].action == "deltacommit" for t in deltas)
    # with a clean retaining from after the replacecommit and compaction, both go; the compaction's
    # row keeps its plan, the replacecommit's its inflight metadata
    _clean(tl, more[0])
    opts["hoodie.compact.inline.max.delta.commits"] = "1"
    done = archival.archive(base, opts)
    assert _times(done) == [compaction.requested_time, replace.requested_time]
    rows = {r.instant_time: r for r in archival.archived_instants(base)}
    c, rc = rows[compaction.requested_time], rows[replace.requested_time]
    assert (c.action, rc.action) == ("commit", "replacecommit")
    assert c.plan == snapshot[f"{compaction.requested_time}.compaction.requested"]
    assert c.metadata == snapshot[compaction.file_name()]
    assert rc.plan == snapshot[f"{replace.requested_time}.replacecommit.inflight"]
    assert rc.metadata == snapshot[replace.file_name()]


def test_a_crash_after_the_history_is_written_is_finished_by_the_next_run(tmp_path):
    base, tl = _timeline(tmp_path)
    commits = [_write(tl).requested_time for _ in range(7)]
    with faults.at("after_files", _boom), pytest.raises(Boom):
        archival.archive(base, KEEP)
    # the history holds the instants, the active timeline still does too: readers see every commit
    assert _times(archival.archived_instants(base)) == commits[:4] and _active(tl) == commits
    assert archival.archive(base, {**KEEP, "hoodie.keep.min.commits": "4"}) == []
    assert _active(tl) == commits[4:]
    history = Path(tl.dir) / "history"
    assert len([n for n in history.iterdir() if n.suffix == ".parquet"]) == 1
    assert _times(archival.archived_instants(base)) == commits[:4]


def test_history_compacts_across_archivals_and_cli_lists_it(tmp_path, capsys):
    base, tl = _timeline(tmp_path)
    opts = {"hoodie.keep.min.commits": "1", "hoodie.keep.max.commits": "2",
            "hoodie.timeline.compaction.batch.size": "2",
            "hoodie.cleaner.policy": "KEEP_LATEST_FILE_VERSIONS"}  # no cleaner bound raising keep.min
    commits = []
    for _ in range(6):
        commits += [_write(tl).requested_time for _ in range(3)]
        archival.archive(base, opts)
    history = lsm.LSMTimeline.for_table(tl.storage, base, properties.load(tl.storage, base))
    levels = [lsm.parse_data_file(n)[2] for n in history.file_names()]
    assert max(levels) == 2 and _times(archival.archived_instants(base)) == commits[:-1]
    assert history.versions()[-1] == history.latest_version()
    assert cli(["timeline", base, "--archived"]) == 0
    out = capsys.readouterr().out
    assert out.count("archived") >= len(commits) - 1 and commits[0] in out
    commits += [_write(tl).requested_time for _ in range(2)]
    assert cli(["archive", base, "--min-commits", "1", "--max-commits", "2"]) == 0
    out = capsys.readouterr().out
    assert f"archived commit {commits[-3]}" in out and f"archived commit {commits[-2]}" in out


# ---- a real table -------------------------------------------------------------------------------------

SCHEMA = "id string, ts long, region string, val string"
OPTS = {"hoodie.table.name": "arch", "hoodie.datasource.write.recordkey.field": "id",
        "hoodie.datasource.write.precombine.field": "ts", "hoodie.datasource.write.partitionpath.field": "region",
        "hoodie.upsert.shuffle.parallelism": "2", "hoodie.clean.automatic": "false",
        # the tests archive by hand (one archival dies on purpose); writes do not archive inline
        "hoodie.archive.automatic": "false", "hoodie.metadata.compact.max.delta.commits": "3", **KEEP}
WRITES = 12


def _rows(n):
    """Write n: every third key from n % 4, so keys keep their last values across writes."""
    return [(f"k{i}", n, ("eu", "us")[i % 2], f"v{i}-{n}") for i in range(n % 4, 12, 3)]


def _read(spark, path, **options):
    df = spark.read.format("hudi-meta").options(**options).load(path)
    return {r["id"]: r["val"] for r in df.select("id", "val").collect()}


def _hudi_rs(path):
    from hudi import HudiTableBuilder
    theirs = pa.Table.from_batches(HudiTableBuilder.from_base_uri(path).build().read())
    return dict(zip(theirs.column("id").to_pylist(), theirs.column("val").to_pylist()))


def test_copy_on_write_table_with_metadata_table(spark, tmp_path):
    path = str(tmp_path / "cow")
    table = HudiTable(spark, path, OPTS)
    states, instants, files = [], [], {}
    state: dict[str, str] = {}
    most_active, crashed = 0, False
    for n in range(WRITES):
        rows = _rows(n)
        instants.append(table.upsert(spark.createDataFrame(rows, SCHEMA)))
        state.update({r[0]: r[3] for r in rows})
        states.append(dict(state))
        timeline = Path(path) / ".hoodie" / "timeline"
        files.update({p.name: p.read_bytes() for p in timeline.iterdir() if p.is_file()})
        if crashed:
            archival.archive_if_due(path, OPTS)
        else:  # the first archival dies once the history is written, before any active file goes
            try:
                with faults.at("after_files", _boom):
                    archival.archive_if_due(path, OPTS)
            except Boom:
                crashed = True
                assert _read(spark, path) == state and _hudi_rs(path) == state
                archival.archive_if_due(path, OPTS)  # finishes it
        most_active = max(most_active, len(ServiceTable.open(path).timeline.completed()))
    assert crashed
    tl = ServiceTable.open(path).timeline
    archived = archival.archived_instants(path)
    assert len({r.instant_time for r in archived}) == len(archived) >= 6
    assert most_active <= 5 + 3  # bounded: max commits, plus the metadata table's lag
    assert _times(tl.completed()) == [t for t in instants if t not in {r.instant_time for r in archived}]
    history = Path(path) / ".hoodie" / "timeline" / "history"
    assert all(NAME.fullmatch(p.name) for p in history.glob("*.parquet")) and (history / "_version_").is_file()
    assert list((Path(path) / ".hoodie" / "metadata" / ".hoodie" / "timeline" / "history").glob("*.parquet"))
    # every archived instant reads back as the files it had
    for r in archived:
        name = next(n for n in files if n.startswith(f"{r.instant_time}_{r.completion_time}."))
        assert r.metadata == files[name] and r.plan is None and r.action == "commit"
    # rows: the connector and hudi-rs; the metadata table agrees with storage
    assert _read(spark, path) == state
    assert _hudi_rs(path) == state
    assert cli(["metadata", "validate", path]) == 0
    # time travel to archived commits
    first_active = tl.completed()[0].requested_time
    for n in (0, 2, 4):
        assert instants[n] < first_active
        assert _read(spark, path, **{"as.of.instant": instants[n]}) == states[n]
    with pytest.raises(Exception, match="before the first completed commit"):
        _read(spark, path, **{"as.of.instant": "20000101000000000"})
    # incremental reads: inside the history, and from the history into the active timeline
    completion = {r.instant_time: r.completion_time for r in archived}
    completion.update({i.requested_time: i.completion_time for i in tl.completed()})
    inc = {"hoodie.datasource.query.type": "incremental"}
    for begin, end in ((1, 4), (3, WRITES - 1)):
        got = _read(spark, path, **inc, **{"hoodie.datasource.read.begin.instanttime": completion[instants[begin]],
                                          "hoodie.datasource.read.end.instanttime": completion[instants[end]]})
        last = {}
        for n in range(end + 1):
            last.update({r[0]: n for r in _rows(n)})
        assert got == {k: states[end][k] for k, n in last.items() if n > begin}, (begin, end)
