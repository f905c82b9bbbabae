"""Client of a timeline server (Apache Hudi RFC-03; io.hudimeta.view.TimelineServer): the latest file
slices of a table's partitions from a server that keeps the table's view synced, standard library only.

Each request names the table and the caller's view of its timeline (last completed instant and hash):
a server that is behind syncs before answering. After each answer `state[base_path]` holds the
(last instant, timeline hash) the server answered on, from its response headers.
"""
from __future__ import annotations

import json
import posixpath
import socket
import urllib.error
import urllib.parse
import urllib.request
from typing import Iterable

from pyhudi.errors import HudiError
from pyhudi.table.file_slices import FileSlice

BASE_URL = "/v1/hoodie/view"
LATEST_PARTITION_SLICES_URL = BASE_URL + "/slices/partition/latest/"
LATEST_SLICES_PARTITIONS_URL = BASE_URL + "/slices/partitions/latest/"
PENDING_COMPACTION_OPS_URL = BASE_URL + "/compactions/pending/"
GET_TIMELINE_HASH_URL = BASE_URL + "/timeline/hash"
REFRESH_TABLE_URL = BASE_URL + "/refresh/"


class TimelineServerUnavailable(HudiError, OSError):
    """The server could not be reached or did not answer in time: a caller may ask elsewhere."""


class TimelineServerError(HudiError, RuntimeError):
    """The server answered with an error (a bad request, no table at the base path...)."""

    def __init__(self, status: int, message: str):
        super().__init__(f"timeline server answered {status}: {message}")
        self.status = status
        self.server_message = message


class TimelineClient:
    def __init__(self, host: str = "localhost", port: int = 26754, timeout_s: float = 30.0):
        self.host, self.port, self.timeout_s = host, int(port), float(timeout_s)
        self.state: dict[str, tuple[str | None, str | None]] = {}

    def latest_file_slices(self, base_path: str, partitions: Iterable[str], last_instant: str | None = None,
                           timeline_hash: str | None = None) -> list[FileSlice]:
        """The latest slice of each file group of `partitions` ("" for a non-partitioned table), by
        partition then file id: one GET for one partition, one batch POST for more."""
        partitions = sorted(set(partitions))
        if not partitions:
            return []
        params = {"basepath": base_path, "lastinstantts": last_instant, "timelinehash": timeline_hash}
        if len(partitions) == 1:
            dtos = self._request("GET", LATEST_PARTITION_SLICES_URL, {**params, "partition": partitions[0]})
        else:
            answer = self._request("POST", LATEST_SLICES_PARTITIONS_URL, params, body=partitions)
            dtos = [d for p in partitions for d in answer["slices"].get(p, [])]
        return [file_slice(d) for d in dtos]

    def pending_compactions(self, base_path: str, last_instant: str | None = None,
                            timeline_hash: str | None = None) -> list[dict]:
        """Operations of the requested or inflight compactions, as Hudi's CompactionOpDTO
        ("compactionInstant", "partition", "id", "baseInstant", "baseFile", "deltaFiles", ...)."""
        return self._request("GET", PENDING_COMPACTION_OPS_URL, {
            "basepath": base_path, "lastinstantts": last_instant, "timelinehash": timeline_hash})

    def refresh(self, base_path: str) -> bool:
        """Makes the server sync its view of the table now."""
        return bool(self._request("POST", REFRESH_TABLE_URL, {"basepath": base_path}))

    def timeline_hash(self, base_path: str) -> str:
        """The hash of the table's timeline, as the server sees it after syncing."""
        return self._request("GET", GET_TIMELINE_HASH_URL, {"basepath": base_path})

    def _request(self, method: str, path: str, params: dict, body=None):
        query = urllib.parse.urlencode({k: v for k, v in params.items() if v is not None})
        url = f"http://{self.host}:{self.port}{path}?{query}"
        data = None if body is None and method == "GET" else json.dumps(body).encode()
        request = urllib.request.Request(url, data=data, method=method,
                                         headers={"Content-Type": "application/json"} if data else {})
        try:
            with urllib.request.urlopen(request, timeout=self.timeout_s) as response:
                payload = response.read()
                headers = response.headers
        except urllib.error.HTTPError as e:
            raise TimelineServerError(e.code, _error_message(e)) from None
        except (urllib.error.URLError, OSError) as e:  # refused, reset, timed out (socket.timeout is OSError)
            cause = getattr(e, "reason", e)
            raise TimelineServerUnavailable(
                f"timeline server {self.host}:{self.port} is unavailable: {_describe(cause)}") from e
        if "timelinehash" in headers:
            self.state[params["basepath"]] = (headers.get("lastinstantts"), headers.get("timelinehash"))
        try:
            return json.loads(payload)
        except ValueError as e:
            raise TimelineServerError(200, f"answer is not JSON: {payload[:200]!r}") from e


def file_slice(dto: dict) -> FileSlice:
    """FileSlice from Hudi's FileSliceDTO (full paths reduced to names; -1 sizes to None)."""
    base = dto.get("baseFile")
    size = base.get("fileLen") if base else None
    return FileSlice(dto["fileId"], dto["baseInstant"], posixpath.basename(base["fullPath"]) if base else None,
                     [posixpath.basename(log["path"]) for log in dto.get("logFiles") or []],
                     partition=dto.get("partition") or "", base_size=None if size is None or size < 0 else size)


def _error_message(e: urllib.error.HTTPError) -> str:
    try:
        raw = e.read()
        return json.loads(raw).get("error") or raw.decode(errors="replace")
    except (ValueError, AttributeError, OSError):
        return str(e.reason)


def _describe(cause) -> str:
    if isinstance(cause, (socket.timeout, TimeoutError)):
        return "no answer within the timeout"
    return str(cause) or type(cause).__name__
