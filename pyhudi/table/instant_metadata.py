"""Contents of timeline instant files: Avro container files (layout 2, and plans in layout 1) or
Jackson JSON (commit metadata in layout 1).

Hudi writes every non-empty instant file as an Avro object container file: codec null, file
metadata holding only `avro.schema` (the Java `Schema.toString()` of the record class), a random
16-byte sync marker, one block with one record. `encode` reproduces those bytes; the schemas in
`schemas/*.avsc` are Hudi 1.0's, with Java's key order so the embedded schema text matches.
"""
from __future__ import annotations

import functools
import io
import itertools
import json
import os
from pathlib import Path
from typing import Any, Iterable, Iterator, Mapping

import fastavro
from fastavro.validation import ValidationError, validate

from pyhudi.avro.binary import avro_bytes as _avro_bytes
from pyhudi.avro.binary import zigzag as _zigzag
from pyhudi.avro.schema import DECODE_ERRORS, compiled
from pyhudi.errors import CorruptFileError

SCHEMA_DIR = Path(__file__).resolve().parents[1] / "schemas"
AVRO_MAGIC = b"Obj\x01"
# the streaming sink's batch id in a commit's extraMetadata: {"<batch id>": "<application id>-<query id>"}
SINK_CHECKPOINT_KEY = "_hudi_streaming_sink_checkpoint"

COMMIT = "HoodieCommitMetadata"
REPLACE_COMMIT = "HoodieReplaceCommitMetadata"
REQUESTED_REPLACE = "HoodieRequestedReplaceMetadata"
COMPACTION_PLAN = "HoodieCompactionPlan"
CLEANER_PLAN = "HoodieCleanerPlan"
CLEAN = "HoodieCleanMetadata"
ROLLBACK_PLAN = "HoodieRollbackPlan"
ROLLBACK = "HoodieRollbackMetadata"
RESTORE_PLAN = "HoodieRestorePlan"
RESTORE = "HoodieRestoreMetadata"
SAVEPOINT = "HoodieSavepointMetadata"
INDEX_PLAN = "HoodieIndexPlan"
INDEX_COMMIT = "HoodieIndexCommitMetadata"

KINDS = (COMMIT, REPLACE_COMMIT, REQUESTED_REPLACE, COMPACTION_PLAN, CLEANER_PLAN, CLEAN,
         ROLLBACK_PLAN, ROLLBACK, RESTORE_PLAN, RESTORE, SAVEPOINT, INDEX_PLAN, INDEX_COMMIT)

STATES = ("requested", "inflight", "completed")

# (requested, inflight, completed) content per action; None = Hudi writes the file empty.
# The completed file of clustering/compaction/logcompaction carries the action
# replacecommit/commit/deltacommit, with the same content as those.
_KIND_BY_ACTION: dict[str, tuple[str | None, str | None, str | None]] = {
    "commit": (None, COMMIT, COMMIT),
    "deltacommit": (None, COMMIT, COMMIT),
    "replacecommit": (REQUESTED_REPLACE, COMMIT, REPLACE_COMMIT),
    "clustering": (REQUESTED_REPLACE, None, REPLACE_COMMIT),
    "compaction": (COMPACTION_PLAN, None, COMMIT),
    "logcompaction": (COMPACTION_PLAN, None, COMMIT),
    # Hudi 0.x copied the plan into clean.inflight; decode copes with either that or empty.
    "clean": (CLEANER_PLAN, CLEANER_PLAN, CLEAN),
    "rollback": (ROLLBACK_PLAN, None, ROLLBACK),
    "restore": (RESTORE_PLAN, None, RESTORE),
    "savepoint": (None, None, SAVEPOINT),
    "indexing": (INDEX_PLAN, None, INDEX_COMMIT),
    "schemacommit": (None, None, COMMIT),
}


def metadata_kind(action: str, state: str) -> str | None:
    """Schema name of the instant file `<action>` in `state`, or None when it is empty."""
    if action not in _KIND_BY_ACTION:
        raise ValueError(f"unknown action {action!r}; valid: {', '.join(_KIND_BY_ACTION)}")
    if state not in STATES:
        raise ValueError(f"unknown state {state!r}; valid: {', '.join(STATES)}")
    return _KIND_BY_ACTION[action][STATES.index(state)]


# ---------------------------------------------------------------------------------------------
# Schemas


def _check_kind(kind: str) -> None:
    if kind not in KINDS:
        raise ValueError(f"unknown instant metadata kind {kind!r}; valid: {', '.join(KINDS)}")


@functools.cache
def schema_text(kind: str) -> str:
    """The schema JSON exactly as Hudi embeds it (compact, Java key order)."""
    _check_kind(kind)
    with open(SCHEMA_DIR / f"{kind}.avsc", encoding="utf-8") as f:
        return json.dumps(json.load(f), separators=(",", ":"), ensure_ascii=False)


def schema(kind: str) -> dict:
    """A fresh copy of the schema of `kind` as a JSON object."""
    return json.loads(schema_text(kind))


def _named_records(node: Any, found: dict[str, dict]) -> dict[str, dict]:
    if isinstance(node, list):
        for item in node:
            _named_records(item, found)
    elif isinstance(node, dict):
        if node.get("type") == "record":
            found.setdefault(node["name"], node)
            for f in node["fields"]:
                _named_records(f["type"], found)
        else:
            for key in ("items", "values"):
                if key in node:
                    _named_records(node[key], found)
    return found


@functools.cache
def _all_records() -> dict[str, dict]:
    found: dict[str, dict] = {}
    for kind in KINDS:
        _named_records(schema(kind), found)
    return found


def record_fields(name: str) -> tuple[str, ...]:
    """Field names, in order, of any record of these schemas (e.g. `HoodieWriteStat`)."""
    records = _all_records()
    if name not in records:
        raise ValueError(f"unknown record {name!r}; known: {', '.join(sorted(records))}")
    return tuple(f["name"] for f in records[name]["fields"])


# ---------------------------------------------------------------------------------------------
# Avro container encoding


def encode(kind: str, obj: Mapping[str, Any], *, sync: bytes | None = None,
           writer_schema: str | None = None) -> bytes:
    """An Avro container file holding `obj` as Hudi writes instant files.

    `sync` fixes the 16-byte sync marker (random otherwise, as in Hudi); `writer_schema` embeds
    and writes with another schema text (e.g. the one read from an existing file).
    """
    text = writer_schema if writer_schema is not None else schema_text(kind)
    parsed = compiled(text)
    if parsed.get("name", "").rsplit(".", 1)[-1] != kind:
        raise ValueError(f"writer schema is not a {kind}")
    try:
        validate(obj, parsed, raise_errors=True)
    except ValidationError as e:
        raise ValueError(f"not a valid {kind}: {e}") from None
    sync = os.urandom(16) if sync is None else sync
    if len(sync) != 16:
        raise ValueError("sync marker must be 16 bytes")
    body = io.BytesIO()
    fastavro.schemaless_writer(body, parsed, obj)
    data = body.getvalue()
    header = (AVRO_MAGIC + _zigzag(1) + _avro_bytes(b"avro.schema")
              + _avro_bytes(text.encode("utf-8")) + _zigzag(0) + sync)
    return header + _zigzag(1) + _zigzag(len(data)) + data + sync


# ---------------------------------------------------------------------------------------------
# Decoding


def decode(data: bytes, kind: str | None = None, layout_version: int = 2, source: str | None = None) -> dict:
    """The object stored in an instant file; {} for an empty file.

    Avro files are read with the writer schema they embed; `kind`, when given, must match it.
    JSON commit metadata (layout 1, and what Hudi 1.x still reads for upgrades) is normalised to
    the Avro shape of `kind` (inferred when None). Bytes that do not decode raise CorruptFileError
    naming `source` (the file; "input" when None). Neither encoding has a checksum: a corrupt
    file may also decode to another valid value.
    """
    if layout_version not in (1, 2):
        raise ValueError(f"unknown timeline layout version {layout_version}; valid: 1, 2")
    if not data:
        return {}
    name = source or "input"
    try:
        if data[:4] == AVRO_MAGIC:
            return _decode_avro(data, kind)
        if data.lstrip()[:1] == b"{":
            return _decode_json(data, kind)
    except CorruptFileError as e:
        raise CorruptFileError(f"instant file {name}: {e}") from None
    except DECODE_ERRORS as e:
        raise CorruptFileError(f"cannot decode instant file {name} ({type(e).__name__}: {e})") from None
    raise CorruptFileError(f"instant file {name} is neither an Avro container nor JSON (starts {data[:8]!r})")


def _decode_avro(data: bytes, kind: str | None) -> dict:
    reader = fastavro.reader(io.BytesIO(data))
    # ignored: a non-record schema's AttributeError is among DECODE_ERRORS, which the caller reports
    name = reader.writer_schema.get("name", "").rsplit(".", 1)[-1]  # type: ignore[union-attr]
    if kind is not None and name != kind:
        raise CorruptFileError(f"holds a {name}, expected a {kind}")
    records = list(itertools.islice(reader, 2))  # a corrupt record count must not make it decode on and on
    if len(records) != 1:
        raise CorruptFileError(f"holds {'more than 1' if records else 'no'} records, expected 1")
    if not isinstance(records[0], dict):
        raise CorruptFileError(f"holds a {type(records[0]).__name__}, not a record")
    return records[0]


def _decode_json(data: bytes, kind: str | None) -> dict:
    doc = json.loads(data)
    if not isinstance(doc, dict):
        raise CorruptFileError(f"JSON holds a {type(doc).__name__}, not an object")
    if kind is None:
        kind = REPLACE_COMMIT if "partitionToReplaceFileIds" in doc else COMMIT
    if kind not in (COMMIT, REPLACE_COMMIT):
        raise ValueError(f"JSON instant files hold commit metadata, not {kind}")
    out = {f: doc.get(f) for f in record_fields(kind)}
    stats = doc.get("partitionToWriteStats")
    if stats is not None:
        if not isinstance(stats, dict) or not all(isinstance(ss, list) and all(isinstance(st, dict) for st in ss)
                                                   for ss in stats.values()):
            raise CorruptFileError("partitionToWriteStats is not an object of write stat lists")
        out["partitionToWriteStats"] = {p: [_stat_from_json(s) for s in ss] for p, ss in stats.items()}
    return out


def _stat_from_json(s: Mapping[str, Any]) -> dict:
    # JSON stats carry POJO-only keys (recordsStats); keep the Avro fields, in Avro order.
    return write_stat(**{k: v for k, v in s.items() if k in _write_stat_fields()})


# ---------------------------------------------------------------------------------------------
# Builders and accessors for commit metadata


@functools.cache
def _write_stat_fields() -> tuple[str, ...]:
    return record_fields("HoodieWriteStat")


def write_stat(**fields: Any) -> dict:
    """A HoodieWriteStat with every field present (None where not given)."""
    names = _write_stat_fields()
    unknown = sorted(set(fields) - set(names))
    if unknown:
        raise ValueError(f"unknown HoodieWriteStat fields {unknown}; valid: {', '.join(names)}")
    stat = {n: fields.get(n) for n in names}
    runtime = stat["runtimeStats"]
    if runtime is not None:
        stat["runtimeStats"] = {n: runtime.get(n) for n in record_fields("HoodieRuntimeStats")}
    return stat


def commit_metadata(partition_to_stats: Mapping[str, Iterable[Mapping[str, Any]]],
                    operation_type: str | None, schema_json: str | None,
                    extra: Mapping[str, str] | None = None, compacted: bool = False) -> dict:
    """A HoodieCommitMetadata; `schema_json` goes to extraMetadata["schema"] (None for inflight)."""
    extra_md = {} if schema_json is None else {"schema": schema_json}
    extra_md.update(extra or {})
    return {
        "partitionToWriteStats": {p: [dict(s) for s in stats] for p, stats in partition_to_stats.items()},
        "compacted": compacted,
        "extraMetadata": extra_md,
        "version": None,  # Hudi 1.0 leaves it null (union branch 1)
        "operationType": operation_type,
    }


def replace_commit_metadata(partition_to_stats: Mapping[str, Iterable[Mapping[str, Any]]],
                            operation_type: str | None, schema_json: str | None,
                            partition_to_replace_file_ids: Mapping[str, Iterable[str]],
                            extra: Mapping[str, str] | None = None, compacted: bool = False) -> dict:
    """A HoodieReplaceCommitMetadata: commit metadata plus the file groups it replaces."""
    meta = commit_metadata(partition_to_stats, operation_type, schema_json, extra, compacted)
    meta["partitionToReplaceFileIds"] = {p: list(ids) for p, ids in partition_to_replace_file_ids.items()}
    return meta


def write_stats(meta: Mapping[str, Any]) -> Iterator[tuple[str, dict]]:
    """(partition, write stat) pairs of commit metadata."""
    for partition, stats in (meta.get("partitionToWriteStats") or {}).items():
        for stat in stats:
            yield partition, stat


def files_written(meta: Mapping[str, Any]) -> list[tuple[str, str]]:
    """(partition, path relative to the table base path) of every file a commit wrote, its CDC log
    files (`cdcStats`) included.

    Stats without a path (the placeholders of inflight files) are skipped.
    """
    return [(p, f) for p, s in write_stats(meta) if s.get("path") for f in [s["path"], *(s.get("cdcStats") or ())]]


def replaced_file_ids(meta: Mapping[str, Any]) -> dict[str, list[str]]:
    """partition -> file ids replaced by a replacecommit ({} for other metadata)."""
    return {p: list(ids) for p, ids in (meta.get("partitionToReplaceFileIds") or {}).items()}


def schema_of(meta: Mapping[str, Any]) -> str | None:
    """The writer's Avro schema JSON recorded in commit metadata, if any."""
    return (meta.get("extraMetadata") or {}).get("schema")
