"""`pyhudi timeline-server`: a JVM serving a table's view until killed, queried with TimelineClient."""
from __future__ import annotations

import os
import queue
import socket
import subprocess
import sys
import threading

import pytest

from conftest import PROJECT
from pyhudi.hudi_table import HudiTable
from pyhudi.write.timeline_client import TimelineClient, TimelineServerUnavailable
from pyhudi.write.view import latest_file_slices

SCHEMA = "id string, ts long, region string"


@pytest.fixture(scope="module")
def table(spark, tmp_path_factory):
    path = str(tmp_path_factory.mktemp("cli_tls") / "t")
    HudiTable(spark, path, {"hoodie.table.name": "cli_tls", "hoodie.datasource.write.recordkey.field": "id",
                            "hoodie.datasource.write.partitionpath.field": "region"}).insert(
        spark.createDataFrame([(f"k{i}", i, ("eu", "us")[i % 2]) for i in range(20)], SCHEMA))
    return path


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def cli(*args) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "pyhudi", "timeline-server", *args], cwd=str(PROJECT),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=dict(os.environ))


def first_line(stream, timeout_s: float) -> str:
    lines: queue.Queue = queue.Queue()
    threading.Thread(target=lambda: lines.put(stream.readline()), daemon=True).start()
    return lines.get(timeout=timeout_s)


def test_serves_until_killed(spark, table):
    port = free_port()
    proc = cli(table, "--port", str(port), "--view-type", "spillable_disk", "--spillable-mem", "1000000")
    try:
        line = first_line(proc.stdout, 120)
        assert line.strip() == f"timeline server for {table} on port {port}", proc.stderr.read()
        client = TimelineClient("localhost", port, 30)
        got = client.latest_file_slices(table, ["eu", "us"])
        assert got and got == latest_file_slices(spark, table, ["eu", "us"], {"hoodie.embed.timeline.server": "false"})
        assert client.latest_file_slices(table, ["us"]) == [s for s in got if s.partition == "us"]
    finally:
        proc.kill()  # SIGKILL: os.exec made the JVM this very process, so nothing is left serving
        proc.wait(timeout=30)
    with pytest.raises(TimelineServerUnavailable, match=f"localhost:{port}"):
        TimelineClient("localhost", port, 5).latest_file_slices(table, ["eu"])


@pytest.mark.parametrize("args", [("--port", "1"), ("T", "--port", "x"), ("T", "--port", "1", "--view-type", "disk"),
                                  ("T", "--port", "1", "--spillable-mem", "-5"), ("T", "--port", "70000")],
                         ids=["no-path", "bad-port", "bad-view-type", "bad-mem-in-jvm", "port-range-in-jvm"])
def test_bad_arguments_exit_2(args):
    proc = cli(*args)
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 2 and "usage" in err.lower() and not out
