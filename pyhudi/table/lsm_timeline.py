"""The timeline history of table versions 8 and 9: Apache Hudi 1.x's LSM timeline under
`.hoodie/<hoodie.timeline.path>/<hoodie.timeline.history.path>/` (docs/format.md §4.4).

Archival moves instants out of the active timeline into Parquet files of `HoodieLSMTimelineInstant`
rows (one row per instant: requested and completion time, completed action, the completed instant
file's bytes as `metadata`, the plan's bytes as `plan`), named `<min>_<max>_<level>.parquet` after the
requested times they hold. Which files make the history is said by a manifest, `manifest_<N>` (JSON
`{"files": [{"fileName", "fileLen"}]}`), and which manifest is current by `_version_` (the decimal N).
Every change is a new file, then a new manifest, then the version file, so a crash anywhere leaves the
last version whole (LSMTimelineWriter). A reader whose `_version_` is missing takes the highest
manifest listed (LSMTimeline.latestSnapshotVersion).

Levels: each archival adds a level-0 file; when `batch_size` files sit in one level (Hudi's
`hoodie.timeline.compaction.batch.size`, 10), the oldest of them merge into one file of the next
level, and so on up. Then files no retained manifest names are deleted: the newest 3 manifests are
kept, plus one per level compacted in that round (LSMTimelineWriter.compactAndClean / clean).
"""
from __future__ import annotations

import io
import json
import posixpath
import re
from dataclasses import dataclass
from typing import Any, Iterable, Mapping, Sequence

import pyarrow as pa
import pyarrow.parquet as pq

from pyhudi.errors import HudiError
from pyhudi.storage import Storage
from pyhudi.table import properties

VERSION_FILE = "_version_"
MANIFEST_PREFIX = "manifest_"
_MANIFEST = re.compile(r"manifest_([0-9]+)")
_DATA_FILE = re.compile(r"([0-9]+)_([0-9]+)_([0-9])\.parquet")  # LSMTimeline.ARCHIVE_FILE_PATTERN
INSTANT_VERSION = 1        # LSMTimeline.LSM_TIMELINE_INSTANT_VERSION_1
RETAINED_VERSIONS = 3      # LSMTimelineWriter.clean keeps 3 versions (+ one per level compacted)
DEFAULT_BATCH_SIZE = 10    # hoodie.timeline.compaction.batch.size
MAX_COMPACTED_BYTES = 1024 * 1024 * 1000  # a compaction reads at most about 1 GB of files
DEFAULT_COMPRESSION = "zstd"

# HoodieLSMTimelineInstant as the Java class's Schema.toString() prints it (strings as Java Strings)
_STRING = ["null", {"type": "string", "avro.java.string": "String"}]
AVRO_SCHEMA: dict[str, Any] = {
    "type": "record", "name": "HoodieLSMTimelineInstant", "namespace": "org.apache.hudi.avro.model",
    "fields": [
        {"name": "instantTime", "type": _STRING, "default": None},
        {"name": "completionTime", "type": _STRING, "default": None},
        {"name": "action", "type": _STRING, "default": None},
        {"name": "metadata", "type": ["null", "bytes"], "default": None},
        {"name": "plan", "type": ["null", "bytes"], "default": None},
        {"name": "version", "type": "int", "default": 1},
    ],
}
AVRO_SCHEMA_TEXT = json.dumps(AVRO_SCHEMA, separators=(",", ":"))
FIELDS = tuple(f["name"] for f in AVRO_SCHEMA["fields"])
# parquet-avro's mapping of that schema: optional UTF8 binaries, optional binaries, required int32
ARROW_SCHEMA = pa.schema([pa.field("instantTime", pa.string()), pa.field("completionTime", pa.string()),
                          pa.field("action", pa.string()), pa.field("metadata", pa.binary()),
                          pa.field("plan", pa.binary()), pa.field("version", pa.int32(), nullable=False)])
# footer keys of Hudi's Avro Parquet writer without meta fields (no bloom filter, no key range)
FOOTER = {"parquet.avro.schema": AVRO_SCHEMA_TEXT, "writer.model.name": "avro"}


class LSMTimelineError(HudiError, ValueError):
    pass


@dataclass(frozen=True)
class ArchivedInstant:
    """One HoodieLSMTimelineInstant row. `action` is the completed action (a compaction shows as
    `commit`, a clustering as `replacecommit`); `metadata` the completed instant file's bytes (None
    when that file was empty); `plan` the plan's bytes: the requested file of a clean, compaction,
    log compaction or clustering, the inflight file of a replacecommit when it has content."""
    instant_time: str
    completion_time: str | None
    action: str
    metadata: bytes | None = None
    plan: bytes | None = None
    version: int = INSTANT_VERSION


@dataclass(frozen=True)
class FileEntry:
    """A manifest entry (HoodieLSMTimelineManifest.LSMFileEntry)."""
    name: str
    size: int


def data_file_name(min_instant: str, max_instant: str, level: int) -> str:
    return f"{min_instant}_{max_instant}_{level}.parquet"


def parse_data_file(name: str) -> tuple[str, str, int] | None:
    """(min instant, max instant, level) of a history data file name; None for other names."""
    m = _DATA_FILE.fullmatch(name)
    return (m[1], m[2], int(m[3])) if m else None


def manifest_version(name: str) -> int | None:
    m = _MANIFEST.fullmatch(name)
    return int(m[1]) if m else None


def manifest_json(entries: Sequence[FileEntry]) -> str:
    """The manifest as Hudi writes it: Jackson's default pretty printer over the POJO's fields
    (two-space indents, `" : "`, arrays inline as `[ {` ... `}, {` ... `} ]`, no final newline)."""
    if not entries:
        return '{\n  "files" : [ ]\n}'
    items = ", ".join('{\n    "fileName" : %s,\n    "fileLen" : %d\n  }' % (json.dumps(e.name), e.size)
                      for e in entries)
    return '{\n  "files" : [ %s ]\n}' % items


def parse_manifest(text: str) -> list[FileEntry]:
    """Entries of a manifest (unknown keys ignored, as Jackson is told to); an empty file holds none."""
    if not text.strip():
        return []
    try:
        doc = json.loads(text)
        return [FileEntry(f["fileName"], int(f.get("fileLen") or 0)) for f in doc.get("files") or ()]
    except (ValueError, KeyError, TypeError, AttributeError) as e:
        raise LSMTimelineError(f"not an LSM timeline manifest: {e}") from None


def overlaps(name: str, start: str | None, end: str | None) -> bool:
    """Whether a data file's instant range meets [start, end] (None: open)."""
    parsed = parse_data_file(name)
    if parsed is None:
        return False
    lo, hi, _ = parsed
    return (start is None or hi >= start) and (end is None or lo <= end)


def encode_file(instants: Iterable[ArchivedInstant], compression: str = DEFAULT_COMPRESSION) -> bytes:
    """A history data file holding `instants` in the given order."""
    rows = list(instants)
    columns = {
        "instantTime": [i.instant_time for i in rows], "completionTime": [i.completion_time for i in rows],
        "action": [i.action for i in rows], "metadata": [i.metadata for i in rows],
        "plan": [i.plan for i in rows], "version": [i.version for i in rows]}
    table = pa.table({k: pa.array(v, ARROW_SCHEMA.field(k).type) for k, v in columns.items()}, schema=ARROW_SCHEMA)
    out = io.BytesIO()
    with pq.ParquetWriter(out, ARROW_SCHEMA, compression=compression, store_schema=False,
                          write_statistics=True) as writer:
        writer.write_table(table)
        writer.add_key_value_metadata(FOOTER)
    return out.getvalue()


def decode_file(data: bytes, columns: Sequence[str] | None = None) -> list[ArchivedInstant]:
    """The rows of a history data file, in file order (`columns` limits what is read; the others
    come back as None, version as 1)."""
    wanted = list(FIELDS) if columns is None else [c for c in FIELDS if c in set(columns) | {"instantTime"}]
    table = pq.read_table(io.BytesIO(data), columns=wanted)
    cols = {c: table.column(c).to_pylist() for c in wanted}
    n = table.num_rows
    get = lambda c: cols.get(c) or [None] * n  # noqa: E731
    return [ArchivedInstant(t, c, a, m, p, v if v is not None else INSTANT_VERSION)
            for t, c, a, m, p, v in zip(get("instantTime"), get("completionTime"), get("action"), get("metadata"),
                                        get("plan"), get("version"))]


class LSMTimeline:
    """The history folder of one table (data table or metadata table)."""

    def __init__(self, storage: Storage, directory: str, compression: str = DEFAULT_COMPRESSION):
        self.storage = storage
        self.dir = directory
        self.compression = compression

    @classmethod
    def for_table(cls, storage: Storage, base_path: str, props: Mapping[str, str],
                  compression: str = DEFAULT_COMPRESSION) -> "LSMTimeline":
        timeline = props.get(properties.TIMELINE_PATH, "timeline")
        history = props.get(properties.HISTORY_PATH, "history")
        return cls(storage, posixpath.join(base_path, ".hoodie", timeline, history), compression)

    def _path(self, name: str) -> str:
        return posixpath.join(self.dir, name)

    # ---- versions and manifests ------------------------------------------------------------
    def versions(self) -> list[int]:
        """Versions of the manifests present, ascending."""
        found = (manifest_version(e.name) for e in self.storage.list(self.dir) if not e.is_dir)
        return sorted(v for v in found if v is not None)

    def latest_version(self) -> int:
        """The version `_version_` names, else the highest manifest listed; -1 for no history."""
        try:
            return int(self.storage.read(self._path(VERSION_FILE)).decode("utf-8").strip())
        except (OSError, ValueError, UnicodeDecodeError):
            versions = self.versions()
            return versions[-1] if versions else -1

    def manifest(self, version: int | None = None) -> list[FileEntry]:
        """The files of a snapshot version (the latest by default); [] when there is no history."""
        version = self.latest_version() if version is None else version
        if version < 0:
            return []
        try:
            text = self.storage.read(self._path(f"{MANIFEST_PREFIX}{version}")).decode("utf-8")
        except FileNotFoundError as e:
            raise LSMTimelineError(f"{self.dir}: version {version} names manifest_{version}, which is "
                                   "missing; the history cannot be read") from e
        return parse_manifest(text)

    def file_names(self) -> list[str]:
        """Data files of the latest snapshot, by name (min instant first)."""
        return sorted(e.name for e in self.manifest())

    # ---- reading ----------------------------------------------------------------------------
    def read_file(self, name: str, columns: Sequence[str] | None = None) -> list[ArchivedInstant]:
        return decode_file(self.storage.read(self._path(name)), columns)

    def instants(self, start: str | None = None, end: str | None = None,
                 columns: Sequence[str] | None = None) -> list[ArchivedInstant]:
        """Archived instants with requested time in [start, end] (None: open), ordered by requested
        time; only the files whose name range meets it are read. An instant held by two files of the
        snapshot (a level not yet cleaned) comes once."""
        seen: dict[tuple[str, str], ArchivedInstant] = {}
        for name in self.file_names():
            if not overlaps(name, start, end):
                continue
            for row in self.read_file(name, columns):
                t = row.instant_time or ""
                if (start is None or t >= start) and (end is None or t <= end):
                    seen.setdefault((t, row.action or ""), row)
        return sorted(seen.values(), key=lambda r: (r.instant_time or "", r.action or ""))

    def max_instant(self) -> str | None:
        """The greatest requested time the history holds, from the file names alone."""
        names = [parse_data_file(n) for n in self.file_names()]
        return max((p[1] for p in names if p), default=None)

    # ---- writing ----------------------------------------------------------------------------
    def write(self, instants: Sequence[ArchivedInstant]) -> str:
        """Adds a level-0 file holding `instants` (sorted by requested time) and publishes it:
        the file, then manifest N+1, then `_version_`. A file of that name left by a run that died
        before its manifest is replaced; one the manifest already names was published, and stays."""
        if not instants:
            raise LSMTimelineError("no instants to write to the timeline history")
        rows = sorted(instants, key=lambda r: r.instant_time)
        name = data_file_name(rows[0].instant_time, rows[-1].instant_time, 0)
        if self.storage.exists(self._path(name)):
            if name in {e.name for e in self.manifest()}:
                return name  # published by a run that died before deleting the active files
            self.storage.delete(self._path(name))
        data = encode_file(rows, self.compression)
        self.storage.write(self._path(name), data)
        self.update_manifest([], FileEntry(name, len(data)))
        return name

    def update_manifest(self, remove: Sequence[str], add: FileEntry) -> int:
        """Writes manifest N+1 (the latest's files minus `remove`, plus `add`) and then `_version_`;
        returns N+1."""
        latest = self.latest_version()
        removed = set(remove)
        entries = [e for e in self.manifest(latest) if e.name not in removed] + [add]
        version = 1 if latest < 0 else latest + 1
        path = self._path(f"{MANIFEST_PREFIX}{version}")
        self.storage.delete(path)  # a manifest left by a run that died before its version file
        self.storage.write(path, manifest_json(entries).encode("utf-8"))
        self.storage.write(self._path(VERSION_FILE), str(version).encode("utf-8"))
        return version

    def compact_and_clean(self, batch_size: int = DEFAULT_BATCH_SIZE) -> list[str]:
        """Merges full levels upwards (`batch_size` files of a level -> one of the next), then deletes
        what no retained manifest names; returns the files compaction wrote."""
        if batch_size < 2:
            raise LSMTimelineError(f"timeline compaction batch size must be at least 2, got {batch_size}")
        entries = self.manifest()
        written: list[str] = []
        level = 0
        name = self._compact(entries, level, batch_size)
        while name is not None:
            written.append(name)
            entries.append(FileEntry(name, self.storage.size(self._path(name))))
            level += 1
            name = self._compact(entries, level, batch_size)
        self.clean(level)
        return written

    def _compact(self, entries: Sequence[FileEntry], level: int, batch_size: int) -> str | None:
        files = sorted((e for e in entries if (parse_data_file(e.name) or ("", "", -1))[2] == level),
                       key=lambda e: e.name)
        if len(files) < batch_size:
            return None
        candidates: list[str] = []
        total = 0
        for e in files:
            total += e.size
            candidates.append(e.name)
            if len(candidates) >= batch_size:
                break
            if total > MAX_COMPACTED_BYTES:
                if len(candidates) < 2:
                    total, candidates = 0, []
                else:
                    break
        if len(candidates) < 2:
            return None
        # every candidate parses: `files` holds the data files of the level
        bounds = [b for n in candidates if (b := parse_data_file(n)) is not None]
        name = data_file_name(min(b[0] for b in bounds), max(b[1] for b in bounds), level + 1)
        rows = [row for n in candidates for row in self.read_file(n)]
        self.storage.delete(self._path(name))
        data = encode_file(rows, self.compression)
        self.storage.write(self._path(name), data)
        self.update_manifest(candidates, FileEntry(name, len(data)))
        return name

    def clean(self, compacted_levels: int = 0) -> list[str]:
        """Keeps the newest 3 + `compacted_levels` manifests and the data files they name; deletes the
        other manifests, then the other data files. Returns what it deleted."""
        versions = self.versions()
        keep_count = RETAINED_VERSIONS + compacted_levels
        if len(versions) <= keep_count:
            return []
        keep = sorted(versions, reverse=True)[:keep_count]
        needed = {e.name for v in keep for e in self.manifest(v)}
        deleted: list[str] = []
        for v in versions:
            if v not in keep:
                deleted.append(f"{MANIFEST_PREFIX}{v}")
                self.storage.delete(self._path(deleted[-1]))
        for e in self.storage.list(self.dir):
            if not e.is_dir and e.name.endswith(".parquet") and e.name not in needed:
                deleted.append(e.name)
                self.storage.delete(self._path(e.name))
        return deleted
