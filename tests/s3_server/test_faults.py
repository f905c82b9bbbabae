"""s3_server.faults: which rule applies to a request, counting `after` and `times` per rule."""
import pytest

from s3_server.faults import Faults, Rule, RuleError, rule_from_json
from s3_server.requests import S3Request


def request(op: str = "PUT", key: str = "t/a.parquet") -> S3Request:
    return S3Request(op, "GET" if op == "LIST" else op, "bkt", key, None)


def actions(faults: Faults, requests: list[S3Request]) -> list[str | None]:
    return [rule.action if (rule := faults.pick(r)) else None for r in requests]


def test_a_rule_applies_times_then_is_spent():
    faults = Faults()
    faults.add(Rule("error", times=2))
    assert actions(faults, [request()] * 3) == ["error", "error", None]
    assert faults.rules()[0]["applied"] == 2


def test_after_lets_matching_requests_through_first():
    faults = Faults()
    faults.add(Rule("reset", op="PUT", after=2, times=1))
    assert actions(faults, [request("GET"), request(), request(), request(), request()]) == [
        None, None, None, "reset", None]


def test_times_none_applies_forever():
    faults = Faults()
    faults.add(Rule("delay", times=None, delay_ms=1))
    assert actions(faults, [request()] * 20) == ["delay"] * 20


def test_op_and_key_must_both_match():
    faults = Faults()
    faults.add(Rule("error", op="PUT", key=r"\.hoodie/.*\.commit$", times=None))
    assert actions(faults, [request("PUT", ".hoodie/1.commit"), request("GET", ".hoodie/1.commit"),
                            request("PUT", "t/a.parquet"), request("PUT", ".hoodie/1.commit.requested")]) == [
        "error", None, None, None]


def test_the_key_pattern_is_searched_in_bucket_slash_key():
    faults = Faults()
    faults.add(Rule("error", key="^bkt/t/", times=None))
    assert actions(faults, [request(key="t/a"), request(key="u/t/a")]) == ["error", None]


def test_the_first_live_rule_applies_and_later_rules_do_not_count_the_request():
    faults = Faults()
    faults.add(Rule("error", op="PUT", times=1))
    faults.add(Rule("reset", op="PUT", times=1))
    faults.add(Rule("delay", op=None, after=1, times=1))
    assert actions(faults, [request()] * 4) == ["error", "reset", None, "delay"]
    assert [r["seen"] for r in faults.rules()] == [1, 1, 2]


def test_a_rule_waiting_out_its_after_passes_the_request_on():
    faults = Faults()
    faults.add(Rule("reset", after=1))
    faults.add(Rule("error", times=None))
    assert actions(faults, [request()] * 3) == ["error", "reset", "error"]


def test_clear_removes_every_rule():
    faults = Faults()
    faults.add(Rule("error", times=None))
    faults.clear()
    assert actions(faults, [request()]) == [None] and faults.rules() == []


def test_error_codes_follow_the_status():
    assert Rule("error", status=500).code == "InternalError"
    assert Rule("error", status=503).code == "SlowDown"
    assert Rule("error", status=418, code="Teapot").code == "Teapot"


@pytest.mark.parametrize("data", [
    {"action": "explode"},
    {"action": "error", "op": "COPY"},
    {"action": "error", "status": 418},
    {"action": "kill"},
    {"action": "kill", "pid": 0},
    {"action": "error", "key": "("},
    {"action": "error", "after": -1},
    {"action": "error", "times": "2"},
    {"action": "delay", "delay_ms": -5},
    {"action": "error", "colour": "red"},
    {"op": "PUT"},
])
def test_rules_the_server_cannot_apply_are_refused(data):
    with pytest.raises(RuleError):
        rule_from_json(data)
