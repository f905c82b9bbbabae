"""TimelineClient against a real timeline server: the same slices as the driver's view (WriterView),
and TimelineServerUnavailable, in time, when nothing answers."""
from __future__ import annotations

import socket
import time

import pytest

from pyhudi.errors import HudiError
from pyhudi.hudi_table import HudiTable
from pyhudi.write.timeline_client import TimelineClient, TimelineServerError, TimelineServerUnavailable
from pyhudi.write.view import latest_file_slices

SCHEMA = "id string, ts long, region string"
REGIONS = ("eu", "us", "apac")
IN_DRIVER = {"hoodie.embed.timeline.server": "false"}  # WriterView through py4j, no server


@pytest.fixture(scope="module")
def table(spark, tmp_path_factory):
    """MERGE_ON_READ over three partitions: base files, then log files in some groups."""
    path = str(tmp_path_factory.mktemp("tlc") / "t")
    t = HudiTable(spark, path, {"hoodie.table.name": "tlc", "hoodie.datasource.write.recordkey.field": "id",
                                "hoodie.datasource.write.precombine.field": "ts",
                                "hoodie.datasource.write.partitionpath.field": "region",
                                "hoodie.datasource.write.table.type": "MERGE_ON_READ"})
    t.insert(spark.createDataFrame([(f"k{i}", 1, REGIONS[i % 3]) for i in range(30)], SCHEMA))
    t.upsert(spark.createDataFrame([(f"k{i}", 2, REGIONS[i % 3]) for i in range(0, 30, 3)], SCHEMA))
    return path


@pytest.fixture(scope="module")
def client(spark):
    server = spark._jvm.io.hudimeta.view.TimelineServer.start(spark._jsc.hadoopConfiguration(), 0, {})
    yield TimelineClient("localhost", server.port(), 30)
    server.stop()


def test_slices_equal_the_driver_view(spark, table, client):
    for partitions in (["us"], ["eu", "us"], list(REGIONS), ["apac", "mars", "eu", "apac"]):
        got = client.latest_file_slices(table, partitions)
        assert got == latest_file_slices(spark, table, partitions, IN_DRIVER)
        assert {s.partition for s in got} == set(partitions) - {"mars"}
    assert any(s.logs for s in client.latest_file_slices(table, ["eu"]))
    assert all(s.base and s.base_size > 0 for s in client.latest_file_slices(table, REGIONS))
    assert client.latest_file_slices(table, []) == []


def test_state_hash_refresh_and_compactions(spark, table, client):
    client.latest_file_slices(table, ["eu"])
    last, digest = client.state[table]
    jpath = spark._jvm.org.apache.hadoop.fs.Path(table)
    fs = jpath.getFileSystem(spark._jsc.hadoopConfiguration())
    views = spark._jvm.io.hudimeta.view
    view = views.TableViews.synced(fs, jpath, views.ViewStorageConfig.DEFAULT)
    assert (last, digest) == (view.lastInstant(), view.timelineHash())
    assert client.timeline_hash(table) == digest
    both = ["eu", "us"]
    assert client.latest_file_slices(table, both, last, digest) == client.latest_file_slices(table, both)
    assert client.refresh(table) is True
    assert client.pending_compactions(table, last, digest) == []


def test_server_errors_raise_hudi_errors(client, tmp_path):
    with pytest.raises(TimelineServerError, match="no Hudi table at") as e:
        client.latest_file_slices(str(tmp_path), ["eu"])
    assert isinstance(e.value, HudiError) and e.value.status == 400
    with pytest.raises(TimelineServerError, match="400"):
        client.latest_file_slices(str(tmp_path), ["eu", "us"])


def test_closed_port_is_unavailable_quickly():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    start = time.monotonic()
    with pytest.raises(TimelineServerUnavailable, match=f"127.0.0.1:{port}") as e:
        TimelineClient("127.0.0.1", port, 2).latest_file_slices("/t", ["eu"])
    assert time.monotonic() - start < 2
    assert isinstance(e.value, HudiError) and isinstance(e.value, OSError)


def test_silent_server_is_unavailable_after_the_timeout():
    with socket.socket() as s:  # accepts connections (the backlog) but never answers
        s.bind(("127.0.0.1", 0))
        s.listen(4)
        start = time.monotonic()
        with pytest.raises(TimelineServerUnavailable, match="within the timeout"):
            TimelineClient("127.0.0.1", s.getsockname()[1], 1).timeline_hash("/t")
        assert 0.9 < time.monotonic() - start < 5
