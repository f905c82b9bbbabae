"""Names of data files: base files, log files, file ids, write tokens, partition metadata."""
from __future__ import annotations

import datetime as dt
import functools
import re
import uuid
from dataclasses import dataclass

PARTITION_METADATA = ".hoodie_partition_metadata"
# HoodieFileFormat.BASE_FILE_EXTENSIONS
BASE_EXTENSIONS = ("parquet", "orc", "hfile", "lance")

# Hudi's inline log file pattern with extension `log` (`archive` names the archived timeline's files);
# the time must be digits, as every time Hudi writes is (tests/conformance/log_file_names.json)
_LOG_RE = re.compile(r"\.([^._]+)_([0-9]+)\.log\.([0-9]+)(?:_([0-9]+-[0-9]+-[0-9]+)(\.cdc)?)?")


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
    write_token: str | None
    cdc_suffix: str = ""

    def __str__(self) -> str:
        token = "" if self.write_token is None else f"_{self.write_token}"
        return f".{self.file_id}_{self.instant}.log.{self.version}{token}{self.cdc_suffix}"

    def sort_key(self) -> tuple:
        """HoodieLogFile.LogFileComparator: instant, version, token (missing first), suffix."""
        return (self.instant, self.version, self.write_token or "", self.cdc_suffix)


@functools.lru_cache(maxsize=1 << 17)  # names repeat: every commit looks at the partitions it writes again
def _base(name: str) -> BaseFileName | None:
    """The file id ends at the first '_', the token at the second, the time at the next '.'
    (HoodieBaseFile's scan); tests/conformance/base_file_names.json holds the cases."""
    if name.startswith(PARTITION_METADATA):
        return None
    file_id, _, rest = name.partition("_")
    token, _, tail = rest.partition("_")
    instant, _, ext = tail.partition(".")
    ok = file_id and token and _is_digits(instant) and ext in BASE_EXTENSIONS
    return BaseFileName(file_id, token, instant, ext) if ok else None


def _is_digits(text: str) -> bool:
    return text.isascii() and text.isdigit()


def parse_base(name: str) -> BaseFileName:
    base = _base(name)
    if base is None:
        raise ValueError(f"{name!r} is not a base file name (<fileId>_<writeToken>_<instant>.<ext>)")
    return base


def parse_log(name: str) -> LogFileName:
    m = _LOG_RE.fullmatch(name)
    if not m:
        raise ValueError(f"{name!r} is not a log file name (.<fileId>_<instant>.log.<version>_<writeToken>)")
    return LogFileName(m[1], m[2], int(m[3]), m[4], m[5] or "")


def is_log(name: str) -> bool:
    return _LOG_RE.fullmatch(name) is not None


def is_base(name: str) -> bool:
    return _base(name) is not None


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
