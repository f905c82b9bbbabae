"""s3_server.control: the /_harness/ endpoints, in plain HTTP; none of them is logged, delayed or faulted."""
import json
import urllib.error
import urllib.request

import pytest


def call(server, method: str, name: str, body: object = None):
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(f"{server.endpoint}/_harness/{name}", data=data, method=method)
    with urllib.request.urlopen(request, timeout=10) as response:
        return response.status, json.loads(response.read())


def test_health_names_the_server_process(s3):
    status, body = call(s3, "GET", "health")
    assert status == 200 and body["ok"] is True and isinstance(body["pid"], int)


def test_a_rule_is_appended_and_listed_with_its_counts(s3):
    status, rules = call(s3, "POST", "faults", {"action": "error", "op": "PUT", "status": 503})
    assert status == 200
    assert rules == [{"action": "error", "op": "PUT", "key": None, "after": 0, "times": 1, "status": 503,
                      "code": "SlowDown", "delay_ms": 0, "pid": None, "group": False, "seen": 0, "applied": 0}]
    assert call(s3, "DELETE", "faults") == (200, [])


def test_a_rule_the_server_cannot_apply_is_a_400(s3):
    with pytest.raises(urllib.error.HTTPError) as raised:
        call(s3, "POST", "faults", {"action": "explode"})
    assert raised.value.code == 400 and "unknown action" in json.loads(raised.value.read())["error"]
    with pytest.raises(urllib.error.HTTPError) as raised:
        call(s3, "POST", "faults", ["not", "an", "object"])
    assert raised.value.code == 400


def test_latency_is_read_and_set(s3):
    assert call(s3, "POST", "latency", {"ms": 25}) == (200, {"ms": 25})
    assert call(s3, "GET", "latency") == (200, {"ms": 25})
    with pytest.raises(urllib.error.HTTPError) as raised:
        call(s3, "POST", "latency", {"ms": -1})
    assert raised.value.code == 400


def test_control_requests_escape_every_rule(s3):
    s3.add_fault("reset", times=None)
    s3.add_fault("error", op=None, key=".*", times=None)
    assert call(s3, "GET", "log") == (200, [])
    assert call(s3, "DELETE", "log") == (200, {"ok": True})


def test_an_unknown_endpoint_is_a_404(s3):
    with pytest.raises(urllib.error.HTTPError) as raised:
        call(s3, "GET", "nothing")
    assert raised.value.code == 404
