"""Fault rules: which S3 requests go wrong, and how. A rule names an op (or any), a regex searched in
"bucket/key" (or any), how many matching requests to let through first (`after`) and how many to affect
(`times`, None = forever). Rules are checked in the order added: a rule still letting requests through counts
the request and passes it on, the first one past its `after` applies, and the check stops there."""
from __future__ import annotations

import re
import threading
from dataclasses import dataclass, field

from s3_server.requests import OPS, S3Request

ACTIONS = ("error", "reset", "drop_response", "delay", "kill")
# the S3 error codes of the statuses a rule may give without naming a code
DEFAULT_CODES = {400: "BadRequest", 403: "AccessDenied", 404: "NoSuchKey", 409: "OperationAborted",
                 412: "PreconditionFailed", 500: "InternalError", 503: "SlowDown"}


class RuleError(ValueError):
    """A rule the server cannot apply (unknown action or op, bad regex, a missing pid)."""


@dataclass
class Rule:
    action: str
    op: str | None = None
    key: str | None = None
    after: int = 0
    times: int | None = 1
    status: int = 500
    code: str | None = None
    delay_ms: float = 0
    pid: int | None = None
    group: bool = False  # kill: the whole process group `pid` leads (a writer with its JVM and Python workers)
    seen: int = field(default=0, compare=False)
    applied: int = field(default=0, compare=False)

    def __post_init__(self) -> None:
        _check_numbers(self)
        if self.action not in ACTIONS:
            raise RuleError(f"unknown action {self.action!r}; one of {', '.join(ACTIONS)}")
        if self.op is not None and self.op not in OPS:
            raise RuleError(f"unknown op {self.op!r}; one of {', '.join(OPS)}")
        if self.action == "kill" and self.pid is None:
            raise RuleError("a kill rule needs the pid to kill")
        if self.action == "error" and self.code is None:
            self.code = DEFAULT_CODES.get(self.status)
            if self.code is None:
                raise RuleError(f"an error rule with status {self.status} needs its S3 error code")
        try:
            self._pattern = re.compile(self.key) if self.key is not None else None
        except re.error as e:
            raise RuleError(f"bad key pattern {self.key!r}: {e}") from None

    @property
    def spent(self) -> bool:
        return self.times is not None and self.applied >= self.times

    def matches(self, request: S3Request) -> bool:
        return ((self.op is None or self.op == request.op)
                and (self._pattern is None or self._pattern.search(request.target) is not None))

    def to_json(self) -> dict:
        return {"action": self.action, "op": self.op, "key": self.key, "after": self.after, "times": self.times,
                "status": self.status, "code": self.code, "delay_ms": self.delay_ms, "pid": self.pid,
                "group": self.group, "seen": self.seen, "applied": self.applied}


def _check_numbers(rule: Rule) -> None:
    # checked here, not when a request meets the rule: a bad rule is refused by POST /_harness/faults
    def whole(value: object) -> bool:
        return isinstance(value, int) and not isinstance(value, bool) and value >= 0

    if not whole(rule.after) or not (rule.times is None or whole(rule.times)):
        raise RuleError("after and times are whole numbers >= 0 (times may be null: forever)")
    if not whole(rule.status) or not isinstance(rule.delay_ms, (int, float)) or rule.delay_ms < 0:
        raise RuleError("status is a whole number and delay_ms a number >= 0")
    if rule.pid is not None and not (whole(rule.pid) and rule.pid > 0):
        raise RuleError("pid is a process id > 0 (0 or less would signal a whole process group)")


FIELDS = ("action", "op", "key", "after", "times", "status", "code", "delay_ms", "pid", "group")


def rule_from_json(data: dict) -> Rule:
    if not isinstance(data, dict) or "action" not in data:
        raise RuleError("a rule is a JSON object with an action")
    unknown = set(data) - set(FIELDS)
    if unknown:
        raise RuleError(f"unknown rule fields: {', '.join(sorted(unknown))}")
    return Rule(**data)


class Faults:
    """The server's rules, shared by its request threads."""

    def __init__(self) -> None:
        self._rules: list[Rule] = []
        self._lock = threading.Lock()

    def add(self, rule: Rule) -> None:
        with self._lock:
            self._rules.append(rule)

    def clear(self) -> None:
        with self._lock:
            self._rules.clear()

    def rules(self) -> list[dict]:
        with self._lock:
            return [r.to_json() for r in self._rules]

    def pick(self, request: S3Request) -> Rule | None:
        """The rule that applies to `request`, counted as applied, or None."""
        with self._lock:
            for rule in self._rules:
                if rule.spent or not rule.matches(request):
                    continue
                rule.seen += 1
                if rule.seen > rule.after:
                    rule.applied += 1
                    return rule
        return None
