"""latest_file_slices: the connector's answer for the partitions asked, as FileSlice values."""
import os

import pytest

from pyhudi.hudi_table import HudiTable
from pyhudi.table.file_slices import FileSlice
from pyhudi.write.view import latest_file_slices

SCHEMA = "id string, ts long, region string"


@pytest.fixture(scope="module")
def table(spark, tmp_path_factory):
    """A merge-on-read table over three partitions: base files, then log files in some groups."""
    path = str(tmp_path_factory.mktemp("view") / "t")
    t = HudiTable(spark, path, {"hoodie.table.name": "v", "hoodie.datasource.write.recordkey.field": "id",
                                "hoodie.datasource.write.precombine.field": "ts",
                                "hoodie.datasource.write.partitionpath.field": "region",
                                "hoodie.datasource.write.table.type": "MERGE_ON_READ"})
    regions = ("eu", "us", "apac")
    t.insert(spark.createDataFrame([(f"k{i}", 1, regions[i % 3]) for i in range(30)], SCHEMA))
    t.upsert(spark.createDataFrame([(f"k{i}", 2, regions[i % 3]) for i in range(0, 30, 3)], SCHEMA))
    return path


def test_one_partition(spark, table):
    slices = latest_file_slices(spark, table, ["us"])
    assert slices and all(isinstance(s, FileSlice) and s.partition == "us" for s in slices)
    for s in slices:
        assert s.base and s.base_size == os.path.getsize(os.path.join(table, "us", s.base))
        assert s.base_instant in s.base and s.file_id == s.base.split("_")[0]
    assert latest_file_slices(spark, table, ["eu"])[0].logs  # the upsert's log files


def test_every_partition_or_none(spark, table):
    every = latest_file_slices(spark, table, None)
    assert {s.partition for s in every} == {"eu", "us", "apac"}
    assert [s for s in every if s.partition == "us"] == latest_file_slices(spark, table, iter(["us"]))
    assert latest_file_slices(spark, table, []) == []
    assert latest_file_slices(spark, table, ["mars"]) == []


def _upsert(spark, path, rows, **options):
    HudiTable(spark, path, {"hoodie.table.name": "v", "hoodie.datasource.write.recordkey.field": "id",
                            "hoodie.datasource.write.precombine.field": "ts",
                            "hoodie.datasource.write.partitionpath.field": "region", **options}
              ).upsert(spark.createDataFrame(rows, SCHEMA))


def _values(spark, path):
    return {r["id"]: r["ts"] for r in spark.read.format("hudi-meta").load(path).collect()}


def test_writes_ask_the_embedded_timeline_server(spark, tmp_path):
    path = str(tmp_path / "t")
    _upsert(spark, path, [("a", 1, "eu")])
    server = spark._jvm.io.hudimeta.view.TimelineServer
    before = server.embeddedRequests()
    _upsert(spark, path, [("a", 2, "eu"), ("b", 1, "us")])
    assert server.embeddedRequests() > before
    assert _values(spark, path) == {"a": 2, "b": 1}


def test_a_write_completes_when_the_timeline_server_dies_mid_write(spark, tmp_path, caplog):
    """The embedded server is stopped after the write has started: the write asks the driver's JVM instead."""
    from pyhudi import faults

    path = str(tmp_path / "t")
    _upsert(spark, path, [("a", 1, "eu"), ("b", 1, "us")])
    server = spark._jvm.io.hudimeta.view.TimelineServer
    with caplog.at_level("WARNING", logger="pyhudi.write.view"), faults.at("before_view", server.stopEmbedded):
        _upsert(spark, path, [("a", 2, "eu"), ("c", 1, "eu")])
    assert "builds its view in the driver" in caplog.text and "refused" in caplog.text.lower()
    assert _values(spark, path) == {"a": 2, "b": 1, "c": 1}
    _upsert(spark, path, [("b", 3, "us")])  # the next write starts a server again
    assert _values(spark, path) == {"a": 2, "b": 3, "c": 1}


def test_a_remote_server_that_is_down(spark, tmp_path, caplog):
    """REMOTE_FIRST falls back to the driver's view; REMOTE_ONLY fails naming the server, table unchanged."""
    import socket

    from pyhudi.write.timeline_client import TimelineServerUnavailable

    with socket.socket() as s:  # a port nobody listens on
        s.bind(("localhost", 0))
        port = s.getsockname()[1]
    path = str(tmp_path / "t")
    _upsert(spark, path, [("a", 1, "eu")])
    remote = {"hoodie.filesystem.view.remote.port": str(port), "hoodie.embed.timeline.server": "false"}
    with caplog.at_level("WARNING", logger="pyhudi.write.view"):
        _upsert(spark, path, [("a", 2, "eu")], **remote, **{"hoodie.filesystem.view.type": "REMOTE_FIRST"})
    assert f"localhost:{port}" in caplog.text
    assert _values(spark, path) == {"a": 2}
    with pytest.raises(TimelineServerUnavailable, match=f"localhost:{port}"):
        _upsert(spark, path, [("a", 3, "eu")], **remote, **{"hoodie.filesystem.view.type": "REMOTE_ONLY"})
    assert _values(spark, path) == {"a": 2}
