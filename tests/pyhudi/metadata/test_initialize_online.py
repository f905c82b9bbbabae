"""Building the metadata table of an existing table does not block writers (RFC-15 "Initial
creation"): writes that complete while it is built are applied before it is marked ready; a write
completing at the moment the build hands over waits for the hand-off and then commits the metadata
table itself; a build that died is redone by the next write, a live one is not raced."""
import re
import threading
import time

import pyarrow as pa
import pytest

from pyhudi.hudi_table import HudiTable
from pyhudi.metadata import MetadataTableError, MetadataWriter
from pyhudi.metadata.layout import INFLIGHT_PARTITIONS_KEY, PARTITIONS_KEY
from pyhudi.metadata.locks import HEARTBEAT_FILE
from pyhudi.storage import Storage
from pyhudi.table import properties
from pyhudi.table.timeline import Timeline
from tests.canonical import canon

SCHEMA = "id string, ts long, region string, amount double"
REGIONS = ("eu", "us", "apac")


def _table(spark, path, table_type):
    t = HudiTable(spark, path, {"hoodie.table.name": "online", "hoodie.datasource.write.recordkey.field": "id",
                                "hoodie.datasource.write.precombine.field": "ts",
                                "hoodie.datasource.write.partitionpath.field": "region",
                                "hoodie.datasource.write.hive_style_partitioning": "true",
                                "hoodie.datasource.write.table.type": table_type})
    off = {"hoodie.metadata.enable": "false"}
    t.insert(spark.createDataFrame([(f"k{i}", 1, REGIONS[i % 3], float(i)) for i in range(300)], SCHEMA), off)
    t.upsert(spark.createDataFrame([(f"k{i}", 2, REGIONS[i % 3], -float(i)) for i in range(0, 300, 5)], SCHEMA), off)
    return t


def _upsert(spark, t, n):
    """Updates a few keys and adds a new one; returns the instant."""
    rows = [(f"k{i}", 10 + n, REGIONS[i % 3], 100.0 * n + i) for i in range(n, 300, 11)]
    return t.upsert(spark.createDataFrame(rows + [(f"new{n}", 1, REGIONS[n % 3], 0.5)], SCHEMA))


def _state(path):
    storage, base = Storage.for_uri(path)
    props = properties.load(storage, base)
    mdt_done = {i.requested_time for i in Timeline(storage, f"{base}/.hoodie/metadata", 2).completed()}
    return storage, base, props, mdt_done


def _listing_source(spark, path):
    jvm = spark._jvm
    fs = jvm.org.apache.hadoop.fs.Path(path).getFileSystem(spark._jsc.hadoopConfiguration())
    stats = jvm.io.hudimeta.spark.plan.PlanInspect.plan(fs, {"path": path})
    return stats.split()[0]


def _rows(spark, path, **options):
    return canon(spark.read.format("hudi-meta").options(**options).load(path).toArrow())


def _hudi_rs(path):
    from hudi import HudiTableBuilder
    return canon(pa.Table.from_batches(HudiTableBuilder.from_base_uri(path).build().read()))


def _files_written_by_pending_write(storage, base, props) -> bool:
    pending = [i.requested_time for i in Timeline.for_table(storage, base, props).instants() if not i.is_completed]
    return len(pending) == 1 and any(pending[0] in e.name for r in REGIONS
                                     for e in storage.list(f"{base}/region={r}"))


class _PausedBuild:
    """`pyhudi metadata create` in a thread, held at one stage until released."""

    def __init__(self, path: str, stage: str):
        self.stage, self.reached, self.release = stage, threading.Event(), threading.Event()
        self.stages: list[str] = []
        self.error: BaseException | None = None
        storage, base = Storage.for_uri(path)
        self.writer = MetadataWriter(storage, base, properties.load(storage, base))
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()
        assert self.reached.wait(300), f"the build never reached {stage}: {self.error!r}"

    def _progress(self, stage: str, detail: str) -> None:
        self.stages.append(stage)
        if stage == self.stage:
            self.reached.set()
            assert self.release.wait(300)

    def _run(self) -> None:
        try:
            self.writer.initialize(progress=self._progress)
        except BaseException as e:  # noqa: BLE001 - reported by finish()
            self.error = e
            self.reached.set()

    def finish(self) -> None:
        self.release.set()
        self.thread.join(300)
        assert not self.thread.is_alive() and self.error is None, self.error


@pytest.mark.parametrize("table_type", ["COPY_ON_WRITE", "MERGE_ON_READ"])
def test_writes_during_the_build_are_applied(spark, tmp_path, table_type):
    path = str(tmp_path / table_type)
    t = _table(spark, path, table_type)
    build = _PausedBuild(path, "listed")
    try:
        # the build has listed the table and is held: writers go on, and leave the MDT to it
        first = _upsert(spark, t, 1)
        second = _upsert(spark, t, 2)
        storage, base, props, mdt_done = _state(path)
        assert props.get(INFLIGHT_PARTITIONS_KEY) and not props.get(PARTITIONS_KEY)
        assert first not in mdt_done and second not in mdt_done
        assert build.thread.is_alive()
        assert _listing_source(spark, path) == "listing=storage"
    finally:
        build.finish()
    assert build.stages == ["listed", "built", "caught-up", "handing-over", "ready"]
    storage, base, props, mdt_done = _state(path)
    assert {first, second} <= mdt_done, "the writes completed during the build were not applied"
    assert not props.get(INFLIGHT_PARTITIONS_KEY) and "files" in props[PARTITIONS_KEY]
    assert not storage.exists(f"{base}/.hoodie/metadata/{HEARTBEAT_FILE}")
    assert MetadataWriter(storage, base, props).validate() == {}
    assert _listing_source(spark, path) == "listing=metadata"
    ours = _rows(spark, path)
    assert ours == _rows(spark, path, **{"hoodie.metadata.enable": "false"}) == _hudi_rs(path)
    assert len(ours["rows"]) == 302
    # column_stats of the files the catch-up applied prune like any other
    pruned = spark.read.format("hudi-meta").load(path).where("id = 'new1'")
    assert [r.id for r in pruned.collect()] == ["new1"]
    planned = re.search(r"fileSlices=(\d+)", pruned._jdf.queryExecution().executedPlan().toString()).group(1)
    everything = re.search(r"fileSlices=(\d+)", spark.read.format("hudi-meta").load(path)
                           ._jdf.queryExecution().executedPlan().toString()).group(1)
    assert int(planned) < int(everything)
    # and the next write commits as usual
    third = _upsert(spark, t, 3)
    storage, base, props, mdt_done = _state(path)
    assert third in mdt_done and MetadataWriter(storage, base, props).validate() == {}


def test_a_write_finishing_during_the_hand_off_waits_for_it_and_commits_the_metadata(spark, tmp_path):
    path = str(tmp_path / "t")
    t = _table(spark, path, "MERGE_ON_READ")
    build = _PausedBuild(path, "handing-over")  # holds the hand-off lock
    done: list = []
    writer = threading.Thread(target=lambda: done.append(_upsert(spark, t, 1)), daemon=True)
    try:
        writer.start()
        storage, base, props, _ = _state(path)
        deadline = time.monotonic() + 240
        while not _files_written_by_pending_write(storage, base, props) and time.monotonic() < deadline:
            time.sleep(0.5)
        time.sleep(3)
        assert _files_written_by_pending_write(storage, base, props), "the write never wrote its files"
        assert not done and writer.is_alive()  # its completion waits for the hand-off lock
    finally:
        build.finish()
    writer.join(300)
    assert done, "the write did not complete after the hand-off"
    storage, base, props, mdt_done = _state(path)
    assert done[0] in mdt_done  # decided again after the build: committed the MDT itself
    assert MetadataWriter(storage, base, props).validate() == {}
    assert _listing_source(spark, path) == "listing=metadata"
    assert _rows(spark, path) == _rows(spark, path, **{"hoodie.metadata.enable": "false"}) == _hudi_rs(path)


def test_a_build_that_died_is_redone_and_a_live_one_is_not_raced(spark, tmp_path):
    path = str(tmp_path / "t")
    t = _table(spark, path, "COPY_ON_WRITE")
    storage, base = Storage.for_uri(path)
    props = properties.load(storage, base)
    # a build in progress elsewhere: partitions inflight, heartbeat fresh
    props[INFLIGHT_PARTITIONS_KEY] = "column_stats,files"
    properties.save(storage, base, props, updated=True)
    storage.write(f"{base}/.hoodie/metadata/{HEARTBEAT_FILE}", repr(time.time()).encode())
    with pytest.raises(MetadataTableError, match="another process is building"):
        MetadataWriter(storage, base, properties.load(storage, base)).initialize()
    skipped = _upsert(spark, t, 1)
    assert not storage.exists(f"{base}/.hoodie/metadata/.hoodie/hoodie.properties")
    # that build died: its heartbeat goes stale, and the next write builds the MDT itself
    storage.write(f"{base}/.hoodie/metadata/{HEARTBEAT_FILE}", repr(time.time() - 3600).encode())
    rebuilt = _upsert(spark, t, 2)
    storage, base, props, mdt_done = _state(path)
    assert rebuilt in mdt_done and not props.get(INFLIGHT_PARTITIONS_KEY)
    assert skipped not in mdt_done  # in the initial listing instead
    assert MetadataWriter(storage, base, props).validate() == {}
    assert _rows(spark, path) == _hudi_rs(path)
