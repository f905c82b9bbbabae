"""Savepoints and restore: a savepoint names the files of its commit's latest slices; a restore to it rolls
back every later instant (completed or pending), leaves no file of them behind, rebuilds the metadata table,
reads exactly as the savepoint did through the connector and hudi-rs, and lets the next write go on; a
restore that died is finished by the next one; bad requests fail saying what to do."""
from pathlib import Path

import pyarrow as pa
import pytest

from pyhudi import faults
from pyhudi.cli import main as cli
from pyhudi.hudi_table import HudiTable
from pyhudi.services import clean, restore, savepoint
from pyhudi.services.instant import ServiceTable
from pyhudi.table import file_names
from pyhudi.table import instant_metadata as im
from pyhudi.table.timeline import Instant

SCHEMA = "id string, ts long, region string, val string"
OPTS = {"hoodie.table.name": "sp", "hoodie.datasource.write.recordkey.field": "id",
        "hoodie.datasource.write.precombine.field": "ts", "hoodie.datasource.write.partitionpath.field": "region",
        "hoodie.datasource.write.hive_style_partitioning": "true",
        "hoodie.clean.automatic": "false", "hoodie.archive.automatic": "false", "hoodie.compact.inline": "false"}


class Boom(Exception):
    pass


def _boom():
    raise Boom()


def _opts(table_type):
    return {**OPTS, "hoodie.datasource.write.table.type": table_type}


def _rows(spark, ts, ids, region=None):
    return spark.createDataFrame([(f"k{i}", ts, region or ("eu", "us")[i % 2], f"v{i}-{ts}") for i in ids], SCHEMA)


def _read(spark, path, **options):
    return {r["id"]: r["val"] for r in spark.read.format("hudi-meta").options(**options).load(path).collect()}


def _hudi_rs(path):
    from hudi import HudiTableBuilder
    t = pa.Table.from_batches(HudiTableBuilder.from_base_uri(path).build().read())
    return dict(zip(t.column("id").to_pylist(), t.column("val").to_pylist()))


def _data_files(path):
    return {p.relative_to(path).as_posix() for p in Path(path).rglob("*") if ".hoodie" not in p.parts
            and (file_names.is_base(p.name) or file_names.is_log(p.name))}


def _instant_of(rel):
    name = rel.rsplit("/", 1)[-1]
    return (file_names.parse_log(name) if file_names.is_log(name) else file_names.parse_base(name)).instant


def _timeline(path):
    return ServiceTable.open(path).timeline


def _history(spark, path, table_type):
    """c1 inserts, c2 updates, then the savepoint; c3 deletes a key, c4 inserts into a new partition."""
    t = HudiTable(spark, path, _opts(table_type))
    c1 = t.upsert(_rows(spark, 1, range(6)))
    c2 = t.upsert(_rows(spark, 2, range(2)))
    return t, c1, c2


def _after_savepoint(spark, t):
    c3 = t.delete(_rows(spark, 3, [2]))
    c4 = t.upsert(_rows(spark, 4, [10, 0], region="ap"))  # k0 moves nowhere: a new key in a new partition
    return c3, c4


def _agrees(spark, path, expected):
    assert _read(spark, path) == expected
    assert _hudi_rs(path) == expected
    assert cli(["metadata", "validate", path]) == 0


@pytest.mark.parametrize("table_type", ["COPY_ON_WRITE", "MERGE_ON_READ"])
def test_restore_to_a_savepoint(spark, tmp_path, table_type, capsys):
    path = str(tmp_path / table_type)
    t, c1, c2 = _history(spark, path, table_type)
    expected = _read(spark, path)
    assert len(expected) == 6 and expected["k0"] == "v0-2"
    if table_type == "COPY_ON_WRITE":
        assert t.savepoint(user="ann", comments="before the cleanup") == c2
    else:
        assert cli(["savepoint", "create", path, "--user", "ann", "--comments", "before the cleanup"]) == 0
    assert t.savepoints() == [c2]
    kept = _data_files(path)

    # the savepoint: Hudi's instant files, the files of the latest slices as of c2
    names = sorted(p.name for p in Path(path, ".hoodie", "timeline").iterdir() if p.is_file() and "savepoint" in p.name)
    assert len(names) == 2 and names[0] == f"{c2}.savepoint.inflight"
    assert names[1].startswith(f"{c2}_") and names[1].endswith(".savepoint")
    assert Path(path, ".hoodie", "timeline", f"{c2}.savepoint.inflight").read_bytes() == b""
    (sp,) = savepoint.list_savepoints(path)
    assert (sp.instant, sp.savepointed_by, sp.comments) == (c2, "ann", "before the cleanup")
    assert sp.savepointed_at > 1_600_000_000_000  # epoch milliseconds, as Hudi's System.currentTimeMillis()
    saved = {f"{p}/{n}" for p, ns in sp.files.items() for n in ns}
    if table_type == "COPY_ON_WRITE":  # each file group's c2 base file, not its c1 one
        assert saved == {f for f in kept if _instant_of(f) == c2} and len(saved) == 2
    else:  # each file group's c1 base file and c2 log file
        assert saved == kept and len(saved) == 4
    assert cli(["savepoint", "list", path]) == 0 and c2 in capsys.readouterr().out

    c3, c4 = _after_savepoint(spark, t)
    action = "commit" if table_type == "COPY_ON_WRITE" else "deltacommit"
    later = [(c4, action), (c3, action)]
    if table_type == "MERGE_ON_READ":  # a compaction after the savepoint goes too (its plan, its `commit`)
        (cc,) = t.compact()
        later.insert(0, (cc, "commit"))
    assert _read(spark, path) != expected and "k10" in _read(spark, path)
    assert {_instant_of(f) for f in _data_files(path)} >= {x for x, _ in later}
    assert _read(spark, path, **{"as.of.instant": c2}) == expected  # time travel: the oracle before restoring
    assert t.savepoint(c4) == c4 and t.savepoints() == [c2, c4]  # rolled back with its commit
    pending = _timeline(path).create_requested("commit" if table_type == "COPY_ON_WRITE" else "deltacommit")
    partitions = ServiceTable.open(path).props["hoodie.table.metadata.partitions"]

    if table_type == "COPY_ON_WRITE":
        r = t.restore(c2)
    else:
        assert cli(["restore", path, "--to", c2]) == 0
        r = next(i.requested_time for i in _timeline(path).completed(("restore",)))
    _agrees(spark, path, expected)
    assert _data_files(path) == kept  # nothing of c3 and c4 is left
    assert t.savepoints() == [c2]
    assert ServiceTable.open(path).props["hoodie.table.metadata.partitions"] == partitions  # rebuilt alike
    tl = _timeline(path)
    assert [(i.requested_time, i.action, i.state) for i in tl.instants()] == [
        (c1, action, "completed"), (c2, action, "completed"), (c2, "savepoint", "completed"),
        (r, "restore", "completed")]
    plan = im.decode(tl.read(Instant(r, "restore", "requested")), im.RESTORE_PLAN)
    undone = [(pending.requested_time, action), *later]
    assert plan == {"instantsToRollback": [{"commitTime": x, "action": a} for x, a in undone],
                    "version": 2, "savepointToRestoreTimestamp": c2}
    assert tl.read(Instant(r, "restore", "inflight")) == b""
    meta = im.decode(tl.read(tl.completed(("restore",))[0]), im.RESTORE)
    assert meta["startRestoreTime"] == r and meta["instantsToRollback"] == [x for x, _ in undone]
    assert meta["restoreInstantInfo"] == plan["instantsToRollback"] and meta["version"] == 1
    rb = meta["hoodieRestoreMetadata"][c4][0]
    assert rb["commitsRollback"] == [c4] and rb["instantsRollback"] == [{"commitTime": c4, "action": action}]
    assert rb["totalFilesDeleted"] >= 1 and "region=ap" in rb["partitionMetadata"]
    assert meta["hoodieRestoreMetadata"][pending.requested_time][0]["totalFilesDeleted"] == 0

    # the next write goes on from the savepoint's state
    c5 = t.upsert(_rows(spark, 5, [2, 11]))
    _agrees(spark, path, {**expected, "k2": "v2-5", "k11": "v11-5"})
    assert c5 > r
    assert t.delete_savepoint(c2) is None and t.savepoints() == []


def test_savepoint_and_restore_errors(spark, tmp_path):
    path = str(tmp_path / "t")
    t, c1, c2 = _history(spark, path, "COPY_ON_WRITE")
    c3 = t.upsert(_rows(spark, 3, range(2)))
    with pytest.raises(savepoint.SavepointError, match="no instant 20990101000000000"):
        t.savepoint("20990101000000000")
    pending = _timeline(path).create_requested("commit")
    with pytest.raises(savepoint.SavepointError, match=f"commit {pending.requested_time} is requested, not completed"):
        t.savepoint(pending.requested_time)
    _timeline(path).delete_pending(pending)
    with pytest.raises(restore.RestoreError, match=f"{c2} is not a savepoint.*pyhudi savepoint create"):
        t.restore(c2)
    assert cli(["restore", path, "--to", c2]) == 2
    t.savepoint(c2)
    with pytest.raises(savepoint.SavepointError, match="savepointed already"):
        t.savepoint(c2)
    with pytest.raises(savepoint.SavepointError, match="no savepoint at"):
        t.delete_savepoint(c1)
    assert cli(["savepoint", "delete", path, "--instant", c2]) == 0 and t.savepoints() == []
    # a clean that retains commits from c3 on: c1's files are gone, so c1 (and c2) cannot be savepointed
    done = clean.clean(path, {"hoodie.cleaner.commits.retained": "1"})
    assert done is not None
    for old in (c1, c2):
        with pytest.raises(savepoint.SavepointError, match=f"older than {c3}"):
            t.savepoint(old)
    assert t.savepoint() == c3
    clean_instant = done.requested_time
    with pytest.raises(savepoint.SavepointError, match="not a commit"):
        savepoint.create(path, clean_instant)


def test_a_restore_that_died_is_finished_by_the_next(spark, tmp_path, monkeypatch):
    path = str(tmp_path / "t")
    t, c1, c2 = _history(spark, path, "MERGE_ON_READ")
    expected, kept = _read(spark, path), _data_files(path)
    t.savepoint()
    c3, c4 = _after_savepoint(spark, t)

    # died right after its plan: the plan is there, nothing was touched yet
    requested = restore.schedule(path, c2)
    assert _read(spark, path)["k10"] == "v10-4"
    with pytest.raises(restore.RestoreError, match=f"to savepoint {c2} is pending"):
        restore.schedule(path, c2)

    # died after rolling back c4 only: the metadata table is dropped, c3 is still there
    real = restore.undo_instant
    calls = []

    def undo_one(*args):
        if calls:
            raise Boom()
        calls.append(args[3].requested_time)
        return real(*args)

    monkeypatch.setattr(restore, "undo_instant", undo_one)
    with pytest.raises(Boom):
        restore.restore(path, c2)
    monkeypatch.setattr(restore, "undo_instant", real)
    assert calls == [c4] and not any(_instant_of(f) == c4 for f in _data_files(path))
    assert ServiceTable.open(path).metadata_writer() is None  # dropped; readers list storage meanwhile
    now = _read(spark, path)
    assert "k10" not in now and "k2" not in now  # c4 is gone, c3 (the delete) still applies

    # died once more before completing: everything is rolled back and the metadata table built again
    with faults.at("before_complete", _boom), pytest.raises(Boom):
        restore.restore(path, c2)
    assert ServiceTable.open(path).metadata_writer() is not None

    done = restore.restore(path, c2)
    assert done.requested_time == requested.requested_time and done.is_completed
    _agrees(spark, path, expected)
    assert _data_files(path) == kept
    meta = im.decode(_timeline(path).read(done), im.RESTORE)
    assert meta["instantsToRollback"] == []  # c4 and c3 went in the attempts that died


def test_a_restore_keeps_the_record_index_and_secondary_indexes(spark, tmp_path, monkeypatch):
    """The indexes built from records come back after a restore, right for the savepoint's records, also when
    the restore dies between building the record index and the secondary index."""
    from pyhudi.services import indexing
    from tests.pyhudi.write import test_secondary_index as si_tests
    from tests.pyhudi.write.test_record_index import _assert_index_right, _partitions
    path = str(tmp_path / "indexed")
    t = si_tests._table(spark, path)  # record_index, then secondary_index_city_idx on city
    t.upsert(si_tests._rows(spark, range(30, 45), 2, city=lambda i: "lyon"))
    expected, built = si_tests._expected(spark, path), _partitions(path)
    assert {"record_index", si_tests.PART} <= set(built)
    sp = t.savepoint()
    t.upsert(si_tests._rows(spark, range(40, 60), 3, city=lambda i: "rome"))  # moves entries, adds keys
    t.delete(si_tests._rows(spark, range(0, 10), 4))

    real = indexing.create

    def dies_at_the_secondary_index(spark_, path_, part, **kw):
        if part == si_tests.PART:
            raise Boom()
        return real(spark_, path_, part, **kw)

    monkeypatch.setattr(indexing, "create", dies_at_the_secondary_index)
    with pytest.raises(Boom):
        restore.restore(path, sp, spark=spark)
    props = ServiceTable.open(path).props
    assert "record_index" in _partitions(path) and si_tests.PART not in _partitions(path)
    assert si_tests.PART in props["hoodie.table.metadata.partitions.inflight"]  # what the resumed one builds
    monkeypatch.setattr(indexing, "create", real)

    restore.restore(path, sp, spark=spark)
    assert sorted(_partitions(path)) == sorted(built)
    assert ServiceTable.open(path).props.get("hoodie.table.metadata.partitions.inflight", "") == ""
    assert si_tests._entries(spark, path) == expected  # the savepoint's entries: no rome, k000 back
    _assert_index_right(spark, path)
    t.upsert(si_tests._rows(spark, range(0, 3), 5, city=lambda i: "nice"))  # kept by the next write
    si_tests._assert_right(spark, path)
    _assert_index_right(spark, path)
