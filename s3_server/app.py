"""The server: moto's S3 application behind a WSGI middleware of ours that logs every S3 request, delays it by
the configured latency and applies the fault rules, served by werkzeug's threaded server so that parallel
requests overlap as on a real store. The control endpoints live under /_harness/ (s3_server.control)."""
from __future__ import annotations

import logging
import os
import signal
import socket
import struct
import threading
import time
from collections.abc import Callable, Iterable

from moto.moto_server.werkzeug_app import MotoRequestHandler, create_backend_app
from werkzeug.serving import BaseWSGIServer, make_server
from werkzeug.wrappers import Response

from s3_server.control import CONTROL_PREFIX, control
from s3_server.faults import Faults, Rule
from s3_server.requests import S3Request, classify

HOST = "127.0.0.1"


class ResetConnection(ConnectionResetError):
    """Raised by the middleware to have the connection reset instead of answered. werkzeug takes a
    ConnectionError out of the application for a dropped connection and sends nothing; Handler then closes."""


class RequestLog:
    def __init__(self) -> None:
        self._entries: list[dict] = []
        self._lock = threading.Lock()

    def add(self, request: S3Request, status: int | None, fault: str | None) -> None:
        with self._lock:
            self._entries.append({**request.as_log(), "status": status, "fault": fault})

    def entries(self) -> list[dict]:
        with self._lock:
            return list(self._entries)

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()


def error_response(rule: Rule, request: S3Request) -> Response:
    request_id = os.urandom(8).hex().upper()
    resource = f"/{request.target}".rstrip("/") or "/"
    body = (f'<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>{rule.code}</Code>'
            f"<Message>fault injected by s3_server</Message><Resource>{resource}</Resource>"
            f"<RequestId>{request_id}</RequestId></Error>")
    return Response(body, status=rule.status, content_type="application/xml",
                    headers={"x-amz-request-id": request_id})


def reset(environ: dict) -> ResetConnection:
    """Arms the connection's socket so that closing it sends a TCP reset, not a FIN."""
    environ["werkzeug.socket"].setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    return ResetConnection("reset by s3_server")


def kill(pid: int, group: bool = False) -> None:
    try:
        (os.killpg if group else os.kill)(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass  # already gone: the writer died some other way, the request is still not handled


class Harness:
    """The WSGI middleware in front of moto."""

    def __init__(self, app: Callable, latency_ms: float = 0) -> None:
        self.app = app
        self.latency_ms = latency_ms
        self.faults = Faults()
        self.log = RequestLog()
        # S3 decides a conditional write atomically; moto checks, then writes: one at a time here makes it so
        self._conditional = threading.Lock()

    def _app(self, environ: dict, start_response: Callable) -> Iterable[bytes]:
        if environ.get("REQUEST_METHOD") == "PUT" and ("HTTP_IF_MATCH" in environ or "HTTP_IF_NONE_MATCH" in environ):
            with self._conditional:
                return list(self.app(environ, start_response))
        return self.app(environ, start_response)

    def __call__(self, environ: dict, start_response: Callable) -> Iterable[bytes]:
        if environ.get("PATH_INFO", "").startswith(CONTROL_PREFIX):
            return control(self, environ, start_response)
        request = classify(environ)
        if self.latency_ms > 0:
            time.sleep(self.latency_ms / 1000)
        rule = self.faults.pick(request)
        if rule is None:
            return self._moto(request, environ, start_response, None)
        return self._fault(rule, request, environ, start_response)

    def _fault(self, rule: Rule, request: S3Request, environ: dict, start_response: Callable) -> Iterable[bytes]:
        if rule.action == "delay":
            time.sleep(rule.delay_ms / 1000)
            return self._moto(request, environ, start_response, "delay")
        if rule.action == "error":
            self.log.add(request, rule.status, "error")
            return error_response(rule, request)(environ, start_response)
        if rule.action == "drop_response":
            return self._handle_then_reset(request, environ)
        if rule.action == "kill":
            kill(rule.pid, rule.group)
        self.log.add(request, None, rule.action)  # reset, kill: moto never sees the request
        raise reset(environ)

    def _moto(self, request: S3Request, environ: dict, start_response: Callable, fault: str | None):
        seen: list[int] = []

        def recording(status: str, headers, exc_info=None):
            seen.append(int(status.split(None, 1)[0]))
            return start_response(status, headers, exc_info)

        try:
            body = self._app(environ, recording)
        except Exception:
            self.log.add(request, 500, fault)  # werkzeug answers a 500 for a failure inside moto
            raise
        # logged before werkzeug sends a byte: whoever got the response finds its request in the log
        self.log.add(request, seen[-1] if seen else None, fault)
        return body

    def _handle_then_reset(self, request: S3Request, environ: dict) -> Iterable[bytes]:
        seen: list[int] = []
        body = self._app(environ, lambda status, headers, exc_info=None: seen.append(int(status.split()[0])))
        try:
            b"".join(body)  # run the response to its end: its effect happens, only the answer is lost
        finally:
            if hasattr(body, "close"):
                body.close()
        self.log.add(request, seen[-1] if seen else None, "drop_response")
        raise reset(environ)


class Handler(MotoRequestHandler):
    """moto's request handler (it keeps S3 metadata headers with underscores), quiet, and able to reset."""

    verbose = False

    def connection_dropped(self, error: BaseException, environ: dict | None = None) -> None:
        if isinstance(error, ResetConnection):
            self.close_connection = True
            self.rfile.close()  # the last reference to the socket's file: the close below is the real one
            self.connection.close()

    def log_request(self, code: int | str = "-", size: int | str = "-") -> None:
        if self.verbose:
            super().log_request(code, size)


def serve(port: int, latency_ms: float = 0, verbose: bool = False) -> BaseWSGIServer:
    """A threaded server of moto's S3 behind Harness on 127.0.0.1:port (0 = any free port), not yet serving."""
    logging.getLogger("werkzeug").setLevel(logging.INFO if verbose else logging.ERROR)
    handler = type("Handler", (Handler,), {"verbose": verbose})
    app = Harness(create_backend_app("s3"), latency_ms)
    return make_server(HOST, port, app, threaded=True, request_handler=handler)
