"""Instant-file contents: decoding every real Hudi instant file, byte-exact re-encoding,
schemas against the writer schemas Hudi embeds, and generated round trips."""
from __future__ import annotations

import io
import json
import os
import re
from collections import defaultdict
from pathlib import Path

import fastavro
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import FIXTURES, TABLE_NAMES
from pyhudi.table import instant_metadata as im

COMMIT_METADATA_DIR = FIXTURES / "commit-metadata"
SKIP_DIRS = {".temp", ".aux", ".schema", "history", "archived", ".index_defs", ".heartbeat"}
_COMPLETED = re.compile(r"^(\d{14,})(?:_(\d{14,}))?\.([a-z]+)$")
_PENDING = re.compile(r"^(\d{14,})\.([a-z]+)\.(requested|inflight)$")
_COMMIT_INFLIGHT = re.compile(r"^(\d{14,})\.inflight$")


def _action_state(name: str) -> tuple[str, str] | None:
    if _COMMIT_INFLIGHT.match(name):
        return "commit", "inflight"
    if m := _PENDING.match(name):
        return m.group(2), m.group(3)
    if m := _COMPLETED.match(name):
        return m.group(3), "completed"
    return None


def _table_version(table: str) -> int:
    return int(re.search(r"__v(\d+)_", table).group(1))


def _instant_files(base: str):
    """(path, action, state) of every instant file of a table and of its metadata table."""
    for root, dirs, files in os.walk(Path(base) / ".hoodie"):
        dirs[:] = [d for d in dirs if d not in SKIP_DIRS]
        for name in sorted(files):
            parsed = _action_state(name)
            if parsed:
                yield Path(root) / name, *parsed


@pytest.fixture(scope="module")
def instant_files(fixture_tables):
    found = [(table, *f) for table in TABLE_NAMES for f in _instant_files(fixture_tables[table])]
    assert len(found) > 500  # the walk really reached data and metadata-table timelines
    return found


def _strip_doc(node):
    if isinstance(node, dict):
        return {k: _strip_doc(v) for k, v in node.items() if k != "doc"}
    if isinstance(node, list):
        return [_strip_doc(v) for v in node]
    return node


def _writer_schema(data: bytes) -> dict:
    return json.loads(fastavro.reader(io.BytesIO(data)).metadata["avro.schema"])


def _read_as(data: bytes, kind: str) -> dict:
    """The record read through our schema (Avro schema resolution fills missing defaults)."""
    return next(iter(fastavro.reader(io.BytesIO(data), reader_schema=im.schema(kind))))


# ---------------------------------------------------------------------------------------------
# Real files


def test_every_instant_file_decodes_to_its_expected_kind(instant_files):
    seen = set()
    for table, path, action, state in instant_files:
        data = path.read_bytes()
        kind = im.metadata_kind(action, state)
        layout = 1 if _table_version(table) == 6 else 2
        obj = im.decode(data, kind, layout_version=layout)
        if kind is None:
            assert data == b"", f"{path}: expected an empty file"
            continue
        if data:
            seen.add(kind)
        if data[:1] == b"{":  # layout-1 JSON comes back in the Avro shape
            assert list(obj) == list(im.record_fields(kind)), path
    assert seen >= {im.COMMIT, im.REPLACE_COMMIT, im.REQUESTED_REPLACE, im.COMPACTION_PLAN,
                    im.INDEX_PLAN, im.INDEX_COMMIT, im.ROLLBACK_PLAN, im.ROLLBACK}


def test_avro_files_reencode_byte_for_byte(instant_files):
    """Same writer schema + same sync marker -> Hudi's exact bytes; with our schema too where
    Hudi's embedded schema has no doc strings (commit metadata of every kind)."""
    identical_with_ours = defaultdict(int)
    for _table, path, _action, _state in instant_files:
        data = path.read_bytes()
        if data[:4] != im.AVRO_MAGIC:
            continue
        writer = _writer_schema(data)
        kind, sync = writer["name"], data[-16:]
        obj = im.decode(data, kind)
        text = fastavro.reader(io.BytesIO(data)).metadata["avro.schema"]
        assert im.encode(kind, obj, sync=sync, writer_schema=text) == data, path
        if _strip_doc(writer) == writer and writer == im.schema(kind):
            assert im.encode(kind, obj, sync=sync) == data, path
            identical_with_ours[kind] += 1
    assert identical_with_ours[im.COMMIT] > 100
    assert identical_with_ours[im.REPLACE_COMMIT] > 0


def test_avro_files_round_trip_through_our_schemas(instant_files):
    for _table, path, _action, _state in instant_files:
        data = path.read_bytes()
        if data[:4] != im.AVRO_MAGIC:
            continue
        kind = _writer_schema(data)["name"]
        expected = _read_as(data, kind)
        again = im.decode(im.encode(kind, im.decode(data)), kind)
        assert again == expected, path


def _extends(writer, ours, path="") -> list[str]:
    """Differences that make `ours` more than a field-appending extension of `writer`."""
    if isinstance(writer, dict) and isinstance(ours, dict) and writer.get("type") == "record":
        problems = []
        wf, of = writer["fields"], ours["fields"]
        if [f["name"] for f in wf] != [f["name"] for f in of[:len(wf)]]:
            return [f"{path}{writer['name']}: fields {[f['name'] for f in wf]} vs {[f['name'] for f in of]}"]
        for w, o in zip(wf, of):
            problems += _extends(w["type"], o["type"], f"{path}{writer['name']}.{w['name']}/")
            if ("default" in w) != ("default" in o) or w.get("default") != o.get("default"):
                problems.append(f"{path}{w['name']}: default")
        problems += [f"{path}{o['name']}: added without default" for o in of[len(wf):] if "default" not in o]
        keys = set(writer) | set(ours)
        return problems + [f"{path}{k}" for k in keys - {"fields"} if writer.get(k) != ours.get(k)]
    if isinstance(writer, dict) and isinstance(ours, dict):
        problems = []
        for k in set(writer) | set(ours):
            if k in ("items", "values") and k in writer and k in ours:
                problems += _extends(writer[k], ours[k], path)
            elif writer.get(k) != ours.get(k):
                problems.append(f"{path}{k}")
        return problems
    if isinstance(writer, list) and isinstance(ours, list) and len(writer) == len(ours):
        return [p for w, o in zip(writer, ours) for p in _extends(w, o, path)]
    return [] if writer == ours else [f"{path}: {writer!r} vs {ours!r}"]


def test_our_schemas_match_the_embedded_writer_schemas(instant_files):
    by_version = defaultdict(dict)
    for table, path, _action, _state in instant_files:
        data = path.read_bytes()
        if data[:4] == im.AVRO_MAGIC:
            writer = _strip_doc(_writer_schema(data))
            by_version[_table_version(table)][json.dumps(writer)] = writer
    assert by_version[8] and by_version[9] and by_version[6]
    for version, schemas in by_version.items():
        for writer in schemas.values():
            ours = im.schema(writer["name"])
            if version == 8:
                assert writer == ours, writer["name"]
            else:  # v6 predates some fields (clustering plan's missingSchedulePartitions)
                assert _extends(writer, ours) == [], (version, writer["name"])


def test_v8_avro_fixture_is_hudi_bytes():
    data = (COMMIT_METADATA_DIR / "v8_deltacommit.avro").read_bytes()
    meta = im.decode(data, im.COMMIT)
    assert im.encode(im.COMMIT, meta, sync=data[-16:]) == data
    assert meta["version"] is None and meta["extraMetadata"]["schema"] == im.schema_of(meta)
    assert all(path.startswith(p) or p == "" for p, path in im.files_written(meta))


def test_v6_json_normalises_to_the_avro_shape():
    data = (COMMIT_METADATA_DIR / "v6_commit.json").read_bytes()
    meta = im.decode(data, layout_version=1)
    assert list(meta) == list(im.record_fields(im.COMMIT))
    assert meta["operationType"] == "UPSERT" and meta["compacted"] is False and meta["version"] is None
    stat = meta["partitionToWriteStats"][""][0]
    assert list(stat) == list(im.record_fields("HoodieWriteStat"))
    assert list(stat["runtimeStats"]) == ["totalScanTime", "totalCreateTime", "totalUpsertTime"]
    assert stat["numWrites"] == 4 and stat["logFiles"] is None
    assert im.files_written(meta) == [("", stat["path"])]
    assert im.decode(im.encode(im.COMMIT, meta)) == meta


def test_v6_json_replacecommit_and_delta_stats(fixture_tables):
    base = Path(fixture_tables["sample_table_mor_parquet__v6_simplekeygen_nonhivestyle_overwritetable"])
    [completed] = (base / ".hoodie").glob("*.replacecommit")
    meta = im.decode(completed.read_bytes(), layout_version=1)
    assert list(meta) == list(im.record_fields(im.REPLACE_COMMIT))
    assert meta["operationType"] == "INSERT_OVERWRITE_TABLE"
    assert sorted(im.replaced_file_ids(meta)) == ["10", "20", "30"]
    assert im.decode(im.encode(im.REPLACE_COMMIT, meta)) == meta
    for delta in (base / ".hoodie").glob("*.deltacommit"):
        meta = im.decode(delta.read_bytes(), im.COMMIT, layout_version=1)
        assert im.decode(im.encode(im.COMMIT, meta)) == meta


# ---------------------------------------------------------------------------------------------
# The container format and the API


def test_container_layout_is_hudis():
    sync = bytes(range(16))
    data = im.encode(im.COMMIT, im.commit_metadata({}, "INSERT", None), sync=sync)
    reader = fastavro.reader(io.BytesIO(data))
    assert reader.metadata == {"avro.schema": im.schema_text(im.COMMIT)}  # no avro.codec entry
    assert data.startswith(b"Obj\x01\x02\x16avro.schema") and data.endswith(sync)
    assert data.count(sync) == 2 and list(reader) == [im.commit_metadata({}, "INSERT", None)]
    assert im.encode(im.COMMIT, {"compacted": None}) != im.encode(im.COMMIT, {"compacted": None})


def test_schema_files():
    files = sorted(p.stem for p in im.SCHEMA_DIR.glob("*.avsc"))
    # beside the instant schemas: the metadata table's record schema
    assert [f for f in files if f != "HoodieMetadata"] == sorted(im.KINDS)
    for kind in im.KINDS:
        s = im.schema(kind)
        assert (s["name"], s["namespace"]) == (kind, "org.apache.hudi.avro.model")
        assert '"doc"' not in im.schema_text(kind)
        fastavro.parse_schema(s)
    assert im.record_fields("HoodieRuntimeStats") == ("totalScanTime", "totalCreateTime", "totalUpsertTime")
    assert im.record_fields("HoodieWriteStat")[:3] == ("fileId", "path", "prevCommit")
    with pytest.raises(ValueError, match="unknown record"):
        im.record_fields("Nope")


@pytest.mark.parametrize("action,state,kind", [
    ("commit", "requested", None), ("commit", "inflight", im.COMMIT), ("commit", "completed", im.COMMIT),
    ("deltacommit", "requested", None), ("deltacommit", "inflight", im.COMMIT),
    ("deltacommit", "completed", im.COMMIT),
    ("replacecommit", "requested", im.REQUESTED_REPLACE), ("replacecommit", "inflight", im.COMMIT),
    ("replacecommit", "completed", im.REPLACE_COMMIT),
    ("clustering", "requested", im.REQUESTED_REPLACE), ("clustering", "inflight", None),
    ("compaction", "requested", im.COMPACTION_PLAN), ("compaction", "inflight", None),
    ("logcompaction", "requested", im.COMPACTION_PLAN),
    ("clean", "requested", im.CLEANER_PLAN), ("clean", "completed", im.CLEAN),
    ("rollback", "requested", im.ROLLBACK_PLAN), ("rollback", "inflight", None),
    ("rollback", "completed", im.ROLLBACK),
    ("restore", "requested", im.RESTORE_PLAN), ("restore", "completed", im.RESTORE),
    ("savepoint", "inflight", None), ("savepoint", "completed", im.SAVEPOINT),
    ("indexing", "requested", im.INDEX_PLAN), ("indexing", "inflight", None),
    ("indexing", "completed", im.INDEX_COMMIT),
])
def test_metadata_kind(action, state, kind):
    assert im.metadata_kind(action, state) == kind


def test_clear_errors():
    with pytest.raises(ValueError, match="unknown action"):
        im.metadata_kind("merge", "requested")
    with pytest.raises(ValueError, match="unknown state"):
        im.metadata_kind("commit", "done")
    with pytest.raises(ValueError, match="unknown instant metadata kind"):
        im.encode("HoodieNothing", {})
    with pytest.raises(ValueError, match="not a valid HoodieRollbackPlan"):
        im.encode(im.ROLLBACK_PLAN, {"instantToRollback": {"commitTime": 5, "action": "commit"}})
    with pytest.raises(ValueError, match="holds a HoodieCommitMetadata, expected a HoodieCleanerPlan"):
        im.decode(im.encode(im.COMMIT, im.commit_metadata({}, "INSERT", None)), im.CLEANER_PLAN)
    with pytest.raises(ValueError, match="neither an Avro container nor JSON"):
        im.decode(b"PAR1....")
    with pytest.raises(ValueError, match="layout version"):
        im.decode(b"", layout_version=3)
    with pytest.raises(ValueError, match="unknown HoodieWriteStat fields"):
        im.write_stat(fileID="x")
    assert im.decode(b"") == {} and im.decode(b"", im.ROLLBACK) == {}


def test_builders_and_accessors():
    insert = im.write_stat(fileId="f1", path="p=1/f1_0-1-2_001.parquet", prevCommit="null", numWrites=3,
                           numInserts=3, partitionPath="p=1", runtimeStats={"totalCreateTime": 7})
    assert insert["runtimeStats"] == {"totalScanTime": None, "totalCreateTime": 7, "totalUpsertTime": None}
    assert len(insert) == 31 and insert["logFiles"] is None
    meta = im.replace_commit_metadata({"p=1": [insert]}, "INSERT_OVERWRITE", '{"type":"record"}',
                                      {"p=1": ["f0"]}, extra={"k": "v"})
    assert meta["extraMetadata"] == {"schema": '{"type":"record"}', "k": "v"}
    back = im.decode(im.encode(im.REPLACE_COMMIT, meta), im.REPLACE_COMMIT)
    assert back == meta
    assert im.files_written(back) == [("p=1", "p=1/f1_0-1-2_001.parquet")]
    assert im.replaced_file_ids(back) == {"p=1": ["f0"]}
    assert im.replaced_file_ids(im.commit_metadata({}, "UPSERT", None)) == {}
    assert im.schema_of(back) == '{"type":"record"}'
    inflight = im.commit_metadata({"p=1": [im.write_stat(fileId="", prevCommit="null", numWrites=0)]},
                                  "UPSERT", None)
    assert inflight["extraMetadata"] == {} and im.files_written(inflight) == []
    assert list(im.write_stats(inflight)) == [("p=1", inflight["partitionToWriteStats"]["p=1"][0])]


# ---------------------------------------------------------------------------------------------
# Generated round trips


def avro_values(node, names: dict | None = None) -> st.SearchStrategy:
    """Values of an Avro schema (JSON form); small containers keep examples cheap."""
    names = {} if names is None else names
    if isinstance(node, str):
        return names[node] if node in names else avro_values({"type": node}, names)
    if isinstance(node, list):
        return st.one_of([avro_values(branch, names) for branch in node])
    kind = node["type"]
    if isinstance(kind, (dict, list)):
        return avro_values(kind, names)
    if kind == "record":
        fields = {}
        strategy = st.fixed_dictionaries(fields)
        names[node["name"]] = strategy  # registered first, so later references resolve
        for f in node["fields"]:
            fields[f["name"]] = avro_values(f["type"], names)
        return strategy
    if kind == "array":
        return st.lists(avro_values(node["items"], names), max_size=3)
    if kind == "map":
        return st.dictionaries(st.text(max_size=12), avro_values(node["values"], names), max_size=3)
    return {
        "null": st.none(),
        "boolean": st.booleans(),
        "int": st.integers(-2**31, 2**31 - 1),
        "long": st.integers(-2**63, 2**63 - 1),
        "float": st.floats(width=32, allow_nan=False),
        "double": st.floats(allow_nan=False),
        "string": st.text(max_size=20),
        "bytes": st.binary(max_size=20),
    }[kind]


def _round_trip(kind, obj):
    data = im.encode(kind, obj)
    assert im.decode(data, kind) == obj
    assert im.decode(data) == obj


FEW = settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@FEW
@given(avro_values(im.schema(im.COMMIT)))
def test_generated_commit_metadata(obj):
    _round_trip(im.COMMIT, obj)


@FEW
@given(avro_values(im.schema(im.REPLACE_COMMIT)))
def test_generated_replace_commit_metadata(obj):
    _round_trip(im.REPLACE_COMMIT, obj)


def _write_stat_schema() -> dict:
    stats_map = im.schema(im.COMMIT)["fields"][0]["type"][1]
    return stats_map["values"]["items"]


@FEW
@given(st.lists(avro_values(_write_stat_schema()), max_size=4), st.text(max_size=10))
def test_generated_write_stats(stats, partition):
    assert [im.write_stat(**s) for s in stats] == stats
    meta = im.commit_metadata({partition: stats}, "UPSERT", '{"type":"null"}')
    _round_trip(im.COMMIT, meta)
    assert im.files_written(meta) == [(partition, f) for s in stats if s["path"]
                                      for f in [s["path"], *(s["cdcStats"] or ())]]


@FEW
@given(avro_values(im.schema(im.ROLLBACK)))
def test_generated_rollback_metadata(obj):
    _round_trip(im.ROLLBACK, obj)


@FEW
@given(avro_values(im.schema(im.CLEANER_PLAN)))
def test_generated_cleaner_plan(obj):
    _round_trip(im.CLEANER_PLAN, obj)


@pytest.mark.parametrize("kind", [k for k in im.KINDS
                                  if k not in (im.COMMIT, im.REPLACE_COMMIT, im.ROLLBACK, im.CLEANER_PLAN)])
def test_generated_other_kinds(kind):
    @settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(avro_values(im.schema(kind)))
    def check(obj):
        _round_trip(kind, obj)
    check()
