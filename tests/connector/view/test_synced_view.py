"""The synced view (io.hudimeta.view.SyncedView) applies each new instant instead of rebuilding, and the
view it keeps equals one built from scratch, from the metadata table and from a storage listing, after
every step of random sequences of writes, updates, replaces, failed writes rolled back, writes left
pending, cleans, compaction plans, and compactions and clusterings run by pyhudi's table services
(property-style, with hypothesis). Tables are written with pyhudi's own file writers and timeline
(synthetic.py of the metadata tests), the metadata table committed with each instant as the write client
does."""
from __future__ import annotations

import json
import posixpath
import random
import shutil
import sys
import tempfile
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from pyhudi.services import clustering, compaction
from pyhudi.table import instant_metadata as im
from pyhudi.table.rollback import rollback

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "pyhudi" / "metadata"))
from synthetic import SyntheticTable, start_write  # noqa: E402

CITIES = ("a", "b", "c")
OPS = ("insert", "update", "update", "replace", "rollback", "pending", "clean", "compaction_plan", "compact",
       "cluster")
SERVICES_RUN = ["insert", "update", "compaction_plan", "update", "compact", "update", "cluster", "update", "clean",
                "compact"]
# the services keep the metadata partitions the table has: only `files` here
SERVICE_OPTIONS = {"hoodie.metadata.index.column.stats.enable": "false",
                   "hoodie.metadata.index.partition.stats.enable": "false"}


class Scenario:
    """A synthetic table with its metadata table, and what the steps need to know of it."""

    def __init__(self, spark, path: str, table_type: str, seed: int):
        self.spark = spark
        self.t = SyntheticTable(path, table_type=table_type)
        self.mor = table_type == "MERGE_ON_READ"
        self.rnd = random.Random(seed)
        self.next_id = 0
        self.t.commit(lambda i: [self.t.write_base(i, c, self._ids()) for c in CITIES])
        self.mdt = self.t.mdt(partitions=["files"])
        self.mdt.initialize()
        self.groups: dict[str, tuple[str, list[str]]] = {}  # live file id -> (city, its base files, oldest first)
        self.planned: set[str] = set()  # file groups under a pending compaction plan
        self.service_instants = 0  # compactions and clusterings completed
        self._learn_first_commit()

    def _ids(self, n=3):
        self.next_id += n
        return range(self.next_id - n, self.next_id)

    def _learn_first_commit(self):
        for p in Path(self.t.base).glob("city=*/*.parquet"):
            self.groups[p.name.split("_")[0]] = (p.parent.name.removeprefix("city="), [p.name])

    def _commit(self, write, **kw):
        return self.t.commit(write, mdt=self.mdt, **kw)

    def step(self, op: str) -> None:
        getattr(self, op)()

    def insert(self):
        city = self.rnd.choice(CITIES)
        _, stats = self._commit(lambda i: [self.t.write_base(i, city, self._ids())])
        self.groups[stats[0].file_id] = (city, [posixpath.basename(stats[0].path)])

    def update(self):
        fid = self.rnd.choice(sorted(self.groups))
        city, bases = self.groups[fid]
        if self.mor:
            self._commit(lambda i: [self.t.write_log(i, city, self._ids(1), fid)])
            return
        _, stats = self._commit(lambda i: [self.t.write_base(i, city, self._ids(), file_id=fid)])
        bases.append(posixpath.basename(stats[0].path))

    def replace(self):
        """insert_overwrite of one partition: a new file group replaces the live ones there."""
        city = self.rnd.choice(CITIES)
        old = [f for f, (c, _) in self.groups.items() if c == city and f not in self.planned]
        part = self.t.partition_of(city)
        _, stats = self._commit(lambda i: [self.t.write_base(i, city, self._ids())], action="replacecommit",
                                replaced={part: old}, operation="INSERT_OVERWRITE")
        for f in old:
            del self.groups[f]
        self.groups[stats[0].file_id] = (city, [posixpath.basename(stats[0].path)])

    def _failed_write(self):
        """A write that made a file (with its marker) and never completed."""
        action = "deltacommit" if self.mor else "commit"
        inflight, t = start_write(self.t, action)
        stat = self.t.write_base(t, self.rnd.choice(CITIES), self._ids())
        marker = Path(self.t.base, ".hoodie", ".temp", t, stat.path + ".marker.CREATE")
        marker.parent.mkdir(parents=True, exist_ok=True)
        marker.write_bytes(b"")
        return inflight

    def rollback(self):
        rollback(self.t.storage, self.t.base, self.t.timeline, self._failed_write())

    def pending(self):
        self._failed_write()  # stays: its file is listed on storage, invisible to every view

    def clean(self):
        """Deletes the older base files of copy-on-write file groups (a clean instant, the metadata
        table told at the instant)."""
        doomed = {}
        for city, bases in self.groups.values():
            if len(bases) > 1:
                doomed.setdefault(self.t.partition_of(city), []).extend(bases[:-1])
                del bases[:-1]
        if not doomed:
            return
        tl = self.t.timeline
        plan = {"earliestInstantToRetain": None, "lastCompletedCommitTimestamp": "", "policy": "KEEP_LATEST_COMMITS",
                "filesToBeDeletedPerPartition": {}, "version": 2, "extraMetadata": None, "partitionsToBeDeleted": [],
                "filePathsToBeDeletedPerPartition": {
                    p: [{"filePath": f"{self.t.base}/{p}/{n}", "isBootstrapBaseFile": False} for n in ns]
                    for p, ns in doomed.items()}}
        requested = tl.create_requested("clean", im.encode(im.CLEANER_PLAN, plan))
        inflight = tl.transition_to_inflight(requested, im.encode(im.CLEANER_PLAN, plan))
        for p, names in doomed.items():
            for n in names:
                self.t.storage.delete(f"{self.t.base}/{p}/{n}")
        self.mdt.commit(inflight.requested_time, "clean", [], deleted_files=doomed)
        parts = {p: {"partitionPath": p, "policy": "KEEP_LATEST_COMMITS", "deletePathPatterns": ns,
                     "successDeleteFiles": ns, "failedDeleteFiles": [], "isPartitionDeleted": False}
                 for p, ns in doomed.items()}
        meta = {"startCleanTime": inflight.requested_time, "timeTakenInMillis": 1, "earliestCommitToRetain": "",
                "totalFilesDeleted": sum(map(len, doomed.values())), "lastCompletedCommitTimestamp": "",
                "partitionMetadata": parts, "version": 2, "bootstrapPartitionMetadata": {}, "extraMetadata": None}
        tl.complete(inflight, im.encode(im.CLEAN, meta))

    def compaction_plan(self):
        """A merge-on-read compaction requested (not run) on one file group: later logs start a new slice."""
        free = sorted(f for f in self.groups if f not in self.planned)
        if not self.mor or not free:
            return
        fid = self.rnd.choice(free)
        city, bases = self.groups[fid]
        part = self.t.partition_of(city)
        op = {"baseInstantTime": bases[-1].rsplit("_", 1)[1].split(".")[0], "deltaFilePaths": [],
              "dataFilePath": bases[-1], "fileId": fid, "partitionPath": part, "metrics": {},
              "bootstrapFilePath": None}
        plan = {"operations": [op], "extraMetadata": {}, "version": 2, "strategy": None,
                "preserveHoodieMetadata": False, "missingSchedulePartitions": []}
        self.t.timeline.create_requested("compaction", im.encode(im.COMPACTION_PLAN, plan))
        self.planned.add(fid)

    def compact(self):
        """Merge-on-read: the pending compaction plans run (or one scheduled over the logs and run)."""
        if self.mor:
            self._learn(compaction.compact(self.spark, self.t.base, SERVICE_OPTIONS))
            self.planned.clear()

    def cluster(self):
        """A clustering planned over the small base files (all of them) and run: their groups replaced."""
        self._learn(clustering.cluster(self.spark, self.t.base, SERVICE_OPTIONS))

    def _learn(self, times: list[str]):
        """The groups after service instants: new base files added, replaced groups gone."""
        done = {i.requested_time: i for i in self.t.timeline.completed()}
        self.service_instants += len(times)
        for t in times:
            meta = im.decode(self.t.timeline.read(done[t]))
            for fids in im.replaced_file_ids(meta).values():
                for f in fids:
                    self.groups.pop(f, None)
            for part, stat in im.write_stats(meta):
                entry = self.groups.setdefault(stat["fileId"], (part.removeprefix("city="), []))
                entry[1].append(posixpath.basename(stat["path"]))


def _compare(spark, path: str, as_of: list[str]) -> dict:
    array = spark.sparkContext._gateway.new_array(spark._jvm.java.lang.String, len(as_of))
    for i, t in enumerate(as_of):
        array[i] = t
    return json.loads(spark._jvm.io.hudimeta.view.ViewInspect.compare(spark._jsc.hadoopConfiguration(), path, array))


def _run(spark, table_type: str, ops: list[str], seed: int) -> None:
    root = tempfile.mkdtemp(prefix="synced-view-")
    try:
        s = Scenario(spark, root + "/t", table_type, seed)
        first = _compare(spark, s.t.base, [])
        assert first["counters"]["builds"] == 1
        instants = []
        for n, op in enumerate(ops):
            s.step(op)
            time.sleep(0.002)  # distinct instant times for as-of reads
            instants = [i.requested_time for i in s.t.timeline.completed()]
            got = _compare(spark, s.t.base, instants[-2:])
            assert got["incremental"] == got["fromMetadata"], (n, op, ops)
            assert got["incremental"] == got["fromStorage"], (n, op, ops)
            assert got["counters"]["builds"] == 1, (n, op, got["counters"])  # applied, never rebuilt
        completing = sum(ops.count(o) for o in ("insert", "update", "replace", "rollback")) + s.service_instants
        assert got["counters"]["instantsApplied"] >= completing
        if ops == SERVICES_RUN:
            assert s.service_instants >= (3 if s.mor else 1)
    finally:
        shutil.rmtree(root, ignore_errors=True)


@pytest.mark.parametrize("table_type", ["COPY_ON_WRITE", "MERGE_ON_READ"])
def test_incremental_view_equals_views_built_from_scratch(spark, table_type):
    @settings(max_examples=4, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)
    @given(ops=st.lists(st.sampled_from(OPS), min_size=6, max_size=10), seed=st.integers(0, 1000))
    @example(ops=SERVICES_RUN, seed=5)  # the services always run at least once
    def check(ops, seed):
        _run(spark, table_type, ops, seed)

    check()


def test_archived_instant_makes_the_view_rebuild(spark, tmp_path):
    """An instant gone from the active timeline (archival, restore) cannot be applied: rebuilt, still right."""
    s = Scenario(spark, str(tmp_path / "t"), "COPY_ON_WRITE", 7)
    for op in ("insert", "update", "update"):
        s.step(op)
    assert _compare(spark, s.t.base, [])["counters"]["builds"] == 1
    first = min(Path(s.t.timeline.dir).glob("*.commit"))  # "archive" the oldest completed commit
    history = Path(s.t.base, ".hoodie", "timeline", "history")
    first.rename(history / first.name)
    got = _compare(spark, s.t.base, [])
    assert got["counters"]["builds"] == 2
    assert got["incremental"] == got["fromMetadata"] == got["fromStorage"]


def test_repeated_scans_reuse_the_synced_view(spark, tmp_path):
    """Reads share the JVM's synced view: a second scan builds nothing, one after a commit applies it."""
    s = Scenario(spark, str(tmp_path / "t"), "MERGE_ON_READ", 3)
    spark._jvm.io.hudimeta.view.TableViews.invalidate(s.t.base)

    def scan():
        n = spark.read.format("hudi-meta").load(s.t.base).count()
        return n, _compare(spark, s.t.base, [])["counters"]

    n1, first = scan()
    n2, second = scan()
    assert n1 == n2 and second["builds"] == first["builds"] == 1
    s.step("insert")
    n3, third = scan()
    assert n3 == n1 + 3
    assert third["builds"] == 1 and third["instantsApplied"] == first["instantsApplied"] + 1
