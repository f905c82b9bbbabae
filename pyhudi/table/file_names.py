"""Names of data files: base files, log files, file ids, write tokens, partition metadata."""
from __future__ import annotations

import datetime as dt
import re
import uuid
from dataclasses import dataclass

PARTITION_METADATA = ".hoodie_partition_metadata"
INSTANT_RE = r"\d{14,}"

_BASE_RE = re.compile(rf"^(?P<file_id>.+)_(?P<token>\d+-\d+-\d+)_(?P<instant>{INSTANT_RE})\.(?P<ext>[a-z]+)$")
_LOG_RE = re.compile(rf"^\.(?P<file_id>.+?)_(?P<instant>{INSTANT_RE})\.log\.(?P<version>\d+)"
                     rf"_(?P<token>\d+-\d+-\d+)(?P<cdc>[.-]cdc)?$")


@dataclass(frozen=True, order=True)
class BaseFileName:
    file_id: str
    write_token: str
    instant: str
    ext: str = "parquet"

    def __str__(self) -> str:
        return f"{self.file_id}_{self.write_token}_{self.instant}.{self.ext}"


@dataclass(frozen=True)
class LogFileName:
    file_id: str
    instant: str
    version: int
    write_token: str
    cdc_suffix: str = ""

    def __str__(self) -> str:
        return f".{self.file_id}_{self.instant}.log.{self.version}_{self.write_token}{self.cdc_suffix}"

    def sort_key(self) -> tuple:
        return (self.instant, self.version, self.write_token)


def parse_base(name: str) -> BaseFileName:
    m = _BASE_RE.match(name)
    if not m:
        raise ValueError(f"{name!r} is not a base file name (<fileId>_<writeToken>_<instant>.<ext>)")
    return BaseFileName(m["file_id"], m["token"], m["instant"], m["ext"])


def parse_log(name: str) -> LogFileName:
    m = _LOG_RE.match(name)
    if not m:
        raise ValueError(f"{name!r} is not a log file name (.<fileId>_<instant>.log.<version>_<writeToken>)")
    return LogFileName(m["file_id"], m["instant"], int(m["version"]), m["token"], m["cdc"] or "")


def is_log(name: str) -> bool:
    return _LOG_RE.match(name) is not None


def is_base(name: str) -> bool:
    return not name.startswith(".") and _BASE_RE.match(name) is not None


def new_file_id(index: int = 0) -> str:
    """<uuid4>-<n>: n tells apart file groups a single task creates."""
    return f"{uuid.uuid4()}-{index}"


def write_token(task_partition: int, stage: int, attempt: int) -> str:
    return f"{task_partition}-{stage}-{attempt}"


def partition_metadata_text(commit_time: str, depth: int, now: dt.datetime | None = None) -> str:
    """Contents of .hoodie_partition_metadata (Java properties, as Hudi writes it)."""
    now = now or dt.datetime.now(dt.timezone.utc)
    return ("#partition metadata\n" + "#" + now.strftime("%a %b %d %H:%M:%S UTC %Y") + "\n"
            f"commitTime={commit_time}\npartitionDepth={depth}\n")


def partition_depth(partition_path: str) -> int:
    return 0 if partition_path in ("", ".") else len(partition_path.strip("/").split("/"))
