"""The metadata-table (MDT) writer: `<base>/.hoodie/metadata` as Apache Hudi 1.0 writes it for
table version 8 (FORMAT-NOTES §2.3, §2.4, §5, §6.2, §6.3, §7).

The MDT is a merge-on-read Hudi table of its own: HFile base files and log files of HFile data
blocks and delete blocks, one directory per MDT partition, file groups `files-0000-0`,
`col-stats-0000-0`, ... Records are keyed (and routed to file groups) as `metadata_records`
describes. `MetadataWriter` does what the write protocol (DESIGN.md step 5) needs:

* `initialize` builds `files`, `column_stats`, `bloom_filters` and (partitioned tables only)
  `partition_stats` from a listing of the data table, each at its own `00000000000000xxx`
  deltacommit with one base HFile per non-empty file group and the bootstrap log file (one empty
  delete block) per file group, then lists the partitions in the data table's hoodie.properties.
  It does not block writers (RFC-15 "Initial creation"): while the partitions are listed as
  inflight and the build's heartbeat is fresh, writers leave the MDT alone; the build then applies
  the data instants completed since its listing (`catch_up`) before it marks the partitions done.
  The last catch-up and the mark are made under the `handoff` lock, which a writer that found the
  build running takes to decide again and complete its instant: no write goes unseen by both;
* `commit` writes one MDT deltacommit at a data instant's time, before the data instant is
  published: a log file per touched file group with an HFile data block (and a delete block for
  dropped partitions); completed data instants the MDT misses are applied first;
* `compact_if_needed` / `compact` merge each file group's latest slice into a new base HFile
  (compaction.requested with a HoodieCompactionPlan, inflight, completed as commit);
* `clean` keeps the latest N file slices of every file group (a clean instant on the MDT);
* `rollback` removes an MDT deltacommit that never became visible, `delete` drops the MDT,
  `validate` compares its `files` partition with a storage listing.

Which MDT blocks count follows the readers' rule (connector `MetadataTable`, Hudi's
`getValidInstantTimestamps`): the block's instant is completed on the MDT, and it is a partition
initialisation, an MDT compaction, or an instant completed on the data timeline (or older than the
data timeline's first active instant).

`write_stats` given to `commit` are dicts:

    partition     data partition path ("" when non-partitioned)
    file_id       file group id
    path          file path relative to the table base path
    file_size     size in bytes of the file after the write
    is_log        whether the file is a log file
    num_writes    records written
    column_stats  JSON from `metadata_records.column_stats_json` (or None)
    bloom         Base64 bloom filter of a base file (or None); `bloom_type` defaults to DYNAMIC_V0
"""
from __future__ import annotations

import bisect
import posixpath
import threading
import time
from dataclasses import dataclass, field
from typing import Callable, Iterable, Mapping

from pyhudi.write import bloom as bloom_mod
from pyhudi.table import file_names as filenames
from pyhudi import hfile
from pyhudi.table import properties
from pyhudi.table import instant_metadata as im
from pyhudi import log as lf
from pyhudi.metadata import records as mr
from pyhudi.metadata.records import (BLOOM_FILTERS, COLUMN_STATS, FILES, PARTITION_STATS, ColumnStats,
                                     MetadataRecord)
from pyhudi.storage import AlreadyExists, Storage
from pyhudi.table.timeline import COMPLETED, Instant, InstantTimeGenerator, Timeline

METADATA_FOLDER = "metadata"
INIT_INSTANT_PREFIX = "00000000000000"  # Hudi's SOLO_COMMIT_TIMESTAMP; init instants add 3 digits
PAYLOAD_CLASS = "org.apache.hudi.metadata.HoodieMetadataPayload"
PAYLOAD_BASED_MERGE_STRATEGY = "00000000-0000-0000-0000-000000000000"
BOOTSTRAP_WRITE_TOKEN = "0-0-0"
HFILE_BLOCK_SIZE = hfile.DEFAULT_BLOCK_SIZE
MAX_PARQUET_FILE_SIZE = 120 * 1024 * 1024  # hoodie.parquet.max.file.size, used by compaction metrics
DEFAULT_PARTITIONS = (FILES, COLUMN_STATS, BLOOM_FILTERS, PARTITION_STATS)
SUPPORTED_PARTITIONS = DEFAULT_PARTITIONS
DEFAULT_MAX_DELTACOMMITS = 10  # hoodie.metadata.compact.max.delta.commits
DEFAULT_RETAINED_SLICES = 2
CLEAN_POLICY = "KEEP_LATEST_FILE_VERSIONS"
NEWEST = "9" * 17  # completion time standing in for the instant being committed
PARTITIONS_KEY = "hoodie.table.metadata.partitions"
INFLIGHT_PARTITIONS_KEY = "hoodie.table.metadata.partitions.inflight"
WRITE_ACTIONS = ("commit", "deltacommit", "replacecommit", "compaction", "clustering", "logcompaction")
DATA_WRITE_ACTIONS = ("commit", "deltacommit", "replacecommit")  # what catch-up applies from the data timeline
HEARTBEAT_FILE = ".hoodie/.heartbeat/initialization"  # under the MDT; holds the builder's epoch seconds
HEARTBEAT_INTERVAL_S = 10.0
HEARTBEAT_EXPIRY_S = 60.0  # older than this, the build is taken for dead and may be redone
HANDOFF_LOCK = ".hoodie/.aux/metadata_build.lock"  # under the data table; see `handoff`


class MetadataTableError(RuntimeError):
    pass


def metadata_path(base_path: str) -> str:
    return f"{base_path}/.hoodie/{METADATA_FOLDER}"


def metadata_table_properties(data_props: Mapping[str, str]) -> dict[str, str]:
    """The MDT's hoodie.properties (FORMAT-NOTES §5): no database name, so the checksum is the
    CRC32 of ".<table>_metadata"."""
    props = {
        "hoodie.table.name": f"{data_props['hoodie.table.name']}_metadata",
        "hoodie.table.type": "MERGE_ON_READ",
        "hoodie.table.version": str(properties.TABLE_VERSION),
        "hoodie.table.initial.version": str(properties.TABLE_VERSION),
        "hoodie.timeline.layout.version": "2",
        "hoodie.timeline.path": "timeline",
        "hoodie.timeline.history.path": "history",
        "hoodie.archivelog.folder": "history",
        "hoodie.table.base.file.format": "HFILE",
        "hoodie.table.keygenerator.type": "HOODIE_TABLE_METADATA",
        "hoodie.table.recordkey.fields": "key",
        "hoodie.populate.meta.fields": "false",
        "hoodie.record.merge.mode": "CUSTOM",
        "hoodie.record.merge.strategy.id": PAYLOAD_BASED_MERGE_STRATEGY,
        "hoodie.compaction.payload.class": PAYLOAD_CLASS,
        "hoodie.datasource.write.drop.partition.columns": "false",
    }
    props[properties.CHECKSUM_KEY] = str(properties.checksum(props))
    return props


def init_instant(offset: int) -> str:
    """`instantTimePlusMillis("00000000000000", offset)`: the partition-initialisation instants."""
    if not 0 <= offset < 1000:
        raise MetadataTableError(f"initialisation instant offset {offset} out of range")
    return f"{INIT_INSTANT_PREFIX}{offset:03d}"


def _csv(value: str | None) -> list[str]:
    return [p.strip() for p in (value or "").split(",") if p.strip()]


def _stat(**fields) -> dict:
    """A HoodieWriteStat with Hudi's zero defaults for the counters."""
    base = dict(prevCommit="null", numWrites=0, numDeletes=0, numUpdateWrites=0, totalWriteBytes=0,
                totalWriteErrors=0, totalLogRecords=0, totalUpdatedRecordsCompacted=0, numInserts=0,
                totalLogBlocks=0, totalCorruptLogBlock=0, totalRollbackBlocks=0, fileSizeInBytes=0,
                totalLogFilesCompacted=0, totalLogReadTimeMs=0, totalLogSizeCompacted=0, numUpdates=0)
    base.update(fields)
    return im.write_stat(**base)


def _runtime(scan: int = 0, create: int = 0, upsert: int = 0) -> dict:
    return {"totalScanTime": scan, "totalCreateTime": create, "totalUpsertTime": upsert}


def _millis_since(start: float) -> int:
    return int((time.monotonic() - start) * 1000)


# ---------------------------------------------------------------- file slices


@dataclass
class FileSlice:
    file_id: str
    base_instant: str
    base: str | None = None
    logs: list[str] = field(default_factory=list)

    def files(self) -> list[str]:
        return ([self.base] if self.base else []) + list(self.logs)


def _file_id_and_instant(name: str) -> tuple[str, str, bool] | None:
    """(file id, instant, is log) of a base or log file name; None for anything else."""
    if filenames.is_log(name):
        log = filenames.parse_log(name)
        return log.file_id, log.instant, True
    if filenames.is_base(name):
        base = filenames.parse_base(name)
        return base.file_id, base.instant, False
    return None


def build_slices(names: Iterable[str], committed: Callable[[str], bool],
                 completion: Callable[[str], str | None],
                 pending_compactions: Mapping[str, str] | None = None) -> dict[str, list[FileSlice]]:
    """File slices per file group, oldest first, with the layout-2 rules: a committed base file
    opens the slice of its instant, a pending compaction opens an empty one, and a committed log
    file joins the slice with the greatest base instant at or before its completion time (its own
    instant when there is none)."""
    bases: dict[str, dict[str, str | None]] = {}
    logs: dict[str, list[tuple[tuple, str, str]]] = {}
    for name in names:
        parsed = _file_id_and_instant(name)
        if parsed is None:
            continue
        fid, instant, is_log = parsed
        if not committed(instant):
            continue
        if is_log:
            log = filenames.parse_log(name)
            logs.setdefault(fid, []).append((log.sort_key(), name, instant))
        else:
            slot = bases.setdefault(fid, {})
            if slot.get(instant) is None or name > slot[instant]:
                slot[instant] = name
    for fid, instant in (pending_compactions or {}).items():
        if fid in bases or fid in logs:
            bases.setdefault(fid, {}).setdefault(instant, None)
    out: dict[str, list[FileSlice]] = {}
    for fid in sorted(set(bases) | set(logs)):
        slots = {t: FileSlice(fid, t, b) for t, b in bases.get(fid, {}).items()}
        for _, name, instant in sorted(logs.get(fid, [])):
            keys = sorted(slots)
            done = completion(instant) or instant
            i = bisect.bisect_right(keys, done) - 1
            key = keys[i] if i >= 0 else instant
            slots.setdefault(key, FileSlice(fid, key)).logs.append(name)
        out[fid] = [slots[t] for t in sorted(slots)]
    return out


# ---------------------------------------------------------------- storage listing of the data table


def listing_from_storage(storage: Storage, base_path: str, timeline: Timeline | None = None,
                         props: Mapping[str, str] | None = None) -> dict[str, list[tuple[str, int, None]]]:
    """partition -> [(file name, size, None)] for the base and log files of completed instants,
    as Hudi lists a table to initialise its metadata table (partitions are the directories
    holding a `.hoodie_partition_metadata`)."""
    if timeline is None:
        props = props or properties.load(storage, base_path)
        timeline = Timeline.for_table(storage, base_path, props)
    ok = _DataTimeline(timeline).is_committed
    out: dict[str, list[tuple[str, int, None]]] = {}

    def walk(rel: str) -> None:
        entries = storage.list(posixpath.join(base_path, rel) if rel else base_path)
        is_partition = any(e.name == filenames.PARTITION_METADATA and not e.is_dir for e in entries)
        if is_partition:
            files = []
            for e in entries:
                parsed = None if e.is_dir else _file_id_and_instant(e.name)
                if parsed and ok(parsed[1]):
                    files.append((e.name, e.size, None))
            out[rel] = sorted(files)
            return
        for e in entries:
            if e.is_dir and not e.name.startswith("."):
                walk(posixpath.join(rel, e.name) if rel else e.name)

    walk("")
    return out


class _DataTimeline:
    """What the MDT writer needs from the data table's timeline."""

    def __init__(self, timeline: Timeline):
        self.timeline = timeline
        self.instants = timeline.instants()
        self.completed = {i.requested_time: i for i in self.instants if i.is_completed}
        self.pending = {i.requested_time: i for i in self.instants if not i.is_completed}
        self.first = self.instants[0].requested_time if self.instants else None

    def is_committed(self, instant: str) -> bool:
        if instant in self.completed:
            return True
        if instant in self.pending:
            return False
        return self.first is not None and instant < self.first  # archived

    def completion(self, instant: str) -> str | None:
        inst = self.completed.get(instant)
        return inst.completion_time if inst else None

    def replaced_file_groups(self) -> dict[str, set[str]]:
        """partition -> file ids replaced by completed replacecommits (and clusterings)."""
        out: dict[str, set[str]] = {}
        for inst in self.completed.values():
            if inst.action != "replacecommit":
                continue
            meta = im.decode(self.timeline.read(inst), layout_version=self.timeline.layout)
            for p, ids in im.replaced_file_ids(meta).items():
                out.setdefault(p, set()).update(ids)
        return out

    def latest_schema(self) -> str | None:
        for inst in sorted(self.completed.values(), key=lambda i: i.requested_time, reverse=True):
            if inst.action not in ("commit", "deltacommit", "replacecommit"):
                continue
            schema = im.schema_of(im.decode(self.timeline.read(inst), layout_version=self.timeline.layout))
            if schema:
                return schema
        return None


# ---------------------------------------------------------------- the MDT's own state


class _MdtState:
    """A snapshot of the MDT timeline and the data timeline, for one public operation."""

    def __init__(self, writer: "MetadataWriter"):
        self.writer = writer
        self.timeline = writer._mdt_timeline()
        self.instants = self.timeline.instants()
        self.completed = {i.requested_time: i for i in self.instants if i.is_completed}
        self.pending = [i for i in self.instants if not i.is_completed]
        self.data = _DataTimeline(writer.data_timeline())
        self._listings: dict[str, list[str]] = {}
        self._slices: dict[str, dict[str, list[FileSlice]]] = {}

    def committed(self, instant: str) -> bool:
        return instant in self.completed

    def completion(self, instant: str) -> str | None:
        inst = self.completed.get(instant)
        return inst.completion_time if inst else None

    def pending_compactions(self) -> list[Instant]:
        return [i for i in self.pending if i.action == "compaction"]

    def valid_block(self, instant: str) -> bool:
        """May readers use MDT data written at `instant`? (class comment)"""
        inst = self.completed.get(instant)
        if inst is None:
            return False
        if instant.startswith(INIT_INSTANT_PREFIX) or inst.action != "deltacommit":
            return True
        if instant in self.data.completed:
            return True
        if instant in self.data.pending:
            return False
        return self.data.first is not None and instant < self.data.first

    def listing(self, part: str) -> list[tuple[str, int]]:
        if part not in self._listings:
            entries = self.writer.storage.list(f"{self.writer.mdt_path}/{part}")
            self._listings[part] = [(e.name, e.size) for e in entries if not e.is_dir]
        return self._listings[part]

    def size(self, part: str, name: str) -> int:
        return dict(self.listing(part)).get(name, 0)

    def slices(self, part: str) -> dict[str, list[FileSlice]]:
        if part not in self._slices:
            self._slices[part] = build_slices((n for n, _ in self.listing(part)), self.committed,
                                              self.completion)
        return self._slices[part]

    def latest(self, part: str) -> dict[str, FileSlice]:
        return {fid: s[-1] for fid, s in self.slices(part).items()}


@dataclass
class _SliceRead:
    records: dict[str, MetadataRecord]
    base_keys: set[str]
    log_keys: set[str]
    log_records: int = 0
    log_blocks: int = 0
    rollback_blocks: int = 0


# ---------------------------------------------------------------- the writer


def _stamp() -> bytes:
    """What heartbeat and lock files hold: the writer's clock, epoch seconds."""
    return repr(time.time()).encode()


def _age_s(storage: Storage, path: str) -> float | None:
    """Seconds since the stamp in `path` was written; None when it is missing or unreadable."""
    try:
        return time.time() - float(storage.read(path).decode())
    except (OSError, ValueError):
        return None


class _Heartbeat:
    """Refreshes `path` with the current time every few seconds while a build runs, so writers
    can tell a live build (leave the MDT alone) from one that died (build it again)."""

    def __init__(self, storage: Storage, path: str):
        self.storage, self.path = storage, path
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="mdt-init-heartbeat", daemon=True)

    def beat(self) -> None:
        self.storage.write(self.path, _stamp())

    def _run(self) -> None:
        while not self._stop.wait(HEARTBEAT_INTERVAL_S):
            self.beat()

    def __enter__(self) -> "_Heartbeat":
        self.beat()
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self._thread.join()
        if self.storage.exists(self.path):
            self.storage.delete(self.path)


class _HandoffLock:
    """A lock file created atomically (create-if-absent), held for the moment a build hands the
    MDT over to writers; one left by a process that died is broken after HEARTBEAT_EXPIRY_S."""

    def __init__(self, storage: Storage, path: str, timeout_s: float = 2 * HEARTBEAT_EXPIRY_S):
        self.storage, self.path, self.timeout_s = storage, path, timeout_s

    def __enter__(self) -> "_HandoffLock":
        deadline = time.monotonic() + self.timeout_s
        while True:
            try:
                self.storage.create_if_absent(self.path, _stamp())
                return self
            except AlreadyExists:
                if self._stale():
                    self.storage.delete(self.path)
                elif time.monotonic() > deadline:
                    raise MetadataTableError(f"{self.path} is held by another writer for over {self.timeout_s:.0f} s; "
                                             "if no writer or metadata build is running, delete it") from None
                time.sleep(0.05)

    def _stale(self) -> bool:
        age = _age_s(self.storage, self.path)
        return age is not None and age > HEARTBEAT_EXPIRY_S

    def __exit__(self, *exc) -> None:
        self.storage.delete(self.path)


def _no_progress(stage: str, detail: str) -> None:
    pass


class MetadataWriter:
    """Writes the metadata table of the data table at `base_path` (see the module comment).

    `data_props` is the data table's hoodie.properties; the writer updates
    `hoodie.table.metadata.partitions` in it (in place) and on storage.
    """

    def __init__(self, storage: Storage, base_path: str, data_props: dict[str, str], *,
                 partitions: Iterable[str] = DEFAULT_PARTITIONS,
                 file_group_counts: Mapping[str, int] | None = None,
                 bloom_type: str = bloom_mod.DYNAMIC_V0,
                 compression: str = "gz",
                 max_columns_to_index: int = mr.DEFAULT_MAX_COLUMNS_TO_INDEX):
        if data_props.get("hoodie.table.version") != str(properties.TABLE_VERSION):
            raise MetadataTableError(f"the metadata-table writer writes table version {properties.TABLE_VERSION}; "
                                     f"{base_path} is version {data_props.get('hoodie.table.version')}")
        partitions = list(partitions)
        unknown = [p for p in partitions if p not in SUPPORTED_PARTITIONS]
        if unknown or FILES not in partitions:
            raise MetadataTableError(f"metadata partitions {partitions} are not valid: 'files' is required and "
                                     f"the supported ones are {', '.join(SUPPORTED_PARTITIONS)}")
        if PARTITION_STATS in partitions and COLUMN_STATS not in partitions:
            raise MetadataTableError("partition_stats needs column_stats")
        self.storage = storage
        self.base_path = base_path.rstrip("/")
        self.data_props = data_props
        self.mdt_path = metadata_path(self.base_path)
        self.requested_partitions = [p for p in mr.PARTITION_ORDER if p in partitions]
        self.file_group_counts = {**mr.DEFAULT_FILE_GROUP_COUNT, **(file_group_counts or {})}
        self.bloom_type = bloom_type
        self.compression = compression
        self.max_columns_to_index = max_columns_to_index
        self._times = InstantTimeGenerator.for_table(storage, self.base_path)
        self._footers: dict[tuple[str, str], tuple] = {}
        self._building: list[str] | None = None  # the partitions `initialize` is building

    # ---- basics ----------------------------------------------------------------------------
    def exists(self) -> bool:
        return self.storage.exists(f"{self.mdt_path}/.hoodie/{properties.PROPS_FILE}")

    def partitions(self) -> list[str]:
        """MDT partitions the data table lists as completed (and this writer maintains)."""
        listed = set(_csv(self.data_props.get(PARTITIONS_KEY)))
        listed -= set(_csv(self.data_props.get(INFLIGHT_PARTITIONS_KEY)))
        return [p for p in mr.PARTITION_ORDER if p in listed and p in SUPPORTED_PARTITIONS]

    def _live_partitions(self) -> list[str]:
        """The partitions commits write to: the completed ones, or the ones being built."""
        return self._building if self._building is not None else self.partitions()

    def data_timeline(self) -> Timeline:
        return Timeline.for_table(self.storage, self.base_path, self.data_props)

    def _mdt_timeline(self) -> Timeline:
        tl = Timeline(self.storage, self.mdt_path, 2, "timeline")
        tl.times = self._times  # one generator for both timelines: MDT times interleave with data times
        return tl

    def _is_partitioned(self) -> bool:
        return bool(_csv(self.data_props.get("hoodie.table.partition.fields")))

    def _populate_meta_fields(self) -> bool:
        return self.data_props.get("hoodie.populate.meta.fields", "true").lower() != "false"

    def _columns(self, data: _DataTimeline, schema: str | None = None) -> list[str] | None:
        schema = schema or data.latest_schema() or self.data_props.get("hoodie.table.create.schema")
        if not schema:
            return None
        return mr.columns_to_index(schema, self._populate_meta_fields(), self.max_columns_to_index)

    def _save_data_props(self, updates: Mapping[str, str | None]) -> None:
        """Applies `updates` to hoodie.properties as stored now (a build runs long; others may have
        changed other keys meanwhile) and to `data_props`."""
        current = properties.load(self.storage, self.base_path)
        for k, v in updates.items():
            if v is None:
                current.pop(k, None)
            else:
                current[k] = v
        properties.save(self.storage, self.base_path, current, updated=True)
        self.data_props.clear()
        self.data_props.update(current)

    # ---- initialisation -------------------------------------------------------------------
    def initialize(self, data_timeline: Timeline | None = None,
                   listing: Mapping[str, Iterable[tuple]] | None = None,
                   progress: Callable[[str, str], None] = _no_progress) -> list[str]:
        """Creates the MDT of a table that has none, without blocking writers, and returns the
        initialisation instants (module comment).

        `listing`: partition path -> [(file name, size, column stats or None[, bloom])] of the
        files of the instants completed on `data_timeline` (`listing_from_storage` when None).
        Column stats are `column_stats_json` output; base files without them (and without a bloom
        filter) are read from their Parquet footers. `progress(stage, detail)` is told of the
        stages "listed", "built", "caught-up", "handing-over" (under the
        `handoff` lock) and "ready".
        """
        if self.exists() and FILES in self.partitions():
            raise MetadataTableError(f"{self.mdt_path} already exists; delete() it first to rebuild it")
        if self.build_in_progress():
            raise MetadataTableError(f"another process is building {self.mdt_path} (its heartbeat is fresh); "
                                     f"wait for it, or delete() the metadata table if that process is gone")
        if self.storage.exists(self.mdt_path):
            self.storage.delete(self.mdt_path)  # left over by an initialisation that died
        data_timeline = data_timeline or self.data_timeline()
        data = _DataTimeline(data_timeline)
        parts = [p for p in self.requested_partitions if p != PARTITION_STATS or self._is_partitioned()]
        # readers skip a metadata table whose partitions are inflight: a crash from here on is harmless
        self._save_data_props({PARTITIONS_KEY: "", INFLIGHT_PARTITIONS_KEY: ",".join(sorted(parts))})
        self.storage.mkdirs(f"{self.mdt_path}/.hoodie/.heartbeat")
        with _Heartbeat(self.storage, f"{self.mdt_path}/{HEARTBEAT_FILE}"):
            if listing is None:
                listing = listing_from_storage(self.storage, self.base_path, data_timeline)
            files = self._normalise_listing(listing)
            progress("listed", f"{sum(len(f) for f in files.values())} files in {len(files)} partitions")
            instants = self._build(parts, files, data)
            progress("built", f"partitions {', '.join(parts)}")
            snapshot = set(data.completed)
            self._building = parts
            try:
                applied = self.catch_up(covered=lambda i: i.requested_time in snapshot)
                progress("caught-up", f"{len(applied)} instants completed during the build applied")
                with self.handoff():  # writers completing now wait for the last few instants and the mark
                    progress("handing-over", "writers finishing now wait for the last catch-up")
                    applied += self.catch_up(covered=lambda i: i.requested_time in snapshot)
                    # the table was rebuilt from scratch: exactly these partitions exist now
                    self._save_data_props({PARTITIONS_KEY: ",".join(sorted(parts)), INFLIGHT_PARTITIONS_KEY: ""})
            finally:
                self._building = None
        progress("ready", f"partitions {', '.join(parts)}; {len(applied)} writes made during the build applied")
        return instants

    def handoff(self) -> _HandoffLock:
        """The lock under which a build makes its last catch-up and marks the MDT ready, and a
        writer that found the build running decides again and completes its instant: so no write
        completes unseen by both the build and the MDT (hold it briefly)."""
        return _HandoffLock(self.storage, f"{self.base_path}/{HANDOFF_LOCK}")

    def build_in_progress(self) -> bool:
        """Whether another process is building this MDT now: partitions inflight, heartbeat fresh."""
        if not _csv(self.data_props.get(INFLIGHT_PARTITIONS_KEY)):
            return False
        age = _age_s(self.storage, f"{self.mdt_path}/{HEARTBEAT_FILE}")
        return age is not None and age < HEARTBEAT_EXPIRY_S

    def _build(self, parts: list[str], files: dict[str, dict[str, tuple]], data: "_DataTimeline") -> list[str]:
        self._footers = {}
        mdt_props = metadata_table_properties(self.data_props)
        hoodie = f"{self.mdt_path}/.hoodie"
        for d in ("timeline/history", ".aux/.bootstrap/.partitions", ".aux/.bootstrap/.fileids", ".schema",
                  ".temp", ".heartbeat"):
            self.storage.mkdirs(f"{hoodie}/{d}")
        properties.save(self.storage, self.mdt_path, mdt_props)

        cols = self._columns(data)
        stats = {p: {name: self._file_column_stats(p, name, entry, cols) for name, entry in fs.items()}
                 for p, fs in files.items()}
        tl = self._mdt_timeline()
        instants = []
        for offset, part in enumerate(parts):
            t = init_instant(offset)
            records = self._initial_records(part, files, stats, cols, data, t)
            self._write_initial_partition(tl, part, t, records)
            instants.append(t)
        return instants

    @staticmethod
    def _normalise_listing(listing: Mapping[str, Iterable[tuple]]) -> dict[str, dict[str, tuple]]:
        out: dict[str, dict[str, tuple]] = {}
        for partition, entries in listing.items():
            files = out.setdefault(partition.strip("/") if partition not in (".",) else "", {})
            for entry in entries:
                name, size = entry[0], int(entry[1])
                stats = entry[2] if len(entry) > 2 else None
                bloom_b64 = entry[3] if len(entry) > 3 else None
                files[posixpath.basename(name)] = (size, stats, bloom_b64)
        return out

    def _file_column_stats(self, partition: str, name: str, entry: tuple, cols) -> dict[str, ColumnStats]:
        _, stats, _ = entry
        if stats is None and name.endswith(".parquet"):
            stats = self._footer(partition, name)[0]
        return {s.column_name: s for s in mr.parse_column_stats(name, stats, cols)}

    def _footer(self, partition: str, name: str) -> tuple[str, str | None, str | None]:
        """(column stats, bloom Base64, bloom type) from a Parquet base file's footer."""
        import pyarrow.parquet as pq

        cache = self._footers
        if (partition, name) in cache:
            return cache[(partition, name)]

        path = posixpath.join(self.base_path, partition, name) if partition else posixpath.join(self.base_path, name)
        with self.storage.fs.open_input_file(path) as f:
            md = pq.ParquetFile(f).metadata
        kv = md.metadata or {}
        blm = kv.get(b"org.apache.hudi.bloomfilter") or kv.get(b"com.uber.hoodie.bloomfilter")
        btype = kv.get(b"hoodie_bloom_filter_type_code")
        out = (mr.column_stats_json(md.schema.to_arrow_schema(), md), blm.decode("ascii") if blm else None,
               btype.decode("ascii") if btype else None)
        cache[(partition, name)] = out
        return out

    def _initial_records(self, part: str, files: dict[str, dict[str, tuple]], stats, cols,
                         data: _DataTimeline, instant: str) -> list[MetadataRecord]:
        if part == FILES:
            out = [mr.all_partitions_record(files)]
            for p, fs in files.items():
                out.append(mr.partition_files_record(p, {n: e[0] for n, e in fs.items()}))
            return out
        if part == COLUMN_STATS:
            return [mr.column_stats_record(p, s) for p, by_file in stats.items()
                    for by_col in by_file.values() for s in by_col.values()]
        if part == BLOOM_FILTERS:
            out = []
            for p, fs in files.items():
                for name, (_, _, b64) in fs.items():
                    if not filenames.is_base(name):
                        continue
                    btype = self.bloom_type
                    if b64 is None and name.endswith(".parquet"):
                        _, b64, btype = self._footer(p, name)
                    if b64:
                        out.append(mr.bloom_filter_record(p, name, instant, b64, btype or self.bloom_type))
            return out
        if part == PARTITION_STATS:
            replaced = data.replaced_file_groups()
            out = []
            for p, fs in files.items():
                live = self._latest_slice_files(fs, data, replaced.get(p, set()))
                out += self._partition_stats(p, cols, {n: stats[p].get(n, {}) for n in live})
            return out
        raise MetadataTableError(f"cannot initialise metadata partition {part}")

    def _write_initial_partition(self, tl: Timeline, part: str, instant: str, records: list[MetadataRecord]) -> None:
        start = time.monotonic()
        requested = tl.create_requested("deltacommit", b"", requested_time=instant)
        inflight = tl.transition_to_inflight(requested, b"")
        pdir = f"{self.mdt_path}/{part}"
        self.storage.write(f"{pdir}/{filenames.PARTITION_METADATA}",
                           filenames.partition_metadata_text(instant, 1).encode())
        count = self.file_group_counts[part]
        groups = self._route(part, records, count)
        stats = []
        for index in range(count):
            fid = mr.file_group_id(part, index)
            bootstrap = lf.encode_block(lf.delete_block([], instant))
            self.storage.write(f"{pdir}/{filenames.LogFileName(fid, instant, 1, BOOTSTRAP_WRITE_TOKEN)}", bootstrap)
            recs = groups.get(index)
            if not recs:
                continue
            name = str(filenames.BaseFileName(fid, f"{index}-0-0", instant, "hfile"))
            data = self._base_hfile(recs, name)
            self.storage.write(f"{pdir}/{name}", data)
            stats.append(_stat(fileId=fid, path=f"{part}/{name}", numWrites=len(recs), numInserts=len(recs),
                               totalWriteBytes=len(data), partitionPath=part, fileSizeInBytes=len(data),
                               runtimeStats=_runtime(create=_millis_since(start))))
        meta = im.commit_metadata({part: stats} if stats else {}, "BULK_INSERT", mr.schema_text_without_meta_fields())
        tl.complete(inflight, im.encode(im.COMMIT, meta))

    # ---- routing and file contents --------------------------------------------------------
    @staticmethod
    def _route(part: str, records: Iterable[MetadataRecord], count: int) -> dict[int, list[MetadataRecord]]:
        """Records by file-group index, one per key (later records merged onto earlier ones),
        sorted by key bytes."""
        by_key: dict[str, MetadataRecord] = {}
        for r in records:
            by_key[r.key] = mr.combine(by_key.get(r.key), r) if r.key in by_key else r
        groups: dict[int, list[MetadataRecord]] = {}
        for key in sorted(by_key, key=lambda k: k.encode("utf-8")):
            groups.setdefault(0 if count == 1 else mr.file_group_index(key, count), []).append(by_key[key])
        return groups

    def _base_hfile(self, records: list[MetadataRecord], file_name: str) -> bytes:
        """A base HFile: cells sorted by key, the records' `_hoodie_file_name` = its own name, a
        DYNAMIC_V0 bloom filter of the keys in the `bloomFilter` meta block."""
        keys = [r.key for r in records]
        blm = bloom_mod.create_bloom_filter(bloom_mod.DYNAMIC_V0)
        blm.add_all(keys)
        file_info = {"schema": mr.schema_text(), "bloomFilterTypeCode": bloom_mod.DYNAMIC_V0,
                     "minRecordKey": keys[0] if keys else "", "maxRecordKey": keys[-1] if keys else ""}
        cells = [(r.key.encode("utf-8"), mr.encode_record(r, file_name)) for r in records]
        return hfile.write_hfile(cells, block_size=HFILE_BLOCK_SIZE, compression=self.compression,
                                 file_info=file_info, meta_blocks={"bloomFilter": blm.serialize()})

    def _log_blocks(self, part: str, records: list[MetadataRecord], deletes: list[str], instant: str) -> bytes:
        blocks = []
        if records:
            cells = [(r.key.encode("utf-8"), mr.encode_record(r)) for r in records]
            content = hfile.write_hfile(cells, block_size=HFILE_BLOCK_SIZE, compression=self.compression,
                                        file_info={"schema": mr.schema_text()})
            blocks.append(lf.hfile_data_block(content, mr.schema_text(), instant))
        if deletes:
            blocks.append(lf.delete_block([lf.DeleteRecord(k, part) for k in sorted(deletes)], instant,
                                          mr.schema_text()))
        return lf.encode_blocks(blocks)

    # ---- commits --------------------------------------------------------------------------
    def commit(self, instant: str, action: str, write_stats: Iterable[Mapping],
               replaced_file_ids: Mapping[str, Iterable[str]] | None = None,
               deleted_files: Mapping[str, Iterable[str]] | None = None, *,
               deleted_partitions: Iterable[str] = (), operation: str | None = None,
               schema: str | None = None) -> Instant:
        """Writes the MDT deltacommit of data instant `instant` (call it before completing the
        data instant) and returns the completed MDT instant.

        `write_stats`: the files this instant wrote (module comment). `replaced_file_ids`:
        partition -> file groups a replacecommit replaces (they stay listed until a clean removes
        their files). `deleted_files`: partition -> names of files removed from storage (clean,
        rollback). `deleted_partitions`: partitions gone entirely. `operation`: the write
        operation (delete_partition also drops the partitions' statistics). `schema`: the
        writer schema of this instant (column selection; the latest committed one when None).
        """
        if not self.exists() or FILES not in self._live_partitions():
            raise MetadataTableError(f"{self.base_path} has no metadata table; initialize() it first")
        _, state = self._catch_up(None)
        return self._commit(instant, action, write_stats, replaced_file_ids, deleted_files,
                            deleted_partitions=deleted_partitions, operation=operation, schema=schema, state=state)

    def _commit(self, instant: str, action: str, write_stats: Iterable[Mapping],
                replaced_file_ids: Mapping[str, Iterable[str]] | None = None,
                deleted_files: Mapping[str, Iterable[str]] | None = None, *,
                deleted_partitions: Iterable[str] = (), operation: str | None = None,
                schema: str | None = None, state: _MdtState | None = None) -> Instant:
        state = state or _MdtState(self)
        self._rollback_failed(state, keep=None)
        if instant in {i.requested_time for i in state.instants}:
            self.rollback(instant)  # a retry of the same data instant: apply it afresh
        state = _MdtState(self)
        records, deletes = self._commit_records(state, instant, action, write_stats, replaced_file_ids, deleted_files,
                                                deleted_partitions, operation, schema)
        return self._write_deltacommit(state, instant, records, deletes)

    def _commit_records(self, state: _MdtState, instant: str, action: str, write_stats: Iterable[Mapping],
                        replaced_file_ids, deleted_files, deleted_partitions, operation, schema
                        ) -> tuple[dict[str, list[MetadataRecord]], dict[str, list[str]]]:
        """The records (and delete-block keys) of one data instant, per MDT partition."""
        enabled = set(self._live_partitions())
        write_stats = [dict(s) for s in write_stats]
        replaced = {p: set(ids) for p, ids in (replaced_file_ids or {}).items()}
        deleted = {p: [posixpath.basename(n) for n in names] for p, names in (deleted_files or {}).items()}
        dropped = list(deleted_partitions)
        if dropped:  # a dropped partition takes the statistics and bloom filters of all its files along
            for p, files in self._read_files(state, dropped).items():
                deleted[p] = list(dict.fromkeys(deleted.get(p, []) + sorted(files)))
        cols = self._columns(state.data, schema)
        records: dict[str, list[MetadataRecord]] = {p: [] for p in enabled}
        deletes: dict[str, list[str]] = {p: [] for p in enabled}

        # files
        added: dict[str, dict[str, int]] = {}
        for s in write_stats:
            files = added.setdefault(s["partition"] or "", {})
            if s.get("path"):
                name = posixpath.basename(s["path"])
                files[name] = max(int(s["file_size"]), files.get(name, 0))
        if action in WRITE_ACTIONS:
            records[FILES].append(mr.all_partitions_record(added))
        for p in dict.fromkeys(list(added) + list(deleted)):
            if p not in dropped:
                records[FILES].append(mr.partition_files_record(p, added.get(p, {}), deleted.get(p, ())))
        if dropped:
            records[FILES].append(mr.all_partitions_record(dropped, deleted=True))
            deletes[FILES] += [mr.files_key(p) for p in dropped]

        # column_stats
        new_stats: dict[str, dict[str, dict[str, ColumnStats]]] = {}
        if COLUMN_STATS in enabled:
            for s in write_stats:
                if not s.get("path"):
                    continue
                name = posixpath.basename(s["path"])
                parsed = mr.parse_column_stats(name, s.get("column_stats"), cols)
                new_stats.setdefault(s["partition"] or "", {})[name] = {c.column_name: c for c in parsed}
                records[COLUMN_STATS] += [mr.column_stats_record(s["partition"] or "", c) for c in parsed]
            tomb_cols = cols or list(mr.META_COLUMNS_TO_INDEX)
            for p, names in deleted.items():
                records[COLUMN_STATS] += [mr.column_stats_tombstone(p, n, c) for n in names for c in tomb_cols]

        # bloom_filters
        if BLOOM_FILTERS in enabled:
            for s in write_stats:
                if s.get("path") and not s.get("is_log") and s.get("bloom"):
                    records[BLOOM_FILTERS].append(mr.bloom_filter_record(
                        s["partition"] or "", posixpath.basename(s["path"]), instant, s["bloom"],
                        s.get("bloom_type") or self.bloom_type))
            for p, names in deleted.items():
                records[BLOOM_FILTERS] += [mr.bloom_filter_record(p, n, instant, None, deleted=True)
                                           for n in names if filenames.is_base(n)]

        # partition_stats: recomputed over the latest file slices of each written partition
        if PARTITION_STATS in enabled and cols:
            gone = set(dropped)
            if (operation or "").lower() == "delete_partition":
                gone |= set(replaced)
            for p in sorted(gone):
                records[PARTITION_STATS] += [mr.partition_stats_record(
                    p, ColumnStats("", c, value_count=0, null_count=0, total_size=0, total_uncompressed_size=0,
                                   is_deleted=True, is_tight_bound=True)) for c in cols]
            if action in WRITE_ACTIONS:
                touched = [p for p in added if p not in gone and any(s.get("path") for s in write_stats
                                                                   if (s["partition"] or "") == p)]
                if touched:
                    records[PARTITION_STATS] += self._commit_partition_stats(
                        state, touched, cols, instant, added, deleted, replaced, new_stats)
        return records, deletes

    def _commit_partition_stats(self, state: _MdtState, partitions: list[str], cols: list[str], instant: str,
                                added, deleted, replaced, new_stats) -> list[MetadataRecord]:
        current = self._read_files(state, partitions)
        replaced_before = state.data.replaced_file_groups()
        out = []
        for p in partitions:
            names = {n: (s, None, None) for n, s in current.get(p, {}).items()}
            names.update({n: (s, None, None) for n, s in added.get(p, {}).items()})
            for n in deleted.get(p, ()):
                names.pop(n, None)
            groups = replaced_before.get(p, set()) | replaced.get(p, set())
            live = self._latest_slice_files(names, state.data, groups, current_instant=instant)
            mine = new_stats.get(p, {})
            wanted = [mr.column_stats_key(c, p, n) for n in live if n not in mine for c in cols]
            found = self.read_partition(COLUMN_STATS, keys=wanted, state=state) if wanted else {}
            per_file: dict[str, dict[str, ColumnStats]] = {n: dict(mine.get(n, {})) for n in live}
            for rec in found.values():
                if rec.is_present and rec.stats is not None:
                    if rec.stats.file_name in per_file:
                        per_file[rec.stats.file_name][rec.stats.column_name] = rec.stats
            out += self._partition_stats(p, cols, per_file)
        return out

    @staticmethod
    def _latest_slice_files(files: Mapping[str, tuple], data: _DataTimeline, replaced: set[str],
                            current_instant: str | None = None) -> list[str]:
        def committed(t):
            return t == current_instant or data.is_committed(t)

        def completion(t):
            return NEWEST if t == current_instant else data.completion(t)

        slices = build_slices(files, committed, completion)
        return [n for fid, s in slices.items() if fid not in replaced for n in s[-1].files()]

    @staticmethod
    def _partition_stats(partition: str, cols: list[str] | None,
                         per_file: Mapping[str, Mapping[str, ColumnStats]]) -> list[MetadataRecord]:
        """`per_file`: the stats of every file of the partition's latest slices. A column some file
        has no stats for (a log file, a file written before the column existed) gets no record:
        bounds over the other files could rule out rows that file holds."""
        out = []
        for c in cols or []:
            ranges = [by_col.get(c) for by_col in per_file.values()]
            if not ranges or None in ranges:
                continue
            agg = mr.aggregate_stats(ranges, partition, c, tight=True)
            out.append(mr.partition_stats_record(partition, agg))
        return out

    def _write_deltacommit(self, state: _MdtState, instant: str, records: Mapping[str, list[MetadataRecord]],
                           deletes: Mapping[str, list[str]]) -> Instant:
        start = time.monotonic()
        tl = state.timeline
        plan: dict[str, dict[int, tuple[list[MetadataRecord], list[str]]]] = {}
        for part in mr.PARTITION_ORDER:
            if part not in records:
                continue
            count = self.file_group_counts[part]
            groups = self._route(part, records[part], count)
            dels: dict[int, list[str]] = {}
            for key in dict.fromkeys(deletes.get(part, ())):
                dels.setdefault(0 if count == 1 else mr.file_group_index(key, count), []).append(key)
            for index in sorted(set(groups) | set(dels)):
                plan.setdefault(part, {})[index] = (groups.get(index, []), dels.get(index, []))
        requested = tl.create_requested("deltacommit", b"", requested_time=instant)
        inflight_stats = {}
        for part, groups in plan.items():
            latest = state.latest(part)
            stats = [_stat(fileId="", prevCommit="null")]
            for index, (recs, _) in groups.items():
                fid = mr.file_group_id(part, index)
                base = latest[fid].base_instant if fid in latest else "null"
                stats.append(_stat(fileId=fid, prevCommit=base, numUpdateWrites=len(recs)))
            inflight_stats[part] = stats
        inflight = tl.transition_to_inflight(
            requested, im.encode(im.COMMIT, im.commit_metadata(inflight_stats, "UPSERT_PREPPED", None)))
        done_stats: dict[str, list[dict]] = {}
        task = 0
        for part, groups in plan.items():
            for index, (recs, dels) in groups.items():
                fid = mr.file_group_id(part, index)
                token = f"{task}-1-{task}"
                task += 1
                name = str(filenames.LogFileName(fid, instant, 1, token))
                data = self._log_blocks(part, recs, dels, instant)
                self.storage.write(f"{self.mdt_path}/{part}/{name}", data)
                done_stats.setdefault(part, []).append(_stat(
                    fileId=fid, path=f"{part}/{name}", prevCommit=instant, numWrites=len(recs),
                    numDeletes=len(dels), numUpdateWrites=len(recs), totalWriteBytes=len(data), partitionPath=part,
                    fileSizeInBytes=len(data), logVersion=1, logOffset=0, baseFile="", logFiles=[name],
                    runtimeStats=_runtime(upsert=_millis_since(start))))
        meta = im.commit_metadata(done_stats, "UPSERT_PREPPED", mr.schema_text_without_meta_fields())
        return tl.complete(inflight, im.encode(im.COMMIT, meta))

    # ---- catching up with the data timeline ---------------------------------------------------
    def catch_up(self, covered: Callable[[Instant], bool] | None = None) -> list[str]:
        """Applies the completed data writes the MDT misses, in completion order, until none is
        left; returns their instant times. A write is missed when it completed while the MDT was
        being built (or in the moment before the build marked it done), so it has no MDT deltacommit.
        `covered(instant)`: whether the MDT's initial listing holds that instant's files (default:
        it completed no later than the initialisation)."""
        return self._catch_up(covered)[0]

    def _catch_up(self, covered: Callable[[Instant], bool] | None) -> tuple[list[str], _MdtState]:
        """`catch_up`, also returning the state it last read (current: nothing was applied after it)."""
        applied: list[str] = []
        while True:
            state = _MdtState(self)
            covered_by = covered or self._covered_by_init(state)
            missed = sorted((i for i in state.data.completed.values()
                             if i.action in DATA_WRITE_ACTIONS and i.requested_time not in state.completed
                             and not covered_by(i)), key=lambda i: (i.completion_time or "", i.requested_time))
            if not missed:
                return applied, state
            for inst in missed:
                self._apply_data_instant(state.data.timeline, inst)
                applied.append(inst.requested_time)

    @staticmethod
    def _covered_by_init(state: _MdtState) -> Callable[[Instant], bool]:
        inits = [i.completion_time for t, i in state.completed.items() if t.startswith(INIT_INSTANT_PREFIX)]
        done = [i.completion_time for i in state.completed.values() if i.completion_time]
        mark = max(inits) if inits and all(inits) else min(done, default=None)
        if mark is None:
            return lambda i: True
        return lambda i: (i.completion_time or "") <= mark

    def _apply_data_instant(self, timeline: Timeline, inst: Instant) -> None:
        """Writes the MDT deltacommit of a completed data instant from its commit metadata and the
        footers of the base files it wrote."""
        meta = im.decode(timeline.read(inst), layout_version=timeline.layout)
        stats = []
        for partition, s in im.write_stats(meta):
            if not s.get("path"):
                continue
            name = posixpath.basename(s["path"])
            is_log = filenames.is_log(name)
            col_stats = bloom = bloom_type = None
            if not is_log and name.endswith(".parquet"):
                col_stats, bloom, bloom_type = self._footer(partition, name)
            stats.append({"partition": partition, "file_id": s.get("fileId"), "path": s["path"],
                          "file_size": s.get("fileSizeInBytes") or 0, "is_log": is_log,
                          "num_writes": s.get("numWrites") or 0, "column_stats": col_stats, "bloom": bloom,
                          "bloom_type": bloom_type})
        self._commit(inst.requested_time, inst.action, stats, im.replaced_file_ids(meta),
                     operation=meta.get("operationType"), schema=im.schema_of(meta))

    # ---- rollback ---------------------------------------------------------------------------
    def rollback(self, instant: str) -> bool:
        """Removes what the MDT deltacommit `instant` wrote (its log files, then its instant
        files, the completed one first). Only for instants the data table never completed:
        their blocks were never visible to readers. Returns whether anything was there."""
        if instant.startswith(INIT_INSTANT_PREFIX):
            raise MetadataTableError(f"{instant} initialises a metadata partition; delete() and "
                                     "initialize() the metadata table instead")
        data = _DataTimeline(self.data_timeline())
        if instant in data.completed:
            raise MetadataTableError(f"data instant {instant} is completed; its metadata-table commit stays")
        tl = self._mdt_timeline()
        found = [i for i in tl.instant_files() if i.requested_time == instant]
        if not found:
            return False
        for inst in found:
            if inst.state == COMPLETED:
                self.storage.delete(f"{tl.dir}/{inst.file_name(2)}")
        for part in SUPPORTED_PARTITIONS:
            for e in self.storage.list(f"{self.mdt_path}/{part}"):
                parsed = None if e.is_dir else _file_id_and_instant(e.name)
                if parsed and parsed[1] == instant:
                    self.storage.delete(f"{self.mdt_path}/{part}/{e.name}")
        pending = [i for i in found if i.state != COMPLETED]
        if pending:
            tl.delete_pending(pending[0])
        return True

    def _rollback_failed(self, state: _MdtState, keep: str | None) -> None:
        """Rolls back pending MDT compactions/cleans and pending deltacommits (other than `keep`)
        left by writers that died."""
        for inst in state.pending:
            if inst.requested_time == keep or inst.requested_time.startswith(INIT_INSTANT_PREFIX):
                continue
            if inst.action == "deltacommit":
                if inst.requested_time not in state.data.completed:
                    self.rollback(inst.requested_time)
            elif inst.action == "compaction":
                self._rollback_compaction(inst)
            elif inst.action == "clean":
                self._finish_pending_clean(state, inst)

    # ---- reading the MDT ------------------------------------------------------------------
    def read_partition(self, mdt_partition: str, keys: Iterable[str] | None = None,
                       prefixes: Iterable[str] | None = None, *, state: _MdtState | None = None,
                       include_deleted: bool = False) -> dict[str, MetadataRecord]:
        """Merged records of an MDT partition as readers see them (all keys, or those of `keys`
        or starting with one of `prefixes`); deleted records only with `include_deleted`."""
        state = state or _MdtState(self)
        keyset = None if keys is None else set(keys)
        prefixes = None if prefixes is None else tuple(prefixes)

        def want(k: str) -> bool:
            return (keyset is None or k in keyset) and (prefixes is None or k.startswith(prefixes))

        latest = state.latest(mdt_partition)
        groups = sorted(latest)
        if keyset is not None and mdt_partition in mr.FILE_ID_PREFIX and groups == [
                mr.file_group_id(mdt_partition, i) for i in range(len(groups))]:
            # keys are routed to file groups by hash: read only the groups that can hold them
            groups = sorted({mr.file_group_id(mdt_partition, 0 if len(groups) == 1 else
                                              mr.file_group_index(k, len(groups))) for k in keyset})
        out: dict[str, MetadataRecord] = {}
        for fid in groups:
            if fid not in latest:
                continue
            for k, r in self._read_slice(state, mdt_partition, latest[fid], want).records.items():
                if include_deleted or r.is_present:
                    out[k] = r
        return dict(sorted(out.items()))

    def _read_slice(self, state: _MdtState, part: str, sl: FileSlice, want: Callable[[str], bool]) -> _SliceRead:
        merged: dict[str, MetadataRecord] = {}
        base_keys: set[str] = set()
        if sl.base:
            contents = hfile.parse_hfile(self.storage.read(f"{self.mdt_path}/{part}/{sl.base}"))
            schema = contents.file_info.get(b"schema")
            schema = schema.decode("utf-8") if schema else None
            for row, value in contents.cells:
                key = row.decode("utf-8")
                base_keys.add(key)
                if want(key):
                    merged[key] = mr.combine(merged.get(key), mr.decode_record(key, value, schema))
        read = _SliceRead(merged, base_keys, set())
        blocks: list[lf.LogBlock] = []
        for log in sl.logs:
            for b in lf.read_blocks(self.storage.read(f"{self.mdt_path}/{part}/{log}")):
                read.log_blocks += 1
                if b.is_rollback():
                    read.rollback_blocks += 1
                    blocks = [x for x in blocks if x.instant_time != b.target_instant_time]
                elif b.block_type in (lf.BlockType.HFILE_DATA, lf.BlockType.DELETE) \
                        and state.valid_block(b.instant_time):
                    blocks.append(b)
        for b in blocks:
            if b.block_type == lf.BlockType.HFILE_DATA:
                for row, value in hfile.read_hfile(b.content):
                    key = row.decode("utf-8")
                    read.log_records += 1
                    read.log_keys.add(key)
                    if want(key):
                        merged[key] = mr.combine(merged.get(key), mr.decode_record(key, value, b.schema))
            else:
                for d in b.deletes():
                    read.log_records += 1
                    if d.record_key is not None:
                        read.log_keys.add(d.record_key)
                        if want(d.record_key):
                            merged[d.record_key] = mr.deletion(d.record_key)
        return read

    def _read_files(self, state: _MdtState, partitions: Iterable[str] | None = None) -> dict[str, dict[str, int]]:
        keys = None if partitions is None else [mr.files_key(p) for p in partitions]
        recs = self.read_partition(FILES, keys=keys, state=state)
        out = {}
        for key, rec in recs.items():
            if key != mr.ALL_PARTITIONS_KEY:
                out[mr.partition_path(key)] = rec.live_files()
        return out

    def files_listing(self) -> dict[str, dict[str, int]]:
        """The table's partitions and files (name -> size) as the MDT `files` partition lists them."""
        state = _MdtState(self)
        recs = self.read_partition(FILES, state=state)
        all_parts = recs.get(mr.ALL_PARTITIONS_KEY)
        parts = sorted(mr.partition_path(p) for p in (all_parts.live_files() if all_parts else {}))
        return {p: dict(sorted(recs[mr.files_key(p)].live_files().items())) if mr.files_key(p) in recs else {}
                for p in parts}

    def validate(self, listing: Mapping[str, Iterable] | None = None) -> dict:
        """Differences between the MDT `files` partition and a storage listing of committed files
        (`listing_from_storage` when None): {} when they agree, else any of "missing_partitions"
        (on storage, not in the MDT), "extra_partitions", "missing_files" / "extra_files"
        ({partition: [names]}) and "size_mismatch" ({partition: {name: [mdt, storage]}})."""
        if listing is None:
            listing = listing_from_storage(self.storage, self.base_path, self.data_timeline())
        actual: dict[str, dict[str, int]] = {}
        for p, entries in listing.items():
            files = actual.setdefault("" if p == "." else p, {})
            for e in entries:
                if isinstance(e, str):
                    files[e] = -1
                else:
                    files[posixpath.basename(e[0])] = int(e[1])
        # a partition without any file (e.g. the leftovers of a rolled-back first write) counts as absent
        actual = {p: f for p, f in actual.items() if f}
        mdt = {p: f for p, f in self.files_listing().items() if f}
        out: dict = {}
        missing_p = sorted(set(actual) - set(mdt))
        extra_p = sorted(set(mdt) - set(actual))
        if missing_p:
            out["missing_partitions"] = missing_p
        if extra_p:
            out["extra_partitions"] = extra_p
        missing, extra, sizes = {}, {}, {}
        for p in sorted(set(actual) | set(mdt)):
            a, m = actual.get(p, {}), mdt.get(p, {})
            if sorted(set(a) - set(m)):
                missing[p] = sorted(set(a) - set(m))
            if sorted(set(m) - set(a)):
                extra[p] = sorted(set(m) - set(a))
            diff = {n: [m[n], a[n]] for n in sorted(set(a) & set(m)) if a[n] >= 0 and a[n] != m[n]}
            if diff:
                sizes[p] = diff
        for k, v in (("missing_files", missing), ("extra_files", extra), ("size_mismatch", sizes)):
            if v:
                out[k] = v
        return out

    # ---- compaction -----------------------------------------------------------------------
    def deltacommits_since_compaction(self, state: _MdtState | None = None) -> int:
        state = state or _MdtState(self)
        last = max((t for t, i in state.completed.items() if i.action == "commit"), default="")
        return sum(1 for t, i in state.completed.items() if i.action == "deltacommit" and t > last)

    def compact_if_needed(self, max_deltacommits: int = DEFAULT_MAX_DELTACOMMITS) -> str | None:
        """Compacts the MDT when `max_deltacommits` deltacommits (partition initialisations
        included) completed since its last compaction; returns the compaction instant or None."""
        if not self.exists():
            return None
        if self.deltacommits_since_compaction() < max_deltacommits:
            return None
        return self.compact()

    def compact(self) -> str | None:
        """Merges the latest slice of every MDT file group into a new base HFile. Skipped (None)
        while a data instant at or before the latest MDT deltacommit is pending: its blocks may
        still become valid or be rolled back (Hudi's rule)."""
        state = _MdtState(self)
        self._rollback_failed(state, keep=None)
        state = _MdtState(self)
        deltas = [t for t, i in state.completed.items() if i.action == "deltacommit"]
        latest = max(deltas, default=None)
        if latest and any(t <= latest for t in state.data.pending):
            return None
        tl = state.timeline
        operations, slices = [], []
        for part in self.partitions():
            for fid, sl in sorted(state.latest(part).items()):
                if not sl.logs:
                    continue  # nothing to merge
                log_size = sum(state.size(part, n) for n in sl.logs)
                base_size = state.size(part, sl.base) if sl.base else 0
                read_mb = (base_size + log_size) // (1024 * 1024)
                write_mb = (base_size if sl.base else MAX_PARQUET_FILE_SIZE) // (1024 * 1024)
                operations.append({
                    "baseInstantTime": sl.base_instant, "deltaFilePaths": list(sl.logs), "dataFilePath": sl.base,
                    "fileId": fid, "partitionPath": part,
                    "metrics": {"TOTAL_LOG_FILES": float(len(sl.logs)), "TOTAL_IO_MB": float(read_mb + write_mb),
                                "TOTAL_IO_READ_MB": float(read_mb), "TOTAL_LOG_FILES_SIZE": float(log_size),
                                "TOTAL_IO_WRITE_MB": float(write_mb)},
                    "bootstrapFilePath": None})
                slices.append((part, sl, log_size))
        if not operations:
            return None
        c = tl.new_instant_time()
        plan = {"operations": operations, "extraMetadata": {}, "version": 2, "strategy": None,
                "preserveHoodieMetadata": False, "missingSchedulePartitions": []}
        requested = tl.create_requested("compaction", im.encode(im.COMPACTION_PLAN, plan), requested_time=c)
        inflight = tl.transition_to_inflight(requested, b"")
        stats: dict[str, list[dict]] = {}
        for task, (part, sl, log_size) in enumerate(slices):
            stat = self._compact_slice(state, part, sl, c, task, log_size)
            if stat is not None:
                stats.setdefault(part, []).append(stat)
        meta = im.commit_metadata(stats, "COMPACT", mr.schema_text_without_meta_fields(), compacted=True)
        tl.complete(inflight, im.encode(im.COMMIT, meta))
        return c

    def _compact_slice(self, state: _MdtState, part: str, sl: FileSlice, instant: str, task: int,
                       log_size: int) -> dict | None:
        start = time.monotonic()
        read = self._read_slice(state, part, sl, lambda k: True)
        scan = _millis_since(start)
        if not sl.base and not read.log_records:
            return None
        written = [r for _, r in sorted(read.records.items(), key=lambda kv: kv[0].encode("utf-8")) if not r.deleted]
        name = str(filenames.BaseFileName(sl.file_id, f"{task}-2-{task}", instant, "hfile"))
        data = self._base_hfile(written, name)
        self.storage.write(f"{self.mdt_path}/{part}/{name}", data)
        keys = {r.key for r in written}
        deleted = sum(1 for r in read.records.values()
                      if r.deleted and (r.key in read.base_keys or r.key in read.log_keys))
        return _stat(
            fileId=sl.file_id, path=f"{part}/{name}", prevCommit=sl.base_instant if sl.base else "null",
            numWrites=len(written), numDeletes=deleted, numUpdateWrites=len(keys & read.base_keys & read.log_keys),
            totalWriteBytes=len(data), partitionPath=part, totalLogRecords=read.log_records,
            totalUpdatedRecordsCompacted=len(read.log_keys), numInserts=len(keys & (read.log_keys - read.base_keys)),
            totalLogBlocks=read.log_blocks, totalRollbackBlocks=read.rollback_blocks, fileSizeInBytes=len(data),
            prevBaseFile=sl.base, runtimeStats=_runtime(scan=scan, upsert=_millis_since(start)),
            totalLogFilesCompacted=len(sl.logs), totalLogSizeCompacted=log_size)

    def _rollback_compaction(self, inst: Instant) -> None:
        """Removes the base files of a compaction that never completed, then its instant files."""
        for part in SUPPORTED_PARTITIONS:
            for e in self.storage.list(f"{self.mdt_path}/{part}"):
                parsed = None if e.is_dir else _file_id_and_instant(e.name)
                if parsed and parsed[1] == inst.requested_time and not parsed[2]:
                    self.storage.delete(f"{self.mdt_path}/{part}/{e.name}")
        self._mdt_timeline().delete_pending(inst)

    # ---- cleaning ---------------------------------------------------------------------------
    def clean(self, retain: int = DEFAULT_RETAINED_SLICES) -> str | None:
        """Deletes the files of all but the latest `retain` file slices of every MDT file group,
        as a clean instant on the MDT (policy KEEP_LATEST_FILE_VERSIONS); None when nothing is
        old enough. Never runs while an MDT compaction is pending."""
        if retain < 1:
            raise MetadataTableError(f"retain must be at least 1, got {retain}")
        state = _MdtState(self)
        self._rollback_failed(state, keep=None)
        state = _MdtState(self)
        if state.pending_compactions():
            return None
        doomed: dict[str, list[str]] = {}
        for part in self.partitions():
            for slices in state.slices(part).values():
                for sl in slices[:-retain]:
                    doomed.setdefault(part, []).extend(sl.files())
        if not doomed:
            return None
        tl = state.timeline
        last = max(state.completed, default="")
        t = tl.new_instant_time()
        plan = {"earliestInstantToRetain": None, "lastCompletedCommitTimestamp": last, "policy": CLEAN_POLICY,
                "filesToBeDeletedPerPartition": {}, "version": 2,
                "filePathsToBeDeletedPerPartition": {
                    p: [{"filePath": f"{self.mdt_path}/{p}/{n}", "isBootstrapBaseFile": False} for n in sorted(ns)]
                    for p, ns in doomed.items()},
                "partitionsToBeDeleted": [], "extraMetadata": None}
        body = im.encode(im.CLEANER_PLAN, plan)
        requested = tl.create_requested("clean", body, requested_time=t)
        inflight = tl.transition_to_inflight(requested, body)
        self._execute_clean(tl, inflight, plan, time.monotonic())
        return t

    def _execute_clean(self, tl: Timeline, inflight: Instant, plan: dict, start: float) -> None:
        parts = {}
        total = 0
        for p, infos in (plan.get("filePathsToBeDeletedPerPartition") or {}).items():
            names = [posixpath.basename(i["filePath"]) for i in infos]
            for i in infos:
                self.storage.delete(i["filePath"])
            total += len(names)
            parts[p] = {"partitionPath": p, "policy": plan["policy"], "deletePathPatterns": names,
                        "successDeleteFiles": names, "failedDeleteFiles": [], "isPartitionDeleted": False}
        meta = {"startCleanTime": inflight.requested_time, "timeTakenInMillis": _millis_since(start),
                "totalFilesDeleted": total, "earliestCommitToRetain": "",
                "lastCompletedCommitTimestamp": plan.get("lastCompletedCommitTimestamp") or "",
                "partitionMetadata": parts, "version": 2, "bootstrapPartitionMetadata": {}, "extraMetadata": None}
        tl.complete(inflight, im.encode(im.CLEAN, meta))

    def _finish_pending_clean(self, state: _MdtState, inst: Instant) -> None:
        """A clean that died: deleting files again is harmless, so finish it."""
        tl = state.timeline
        plan = im.decode(tl.read(Instant(inst.requested_time, "clean", "requested")), im.CLEANER_PLAN)
        if inst.state == "requested":
            inst = tl.transition_to_inflight(inst, im.encode(im.CLEANER_PLAN, plan))
        self._execute_clean(tl, inst, plan, time.monotonic())

    # ---- removal ----------------------------------------------------------------------------
    def delete(self) -> None:
        """Drops the metadata table: first the data table stops listing its partitions (readers
        then list storage), then the directory goes."""
        self._save_data_props({PARTITIONS_KEY: None, INFLIGHT_PARTITIONS_KEY: None})
        self.storage.delete(self.mdt_path)


__all__ = ["MetadataWriter", "MetadataTableError", "FileSlice", "build_slices", "listing_from_storage",
           "metadata_path", "metadata_table_properties", "init_instant"]
