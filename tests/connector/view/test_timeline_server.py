"""io.hudimeta.view.TimelineServer: Hudi's timeline-service endpoints over real HTTP, on real tables.

Answers are compared with what the JVM's synced view (SyncedView, WriterView) gives for the same table;
raw HTTP (urllib) is used so status codes, headers and JSON bodies are checked as a client sees them.
"""
from __future__ import annotations

import json
import os
import shutil
import socket
import time
import urllib.error
import urllib.parse
import urllib.request

import pytest

from pyhudi import HudiTable

SCHEMA = "id string, ts long, region string"
REGIONS = ("eu", "us", "apac")
VIEW = "/v1/hoodie/view"
MOR_V9 = "sample_table_mor_avro__v9_txns_simple_nometa"  # has a compaction


def _port_closes(port, within_s=10.0) -> bool:
    """Whether connections to `port` are refused within `within_s` seconds (the listener closes on the server's
    dispatcher thread, which a loaded machine may run a moment after stop() returns)."""
    deadline = time.monotonic() + within_s
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=5).close()
        except OSError:
            return True
        time.sleep(0.2)
    return False


def call(port, path, method="GET", body=None, **params):
    """(status, headers, JSON body) of one request; params with None values are left out."""
    query = urllib.parse.urlencode({k: v for k, v in params.items() if v is not None})
    data = None if body is None else json.dumps(body).encode()
    if method == "POST" and data is None:
        data = b""
    req = urllib.request.Request(f"http://127.0.0.1:{port}{path}?{query}", data=data, method=method)
    try:
        with urllib.request.urlopen(req, timeout=60) as r:
            return r.status, r.headers, json.loads(r.read())
    except urllib.error.HTTPError as e:
        return e.code, e.headers, json.loads(e.read())


def make_table(spark, path, table_type="MERGE_ON_READ", **extra):
    return HudiTable(spark, path, {"hoodie.table.name": "ts", "hoodie.datasource.write.recordkey.field": "id",
                                   "hoodie.datasource.write.precombine.field": "ts",
                                   "hoodie.datasource.write.partitionpath.field": "region",
                                   "hoodie.datasource.write.table.type": table_type, **extra})


def rows(spark, n, ts=1, start=0, regions=REGIONS):
    return spark.createDataFrame([(f"k{i}", ts, regions[i % len(regions)]) for i in range(start, start + n)], SCHEMA)


@pytest.fixture(scope="module")
def jvm(spark):
    return spark._jvm


@pytest.fixture(scope="module")
def server(spark, jvm):
    s = jvm.io.hudimeta.view.TimelineServer.start(spark._jsc.hadoopConfiguration(), 0, {})
    yield s
    s.stop()


@pytest.fixture(scope="module")
def mor(spark, tmp_path_factory):
    """MERGE_ON_READ over three partitions: base files, then log files in some groups."""
    path = str(tmp_path_factory.mktemp("tls") / "mor")
    t = make_table(spark, path)
    first = t.insert(rows(spark, 30))
    t.upsert(rows(spark, 10, ts=2))
    return path, first


def synced(spark, jvm, path):
    """The view the server answers from (same file system, default storage config)."""
    jpath = jvm.org.apache.hadoop.fs.Path(path)
    fs = jpath.getFileSystem(spark._jsc.hadoopConfiguration())
    return jvm.io.hudimeta.view.TableViews.synced(fs, jpath, jvm.io.hudimeta.view.ViewStorageConfig.DEFAULT)


def fresh_state(spark, jvm, path):
    """(last instant, timeline hash) read from storage now, without touching the shared views."""
    jpath = jvm.org.apache.hadoop.fs.Path(path)
    fs = jpath.getFileSystem(spark._jsc.hadoopConfiguration())
    tl = jvm.io.hudimeta.table.Timeline.load(fs, jpath, jvm.io.hudimeta.table.TableConfig.load(fs, jpath))
    return tl.lastCompleted().requestedTime(), tl.hash()


def writer_view(spark, jvm, path, partitions):
    gateway = spark.sparkContext._gateway
    arr = gateway.new_array(gateway.jvm.java.lang.String, len(partitions))
    for i, p in enumerate(partitions):
        arr[i] = p
    return json.loads(jvm.io.hudimeta.spark.bridge.WriterView.latestFileSlices(spark._jsc.hadoopConfiguration(), path, arr))


def dto_key(d):
    """A FileSliceDTO as WriterView's slice fields."""
    base = d["baseFile"]
    return {"partitionPath": d["partition"], "fileId": d["fileId"], "baseInstantTime": d["baseInstant"],
            "baseFile": os.path.basename(base["fullPath"]) if base else None,
            "baseFileSize": base["fileLen"] if base else None,
            "logFiles": [os.path.basename(lf["path"]) for lf in d["logFiles"]]}


def java_key(s):
    """An io.hudimeta.table.FileSlice as WriterView's slice fields."""
    b = s.baseFile()
    return {"partitionPath": s.partitionPath(), "fileId": s.fileId(), "baseInstantTime": s.baseInstantTime(),
            "baseFile": b.name() if b else None, "baseFileSize": b.size() if b else None,
            "logFiles": [lf.name() for lf in s.logFiles()]}


# ---------------------------------------------------------------- slices and base files

def test_latest_slices_per_partition_equal_writer_view(spark, jvm, server, mor):
    path, _ = mor
    for p in REGIONS:
        status, headers, body = call(server.port(), VIEW + "/slices/partition/latest/", basepath=path, partition=p)
        expected = writer_view(spark, jvm, path, [p])
        assert status == 200 and body and [dto_key(d) for d in body] == expected["slices"]
        assert (headers["lastinstantts"], headers["timelinehash"]) == (expected["lastInstant"],
                                                                       expected["timelineHash"])
        for d in body:  # Hudi's DTO fields, full paths under the table
            assert set(d) == {"baseFile", "logFiles", "partition", "fileId", "baseInstant"}
            assert set(d["baseFile"]) == {"fileStatus", "fullPath", "fileLen", "commitTime", "fileId",
                                          "bootstrapBaseFile"}
            local = d["baseFile"]["fullPath"].removeprefix("file:")
            assert local == os.path.join(path, p, os.path.basename(local))
            assert d["baseFile"]["fileLen"] == os.path.getsize(local)
            for lf in d["logFiles"]:
                assert set(lf) == {"fileStatus", "path", "len"} and lf["len"] == os.path.getsize(
                    lf["path"].removeprefix("file:"))
    assert any(d["logFiles"] for d in call(server.port(), VIEW + "/slices/partition/latest", basepath=path,
                                           partition="eu")[2])  # no trailing slash works too


def test_batch_of_partitions(spark, jvm, server, mor):
    path, _ = mor
    status, headers, body = call(server.port(), VIEW + "/slices/partitions/latest/", "POST",
                                 body=["us", "eu", "mars", "eu"], basepath=path)
    expected = writer_view(spark, jvm, path, ["eu", "us"])
    assert status == 200 and list(body["slices"]) == ["eu", "mars", "us"] and body["slices"]["mars"] == []
    assert [dto_key(d) for p in ("eu", "us") for d in body["slices"][p]] == expected["slices"]
    assert (body["lastinstantts"], body["timelinehash"]) == (expected["lastInstant"], expected["timelineHash"])
    assert headers["timelinehash"] == body["timelinehash"]
    every = call(server.port(), VIEW + "/slices/partitions/latest/", "POST", body=None, basepath=path)[2]
    assert sorted(every["slices"]) == sorted(REGIONS)  # no body: every partition


def test_as_of_and_base_files(spark, jvm, server, mor):
    path, first = mor
    view = synced(spark, jvm, path)
    for p in REGIONS:
        before = call(server.port(), VIEW + "/slices/beforeoron/latest/", basepath=path, partition=p,
                      maxinstant=first)[2]
        assert [dto_key(d) for d in before] == [java_key(s) for s in view.latestFileSlices(p, first)]
        assert before and not any(d["logFiles"] for d in before)  # before the upsert
        for url, as_of in ((VIEW + "/datafiles/latest/partition", None),
                           (VIEW + "/datafiles/beforeoron/latest/", first)):
            status, _, files = call(server.port(), url, basepath=path, partition=p, maxinstant=as_of)
            expected = view.latestBaseFiles(p, as_of)
            assert status == 200 and [(os.path.basename(f["fullPath"]), f["fileLen"], f["commitTime"], f["fileId"])
                                      for f in files] == [(b.name(), b.size(), b.instantTime(), b.fileId())
                                                          for b in expected]


def test_last_instant_hash_and_refresh(spark, jvm, server, mor):
    path, _ = mor
    view = synced(spark, jvm, path)
    last = view.timeline().lastCompleted()
    status, headers, body = call(server.port(), VIEW + "/timeline/instant/last", basepath=path)
    assert status == 200 and body == [{"action": "deltacommit", "ts": last.requestedTime(), "state": "COMPLETED"}]
    assert call(server.port(), VIEW + "/timeline/hash", basepath=path)[2] == view.timelineHash()
    status, headers, body = call(server.port(), VIEW + "/refresh/", "POST", basepath=path)
    assert (status, body, headers["timelinehash"]) == (200, True, view.timelineHash())
    assert call(server.port(), VIEW + "/compactions/pending/", basepath=path)[2] == []


# ---------------------------------------------------------------- syncing

def test_write_after_a_request_is_seen_with_the_new_state(spark, jvm, server, tmp_path):
    path = str(tmp_path / "sync")
    t = make_table(spark, path, "COPY_ON_WRITE")
    t.insert(rows(spark, 6, regions=("eu",)))
    url = VIEW + "/slices/partition/latest/"
    old_state = fresh_state(spark, jvm, path)
    _, headers, before = call(server.port(), url, basepath=path, partition="eu", lastinstantts=old_state[0],
                              timelinehash=old_state[1])
    assert (headers["lastinstantts"], headers["timelinehash"]) == old_state
    t.insert(rows(spark, 6, start=100, regions=("eu",)))
    new_state = fresh_state(spark, jvm, path)
    assert new_state != old_state
    _, headers, after = call(server.port(), url, basepath=path, partition="eu", lastinstantts=new_state[0],
                             timelinehash=new_state[1])
    assert (headers["lastinstantts"], headers["timelinehash"]) == new_state
    expected = [java_key(s) for s in synced(spark, jvm, path).latestFileSlices("eu", None)]
    assert [dto_key(d) for d in after] == expected and after != before
    assert new_state[0] in {d["baseInstant"] for d in after}  # the second insert's base file (small-file merge)
    # a current client is answered without a sync; a stale, wrong or missing state still gets the current one
    counters = synced(spark, jvm, path).counters()
    current = counters.get("current")
    assert call(server.port(), url, basepath=path, partition="eu", lastinstantts=new_state[0],
                timelinehash=new_state[1])[2] == after
    assert synced(spark, jvm, path).counters().get("current") == current + 1
    for state in (old_state, (new_state[0], "not-a-hash"), (None, None)):
        _, headers, body = call(server.port(), url, basepath=path, partition="eu", lastinstantts=state[0],
                                timelinehash=state[1])
        assert [dto_key(d) for d in body] == expected and headers["timelinehash"] == new_state[1]


# ---------------------------------------------------------------- compactions and replaced groups

def test_pending_compactions(spark, jvm, server, fixture_tables, tmp_path):
    """The fixture's compaction made pending again: its completion and every later instant removed."""
    table = tmp_path / MOR_V9
    shutil.copytree(fixture_tables[MOR_V9], table)
    timeline = table / ".hoodie" / "timeline"
    compaction = "20260307135839895"
    for f in timeline.iterdir():
        if f.is_file() and (f.name[:17] > compaction or f.name == f"{compaction}_20260307135840408.commit"):
            f.unlink()
    status, _, ops = call(server.port(), VIEW + "/compactions/pending/", basepath=str(table))
    expected = synced(spark, jvm, str(table)).pendingCompactions()
    assert status == 200 and len(ops) == len(expected) > 0
    for op, e in zip(ops, expected):
        assert (op["compactionInstant"], op["partition"], op["id"], op["baseInstant"], op["baseFile"],
                op["deltaFiles"]) == (e.instantTime(), e.partitionPath(), e.fileId(), e.baseInstantTime(),
                                      e.dataFileName(), list(e.deltaFileNames()))
        assert op["compactionInstant"] == compaction and op["metrics"] == {}
        assert op["dataFileInstant"] == (e.dataFileName().split("_")[2].split(".")[0] if e.dataFileName() else None)


def test_replaced_file_groups_after_insert_overwrite(spark, jvm, server, tmp_path):
    path = str(tmp_path / "replaced")
    t = make_table(spark, path, "COPY_ON_WRITE")
    first = t.insert(rows(spark, 10, regions=("eu", "us")))
    old_eu = writer_view(spark, jvm, path, ["eu"])["slices"]
    overwrite = t.insert_overwrite(rows(spark, 4, ts=5, start=50, regions=("eu",)))
    replaced = synced(spark, jvm, path).replacedFileGroups(None)
    expected_ids = sorted(k.fileId() for k in replaced.keySet() if k.partitionPath() == "eu")
    assert expected_ids == sorted(s["fileId"] for s in old_eu)
    status, _, groups = call(server.port(), VIEW + "/filegroups/replaced/partition/", basepath=path, partition="eu")
    assert status == 200 and [g["fileId"] for g in groups] == expected_ids
    by_id = {s["fileId"]: s for s in old_eu}
    for g in groups:  # FileGroupDTO: the group's slices as they were before the overwrite
        assert set(g) == {"partition", "fileId", "slices", "timeline"} and g["partition"] == "eu"
        assert [dto_key(s) for s in g["slices"]] == [by_id[g["fileId"]]]
        assert {"action": "replacecommit", "ts": overwrite, "state": "COMPLETED"} in g["timeline"]["instants"]
    assert call(server.port(), VIEW + "/filegroups/replaced/partition/", basepath=path, partition="us")[2] == []
    url = VIEW + "/filegroups/replaced/beforeoron/"
    assert call(server.port(), url, basepath=path, partition="eu", maxinstant=first)[2] == []
    assert call(server.port(), url, basepath=path, partition="eu", maxinstant=overwrite)[2] == groups
    assert call(server.port(), url, basepath=path)[2] == groups  # no partition: every partition
    # the current slices no longer hold the replaced groups
    latest = call(server.port(), VIEW + "/slices/partition/latest/", basepath=path, partition="eu")[2]
    assert latest and not {d["fileId"] for d in latest} & set(expected_ids)


# ---------------------------------------------------------------- errors and lifecycle

def test_errors_are_json_with_a_status(server, mor, tmp_path):
    path, _ = mor
    port = server.port()

    def error(status, path_, method="GET", body=None, **params):
        got, _, answer = call(port, path_, method, body, **params)
        assert got == status and set(answer) == {"error"}, answer
        assert "\tat " not in answer["error"] and "Exception" not in answer["error"]
        return answer["error"]

    assert "basepath" in error(400, VIEW + "/slices/partition/latest/", partition="eu")
    assert "/v1/hoodie/view/nothing/here" in error(404, VIEW + "/nothing/here", basepath=path)
    assert "no Hudi table at" in error(400, VIEW + "/slices/partition/latest/", basepath=str(tmp_path))
    assert "maxinstant" in error(400, VIEW + "/slices/beforeoron/latest/", basepath=path, partition="eu")
    assert "instant" in error(400, VIEW + "/slices/beforeoron/latest/", basepath=path, partition="eu",
                              maxinstant="yesterday")
    assert "POST" in error(405, VIEW + "/refresh/", basepath=path)
    assert "list of partition" in error(400, VIEW + "/slices/partitions/latest/", "POST", body={"eu": 1},
                                        basepath=path)
    assert "cannot reach" in error(400, VIEW + "/timeline/hash", basepath="nosuchscheme://x/t")


def test_start_stop_and_embedded(spark, jvm, mor, tmp_path):
    path, _ = mor
    servers = jvm.io.hudimeta.view.TimelineServer
    conf = spark._jsc.hadoopConfiguration()
    s = servers.start(conf, 0, {"hoodie.embed.timeline.server.threads": "2"})
    port = s.port()
    assert call(port, VIEW + "/timeline/hash", basepath=path)[0] == 200
    call(port, VIEW + "/missing")
    assert s.requests() == 2
    s.stop()
    s.stop()  # idempotent
    assert not s.isRunning()
    assert _port_closes(port)

    first = servers.startEmbedded(conf, 0, {})
    assert servers.startEmbedded(conf, 0, {}) == first  # reused while it runs
    other = servers.startEmbedded(conf, 0, {"hoodie.embed.timeline.server.reuse.enabled": "false"})
    assert other != first
    assert call(other, VIEW + "/timeline/hash", basepath=path)[0] == 200
    servers.stopEmbedded()
    for p in (first, other):
        with pytest.raises(OSError):
            socket.create_connection(("127.0.0.1", p), timeout=5).close()
    again = servers.startEmbedded(conf, 0, {})  # a stopped embedded server is replaced
    assert call(again, VIEW + "/timeline/hash", basepath=path)[0] == 200
    # a write asking for another view storage gets a server keeping its views there; each is reused
    spill_dir = tmp_path / "spill"
    spill = {"hoodie.filesystem.view.type": "SPILLABLE_DISK", "hoodie.filesystem.view.spillable.mem": "1",
             "hoodie.filesystem.view.spillable.dir": str(spill_dir)}
    spilling = servers.startEmbedded(conf, 0, spill)
    assert spilling != again and servers.startEmbedded(conf, 0, spill) == spilling
    assert servers.startEmbedded(conf, 0, {}) == again
    jvm.io.hudimeta.view.TableViews.invalidate(path)
    assert call(spilling, VIEW + "/slices/partitions/latest/", method="POST", basepath=path)[0] == 200
    assert any(spill_dir.rglob("*"))  # a 1-byte memory bound: the view's partitions went to disk
    servers.stopEmbedded()
