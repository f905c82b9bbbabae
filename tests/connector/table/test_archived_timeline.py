"""The connector and the timeline history (io.hudimeta.table.ArchivedTimeline): a merge-on-read table
with compactions and a metadata table, archived as it is written. The JVM reads the history pyhudi
wrote (the same instants and bytes as the Python reader); a snapshot never opens it, time travel and
incremental reads into archived commits read it and return the right rows; the metadata table stays in
sync (readers list through it) and valid; hudi-rs reads the same rows."""
import os

import pyarrow as pa
import pytest

from pyhudi.cli import main as cli
from pyhudi.services import archival
from pyhudi.services.instant import ServiceTable
from pyhudi.table.timeline import parse_instant_file
from pyhudi.hudi_table import HudiTable

SCHEMA = "id string, ts long, region string, val string"
OPTS = {"hoodie.table.name": "archmor", "hoodie.datasource.write.recordkey.field": "id",
        "hoodie.datasource.write.precombine.field": "ts", "hoodie.datasource.write.partitionpath.field": "region",
        "hoodie.datasource.write.table.type": "MERGE_ON_READ", "hoodie.upsert.shuffle.parallelism": "2",
        "hoodie.clean.automatic": "false", "hoodie.compact.inline.max.delta.commits": "3",
        "hoodie.metadata.compact.max.delta.commits": "3", "hoodie.keep.min.commits": "3",
        "hoodie.keep.max.commits": "5", "hoodie.cleaner.commits.retained": "2"}
WRITES = 13


def _rows(n):
    return [(f"k{i}", n, ("eu", "us")[i % 2], f"v{i}-{n}") for i in range(n % 4, 12, 3)]


def _read(spark, path, **options):
    df = spark.read.format("hudi-meta").options(**options).load(path)
    return {r["id"]: r["val"] for r in df.select("id", "val").collect()}


@pytest.fixture(scope="module")
def table(spark, tmp_path_factory):
    """(path, the rows after each write, each write's instant time)."""
    path = str(tmp_path_factory.mktemp("archived") / "mor")
    t = HudiTable(spark, path, OPTS)
    states, instants, state = [], [], {}
    for n in range(WRITES):
        rows = _rows(n)
        instants.append(t.upsert(spark.createDataFrame(rows, SCHEMA)))
        state.update({r[0]: r[3] for r in rows})
        states.append(dict(state))
        archival.archive_if_due(path, OPTS)
    return path, states, instants


def _jvm_history(spark, path):
    jvm = spark._jvm
    base = jvm.org.apache.hadoop.fs.Path(path)
    fs = base.getFileSystem(spark._jsc.hadoopConfiguration())
    config = jvm.io.hudimeta.table.TableConfig.load(fs, base)
    return fs, jvm.io.hudimeta.table.ArchivedTimeline.load(fs, jvm.io.hudimeta.table.ArchivedTimeline.historyPath(
        config, base))


def test_snapshot_never_opens_the_history_time_travel_does(spark, table):
    path, states, instants = table
    jvm = spark._jvm
    counting = jvm.io.hudimeta.metadata.CountingFileSystem(
        jvm.org.apache.hadoop.fs.Path(path).getFileSystem(spark._jsc.hadoopConfiguration()))
    stats = jvm.io.hudimeta.spark.plan.PlanInspect.plan(counting, {"path": path})
    assert stats.startswith("listing=metadata"), stats  # the metadata table is in sync after archival
    touched = [str(x) for x in (*counting.listings(), *counting.opens())]
    assert touched and not [x for x in touched if "/history" in x]
    counting.reset()
    archived = ServiceTable.open(path).timeline.completed()[0].requested_time > instants[1]
    assert archived
    jvm.io.hudimeta.spark.plan.PlanInspect.plan(counting, {"path": path, "as.of.instant": instants[1]})
    assert [str(x) for x in counting.opens() if "/timeline/history/" in str(x)]


def test_the_jvm_reads_the_history_pyhudi_wrote(spark, table):
    path, _, instants = table
    ours = archival.archived_instants(path)
    assert len(ours) >= 5 and {r.action for r in ours} >= {"deltacommit", "commit"}  # compactions archived too
    _, history = _jvm_history(spark, path)
    theirs = list(history.instants(None, None))
    assert [(i.requestedTime(), i.completionTime(), i.action()) for i in theirs] == \
        [(r.instant_time, r.completion_time, r.action) for r in ours]
    for i, r in zip(theirs, ours):
        row = history.row(i)
        assert bytes(row.metadata()) == r.metadata and (None if row.plan() is None else bytes(row.plan())) == r.plan
    compaction = next(i for i, r in zip(theirs, ours) if r.action == "commit")
    assert history.metadata(compaction).path("operationType").asText() == "COMPACT"
    # the metadata table's own history too
    mdt = archival.archived_instants(path, of_metadata_table=True)
    assert mdt and mdt[0].instant_time.startswith("00000000000000")


def test_metadata_table_counts_blocks_of_archived_data_instants(spark, table):
    """Both halves' rule (pyhudi.metadata.validity, io.hudimeta.metadata.MetadataTable): a metadata-table block
    of a data instant the data timeline no longer shows is valid when older than its first active instant
    (archived), whether the metadata table still has its instant or archived it too; not a later one."""
    from pyhudi.metadata.state import MdtState

    path, _, instants = table
    archived = [r.instant_time for r in archival.archived_instants(path) if r.action == "deltacommit"]
    mdt_archived = {r.instant_time for r in archival.archived_instants(path, of_metadata_table=True)}
    assert archived and set(archived) & mdt_archived
    state = ServiceTable.open(path).metadata_writer().state()
    jvm = spark._jvm
    base = jvm.org.apache.hadoop.fs.Path(path)
    fs = base.getFileSystem(spark._jsc.hadoopConfiguration())
    config = jvm.io.hudimeta.table.TableConfig.load(fs, base)
    mdt = jvm.io.hudimeta.metadata.MetadataTable.open(fs, base, config, jvm.io.hudimeta.table.Timeline.load(
        fs, base, config)).get()
    try:
        assert mdt.inSync()
        for t in archived:
            assert state.valid_block(t) and mdt.isValidInstant(t), t
        active = ServiceTable.open(path).timeline.completed()[-1].requested_time
        absent = str(int(active) - 1)  # after the first active instant, on neither timeline
        assert not state.valid_block(absent) and not mdt.isValidInstant(absent)
    finally:
        mdt.close()


def test_rows_time_travel_and_incremental_reads_into_archived_commits(spark, table):
    path, states, instants = table
    assert _read(spark, path) == states[-1]
    from hudi import HudiTableBuilder
    theirs = pa.Table.from_batches(HudiTableBuilder.from_base_uri(path).build().read())
    assert dict(zip(theirs.column("id").to_pylist(), theirs.column("val").to_pylist())) == states[-1]
    assert cli(["metadata", "validate", path]) == 0
    tl = ServiceTable.open(path).timeline
    first_active = tl.completed()[0].requested_time
    archived = {r.instant_time: r for r in archival.archived_instants(path)}
    for n in range(WRITES):
        if instants[n] < first_active:
            assert instants[n] in archived
            assert _read(spark, path, **{"as.of.instant": instants[n]}) == states[n], n
    completion = {t: r.completion_time for t, r in archived.items()}
    completion.update({i.requested_time: i.completion_time for i in tl.completed()})
    for begin, end in ((0, 3), (2, WRITES - 1)):
        got = _read(spark, path, **{"hoodie.datasource.query.type": "incremental",
                                    "hoodie.datasource.read.begin.instanttime": completion[instants[begin]],
                                    "hoodie.datasource.read.end.instanttime": completion[instants[end]]})
        last = {}
        for n in range(end + 1):
            last.update({r[0]: n for r in _rows(n)})
        assert got == {k: states[end][k] for k, n in last.items() if n > begin}, (begin, end)


def test_a_listed_timeline_reads_instants_archived_after_the_listing(spark, tmp_path):
    """A timeline listed while a compaction was pending, read after other writers completed and archived it:
    its plan and an archived deltacommit's metadata come from the history, unchanged; a listed file that is
    gone and not archived names the cause and the fix."""
    from pyhudi.services import compaction

    path = str(tmp_path / "mor")
    opts = {**OPTS, "hoodie.table.name": "racing", "hoodie.compact.inline": "false"}
    t = HudiTable(spark, path, opts)
    deltas = [t.upsert(spark.createDataFrame(_rows(n), SCHEMA)) for n in (0, 4, 8)]  # the same keys
    pending = compaction.schedule(spark, path, opts)
    plan = compaction.plan_of(ServiceTable.open(path), pending)
    jvm = spark._jvm
    base = jvm.org.apache.hadoop.fs.Path(path)
    fs = base.getFileSystem(spark._jsc.hadoopConfiguration())
    listed = jvm.io.hudimeta.table.Timeline.load(fs, base, jvm.io.hudimeta.table.TableConfig.load(fs, base))
    first = next(i for i in listed.completed() if i.requestedTime() == deltas[0])
    py_listed = ServiceTable.open(path).timeline  # pyhudi's timeline reads the same way
    py_first = next(i for i in py_listed.completed() if i.requested_time == deltas[0])
    py_bytes = py_listed.read(py_first)
    compaction.execute(spark, path, pending.requested_time, opts)
    for n in range(9, 15):
        t.upsert(spark.createDataFrame(_rows(n), SCHEMA))
    archival.archive(path, opts)  # the writes archive too
    assert {deltas[0], pending.requested_time} <= {r.instant_time for r in archival.archived_instants(path)}
    assert not [n for n in os.listdir(tmp_path / "mor" / ".hoodie" / "timeline")
                if n.startswith((deltas[0], pending.requested_time))]  # gone from the active timeline

    ops = {op.fileId(): (op.baseInstantTime(), sorted(op.deltaFileNames())) for op in listed.pendingCompactions()}
    assert ops == {op["fileId"]: (op["baseInstantTime"], sorted(p.rsplit("/", 1)[-1] for p in op["deltaFilePaths"]))
                   for op in plan["operations"]}
    meta = listed.commitMetadata(first)
    assert sorted(meta.partitionToWriteStats().keySet()) == ["eu", "us"]
    assert py_listed.read(py_first) == py_bytes
    assert compaction.plan_of(ServiceTable.open(path), pending) == plan

    relisted = jvm.io.hudimeta.table.Timeline.load(fs, base, jvm.io.hudimeta.table.TableConfig.load(fs, base))
    t.upsert(spark.createDataFrame(_rows(15), SCHEMA))
    gone = next(i for i in relisted.completed() if i.action() == "deltacommit")
    (tmp_path / "mor" / ".hoodie" / "timeline" / gone.fileName()).unlink()  # removed, never archived
    with pytest.raises(Exception, match="is gone and is not in the timeline history.*load the table again"):
        relisted.commitMetadata(gone)
    with pytest.raises(FileNotFoundError):
        py_listed.read(parse_instant_file(gone.fileName(), 2))
