"""s3_server.client: S3Server starts a server process, drives it, and stops it."""
import socket
import time
from collections import Counter

import pytest

from s3_server import S3Server
from s3_server.client import S3ServerError


def answers(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=1):
            return True
    except OSError:
        return False


def test_the_client_drives_its_server(s3, client, bucket):
    client.put_object(Bucket=bucket, Key="client/a", Body=b"x")
    client.get_object(Bucket=bucket, Key="client/a")
    assert s3.counts() == Counter({"PUT": 1, "GET": 1})
    assert [r["key"] for r in s3.requests()] == ["client/a", "client/a"]
    s3.reset_log()
    assert s3.requests() == [] and s3.counts() == Counter()


def test_create_bucket_twice_is_fine(s3, client):
    s3.create_bucket("twice")
    s3.create_bucket("twice")
    assert "twice" in [b["Name"] for b in client.list_buckets()["Buckets"]]


def test_a_bad_rule_is_refused_with_the_servers_reason(s3):
    with pytest.raises(S3ServerError, match="status 418 needs its S3 error code"):
        s3.add_fault("error", status=418)
    assert s3.faults() == []


def test_a_server_on_a_chosen_port_with_latency_from_the_start():
    with socket.socket() as probe:  # a free port, given back for the server to take
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    with S3Server(latency_ms=100, port=port) as started:
        assert started.endpoint == f"http://127.0.0.1:{port}"
        begin = time.monotonic()
        started.create_bucket("slow")
        assert time.monotonic() - begin >= 0.1
        assert started.counts() == Counter({"PUT": 1})
    assert not answers(port)
    started.stop()  # a second stop is harmless


def test_a_port_in_use_fails_the_start(server):
    with pytest.raises(S3ServerError, match="did not start"):
        S3Server(port=server.port).start()


def test_a_server_not_started_has_no_endpoint_and_stops_quietly():
    unstarted = S3Server()
    with pytest.raises(S3ServerError, match="no port"):
        _ = unstarted.endpoint
    unstarted.stop()
