"""The control endpoints, under /_harness/ (no bucket name starts with "_", so none clashes with S3):

    GET    /_harness/health     {"ok": true, "pid": ...}
    GET    /_harness/log        the request log, a JSON list
    DELETE /_harness/log        clears it
    GET    /_harness/faults     the rules, with how many requests each has seen and affected
    POST   /_harness/faults     appends the JSON rule (s3_server.faults.FIELDS); 400 if the server cannot apply it
    DELETE /_harness/faults     clears every rule
    GET    /_harness/latency    {"ms": N}
    POST   /_harness/latency    sets it from {"ms": N}

Control requests are neither logged, delayed nor faulted."""
from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING

from werkzeug.wrappers import Request, Response

from s3_server.faults import RuleError, rule_from_json

if TYPE_CHECKING:
    from s3_server.app import Harness

CONTROL_PREFIX = "/_harness/"


def _json(value: object, status: int = 200) -> Response:
    return Response(json.dumps(value), status=status, content_type="application/json")


def _body(request: Request) -> dict:
    try:
        value = json.loads(request.get_data() or b"{}")
    except ValueError as e:
        raise RuleError(f"not JSON: {e}") from None
    if not isinstance(value, dict):
        raise RuleError("expected a JSON object")
    return value


def _latency(harness: Harness, body: dict) -> Response:
    ms = body.get("ms")
    if not isinstance(ms, (int, float)) or ms < 0:
        return _json({"error": "expected {\"ms\": N}, N >= 0"}, 400)
    harness.latency_ms = float(ms)
    return _json({"ms": harness.latency_ms})


def _route(harness: Harness, request: Request) -> Response:
    name, method = request.path[len(CONTROL_PREFIX):].strip("/"), request.method
    if (name, method) == ("health", "GET"):
        return _json({"ok": True, "pid": os.getpid()})
    if name == "log" and method in ("GET", "DELETE"):
        if method == "DELETE":
            harness.log.clear()
            return _json({"ok": True})
        return _json(harness.log.entries())
    if name == "faults" and method in ("GET", "POST", "DELETE"):
        if method == "POST":
            harness.faults.add(rule_from_json(_body(request)))
        elif method == "DELETE":
            harness.faults.clear()
        return _json(harness.faults.rules())
    if name == "latency" and method in ("GET", "POST"):
        return _latency(harness, _body(request)) if method == "POST" else _json({"ms": harness.latency_ms})
    return _json({"error": f"no control endpoint {method} {request.path}"}, 404)


def control(harness: Harness, environ: dict, start_response: Callable) -> Iterable[bytes]:
    request = Request(environ)
    try:
        response = _route(harness, request)
    except (RuleError, TypeError) as e:  # TypeError: a rule field of the wrong type
        response = _json({"error": str(e)}, 400)
    return response(environ, start_response)
