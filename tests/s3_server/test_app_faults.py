"""s3_server.app, the fault actions as a client sees them: S3 errors, connections reset before or after moto
handled the request, delays, and a writer killed between two requests."""
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request

import pytest
from botocore.exceptions import ClientError, ConnectionClosedError, EndpointConnectionError

CONNECTION_ERRORS = (ConnectionClosedError, EndpointConnectionError)


@pytest.mark.parametrize("status, code", [(500, "InternalError"), (503, "SlowDown")])
def test_an_error_rule_answers_with_s3s_error(s3, client, bucket, exists, status, code):
    s3.add_fault("error", op="PUT", status=status)
    with pytest.raises(ClientError) as raised:
        client.put_object(Bucket=bucket, Key=f"error/{status}", Body=b"x")
    assert raised.value.response["Error"]["Code"] == code
    assert raised.value.response["ResponseMetadata"]["HTTPStatusCode"] == status
    assert not exists(f"error/{status}")
    assert s3.requests()[0] == {"op": "PUT", "method": "PUT", "bucket": bucket, "key": f"error/{status}",
                                "status": status, "range": None, "prefix": None, "fault": "error"}


def test_an_error_body_is_s3s_xml(s3, server, bucket):
    s3.add_fault("error", op="GET", status=403, code="AccessDenied")
    with pytest.raises(urllib.error.HTTPError) as raised:
        urllib.request.urlopen(f"{server.endpoint}/{bucket}/any", timeout=10)
    assert raised.value.code == 403
    assert raised.value.headers["Content-Type"] == "application/xml"
    body = raised.value.read().decode()
    assert "<Error><Code>AccessDenied</Code><Message>" in body and "<RequestId>" in body


def test_standard_retries_get_through_two_slowdowns(s3, retrying_client, bucket, exists):
    s3.add_fault("error", op="PUT", status=503, times=2)
    retrying_client.put_object(Bucket=bucket, Key="retry/a", Body=b"x")
    assert exists("retry/a")
    puts = [r for r in s3.requests() if r["op"] == "PUT"]
    assert [(r["status"], r["fault"]) for r in puts] == [(503, "error"), (503, "error"), (200, None)]


def test_a_reset_reaches_no_one(s3, client, bucket, exists):
    s3.add_fault("reset", op="PUT", key="reset/")
    with pytest.raises(CONNECTION_ERRORS):
        client.put_object(Bucket=bucket, Key="reset/a", Body=b"x")
    assert not exists("reset/a")
    assert s3.requests()[0]["fault"] == "reset" and s3.requests()[0]["status"] is None


def test_a_reset_is_a_tcp_reset(s3, server, bucket):
    s3.add_fault("reset", op="GET")
    with socket.create_connection(("127.0.0.1", server.port), timeout=10) as sock:
        sock.sendall(f"GET /{bucket}/k HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".encode())
        with pytest.raises(ConnectionResetError):
            sock.recv(1024)


def test_a_dropped_response_loses_the_answer_not_the_write(s3, client, bucket, exists):
    s3.add_fault("drop_response", op="PUT", key="dropped/")
    with pytest.raises(CONNECTION_ERRORS):
        client.put_object(Bucket=bucket, Key="dropped/a", Body=b"payload")
    assert client.get_object(Bucket=bucket, Key="dropped/a")["Body"].read() == b"payload"
    assert s3.requests()[0] == {"op": "PUT", "method": "PUT", "bucket": bucket, "key": "dropped/a",
                                "status": 200, "range": None, "prefix": None, "fault": "drop_response"}


def test_a_delay_holds_the_request_then_handles_it(s3, client, bucket, exists):
    s3.add_fault("delay", op="PUT", delay_ms=150)
    start = time.monotonic()
    client.put_object(Bucket=bucket, Key="delayed/a", Body=b"x")
    assert time.monotonic() - start >= 0.15
    assert exists("delayed/a")
    assert (s3.requests()[0]["fault"], s3.requests()[0]["status"]) == ("delay", 200)


def test_kill_kills_the_writer_before_its_request_is_handled(s3, client, bucket, exists):
    writer = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        s3.add_fault("kill", op="PUT", pid=writer.pid)
        with pytest.raises(CONNECTION_ERRORS):
            client.put_object(Bucket=bucket, Key="killed/a", Body=b"x")
        assert writer.wait(timeout=30) == -signal.SIGKILL
    finally:
        writer.kill()
        writer.wait()
    assert not exists("killed/a")
    assert s3.requests()[0]["fault"] == "kill"


def test_a_group_kill_takes_the_writers_children_too(s3, client, bucket):
    writer = subprocess.Popen([sys.executable, "-c", "import subprocess, sys, time; "
                               "subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)']); "
                               "print(flush=True); time.sleep(60)"], stdout=subprocess.PIPE, start_new_session=True)
    try:
        writer.stdout.readline()  # its child is started
        s3.add_fault("kill", op="PUT", pid=writer.pid, group=True)
        with pytest.raises(CONNECTION_ERRORS):
            client.put_object(Bucket=bucket, Key="killed/b", Body=b"x")
        assert writer.wait(timeout=30) == -signal.SIGKILL
        with pytest.raises(ProcessLookupError):
            for _ in range(300):  # the child, killed too, is reaped by init: its group empties
                os.killpg(writer.pid, 0)
                time.sleep(0.1)
    finally:
        writer.kill()
        writer.wait()


def test_after_and_times_pick_which_requests_fail(s3, client, bucket):
    s3.add_fault("error", op="PUT", key="^bkt/counted/", after=1, times=2)
    outcomes = []
    for i in range(5):
        try:
            client.put_object(Bucket=bucket, Key=f"counted/{i}", Body=b"x")
            outcomes.append("ok")
        except ClientError as e:
            outcomes.append(e.response["Error"]["Code"])
    assert outcomes == ["ok", "InternalError", "InternalError", "ok", "ok"]
    assert [(r["key"], r["fault"]) for r in s3.requests()] == [
        ("counted/0", None), ("counted/1", "error"), ("counted/2", "error"), ("counted/3", None),
        ("counted/4", None)]
    assert [(r["seen"], r["applied"]) for r in s3.faults()] == [(3, 2)]


def test_a_spent_rule_leaves_the_next_one_to_apply(s3, client, bucket):
    s3.add_fault("error", op="GET", status=500)
    s3.add_fault("error", op="GET", status=503)
    codes = []
    for _ in range(3):
        try:
            client.list_buckets()  # a LIST: neither rule matches it
            client.get_object(Bucket=bucket, Key="nowhere")
        except ClientError as e:
            codes.append(e.response["Error"]["Code"])
    assert codes == ["InternalError", "SlowDown", "NoSuchKey"]


def test_rules_are_cleared(s3, client, bucket):
    s3.add_fault("error", times=None)
    s3.clear_faults()
    client.put_object(Bucket=bucket, Key="cleared/a", Body=b"x")
    assert s3.faults() == [] and s3.requests()[0]["fault"] is None


def test_pyarrow_retries_through_a_slowdown(s3, arrow, bucket):
    s3.add_fault("error", op="PUT", status=503, times=1)
    with arrow.open_output_stream(f"{bucket}/arrow-retry/a.bin") as out:
        out.write(b"y" * 100)
    with arrow.open_input_file(f"{bucket}/arrow-retry/a.bin") as f:
        assert f.read() == b"y" * 100
    assert [r["fault"] for r in s3.requests() if r["op"] == "PUT"] == ["error", None]
