"""S3Server: starts `python -m s3_server` as a process of its own (the test process's GIL never slows the store)
and drives its control endpoints with the standard library only."""
from __future__ import annotations

import collections
import json
import os
import re
import selectors
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

REPOSITORY = Path(__file__).resolve().parent.parent
START_TIMEOUT_S = 20
# no proxy from the environment may stand between us and 127.0.0.1
_OPENER = urllib.request.build_opener(urllib.request.ProxyHandler({}))


class S3ServerError(RuntimeError):
    """The server did not start, or refused a control call."""


class S3Server:
    def __init__(self, latency_ms: float = 0, port: int | None = None) -> None:
        self.latency_ms = latency_ms
        self.port = port
        self._process: subprocess.Popen | None = None

    @property
    def endpoint(self) -> str:
        if self.port is None:
            raise S3ServerError("the server has no port until it is started")
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> S3Server:
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(REPOSITORY),
                                                                          os.environ.get("PYTHONPATH")]))}
        argv = [sys.executable, "-m", "s3_server", "--port", str(self.port or 0), "--latency-ms", str(self.latency_ms)]
        self._process = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, env=env)
        deadline = time.monotonic() + START_TIMEOUT_S
        try:
            self.port = self._announced_port(deadline)
            self._wait_healthy(deadline)
        except BaseException:
            self.stop()
            raise
        return self

    def _announced_port(self, deadline: float) -> int:
        """The port on the server's first line of stdout (the one it bound, when it was asked for any)."""
        assert self._process is not None and self._process.stdout is not None
        with selectors.DefaultSelector() as selector:
            selector.register(self._process.stdout, selectors.EVENT_READ)
            while not selector.select(timeout=max(0.0, deadline - time.monotonic())):
                if time.monotonic() >= deadline:
                    raise S3ServerError(f"s3_server did not start within {START_TIMEOUT_S} s")
        line = self._process.stdout.readline().decode(errors="replace")
        found = re.search(r"http://127\.0\.0\.1:(\d+)", line)
        if not found:
            code = self._process.wait(timeout=5) if not line else None
            raise S3ServerError(f"s3_server did not start (exit {code}): {line.strip()!r}")
        return int(found.group(1))

    def _wait_healthy(self, deadline: float) -> None:
        while True:
            try:
                self._call("GET", "health")
                return
            except (OSError, S3ServerError):
                if time.monotonic() >= deadline or self._process.poll() is not None:
                    raise S3ServerError(f"s3_server on port {self.port} never answered its health check") from None
                time.sleep(0.05)

    def stop(self) -> None:
        process, self._process = self._process, None
        if process is None:
            return
        if process.poll() is None:
            process.terminate()
            try:
                process.wait(timeout=5)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        if process.stdout is not None:
            process.stdout.close()

    def __enter__(self) -> S3Server:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def _call(self, method: str, name: str, body: object = None) -> object:
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(f"{self.endpoint}/_harness/{name}", data=data, method=method,
                                         headers={"Content-Type": "application/json"})
        try:
            with _OPENER.open(request, timeout=10) as response:
                return json.loads(response.read() or b"null")
        except urllib.error.HTTPError as e:
            raise S3ServerError(f"{method} /_harness/{name}: {e.code} {e.read().decode(errors='replace')}") from None

    def create_bucket(self, name: str) -> None:
        """A plain HTTP PUT: moto asks for no signature. Logged as a PUT, like any S3 request."""
        request = urllib.request.Request(f"{self.endpoint}/{name}", data=b"", method="PUT")
        try:
            with _OPENER.open(request, timeout=10):
                pass
        except urllib.error.HTTPError as e:
            text = e.read().decode(errors="replace")
            if "BucketAlreadyOwnedByYou" not in text:
                raise S3ServerError(f"creating bucket {name!r}: {e.code} {text}") from None

    def requests(self) -> list[dict]:
        """The request log: {"op", "method", "bucket", "key", "status", "range", "fault"} per S3 request."""
        return self._call("GET", "log")

    def counts(self) -> collections.Counter:
        return collections.Counter(entry["op"] for entry in self.requests())

    def reset_log(self) -> None:
        self._call("DELETE", "log")

    def add_fault(self, action: str, op: str | None = None, key: str | None = None, times: int | None = 1,
                  after: int = 0, status: int = 500, code: str | None = None, delay_ms: float = 0,
                  pid: int | None = None, group: bool = False) -> None:
        """Appends a rule (see s3_server.faults); S3ServerError if the server cannot apply it."""
        self._call("POST", "faults", {"action": action, "op": op, "key": key, "times": times, "after": after,
                                      "status": status, "code": code, "delay_ms": delay_ms, "pid": pid,
                                      "group": group})

    def faults(self) -> list[dict]:
        """The rules, each with `seen` (matching requests counted) and `applied` (requests it affected)."""
        return self._call("GET", "faults")

    def clear_faults(self) -> None:
        self._call("DELETE", "faults")

    def set_latency(self, ms: float) -> None:
        self._call("POST", "latency", {"ms": ms})
        self.latency_ms = ms
