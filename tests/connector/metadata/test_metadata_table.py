"""The metadata-table reader (io.hudimeta.metadata) on the real Hudi-written metadata tables.

The `files` partition must list exactly the committed files that storage holds, the hash ids must
match Hudi's (docs/format.md §7.5), column statistics must match what pyarrow computes from the very
Parquet files, and building the listing must not list any data-table directory. Copies of a fixture
are damaged on purpose to check which metadata-table writes a reader may trust.
"""
from __future__ import annotations

import json
import re
import shutil
import uuid
import zipfile
from decimal import Decimal
from pathlib import Path
from urllib.parse import urlparse

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
import pytest
from conftest import FIXTURES, TABLE_ZIPS

from pyhudi.log import DeleteRecord, delete_block, encode_block, rollback_block

MDT_TABLES = [z.stem for z in TABLE_ZIPS
              if any(n.endswith(".hoodie/metadata/.hoodie/hoodie.properties") for n in zipfile.ZipFile(z).namelist())]
V8_MDT = "quickstart_trips_table_mor_avro__v8_trips_8i3u1d"
V9_COW_META = "sample_table_cow__v9_txns_simple_meta"
V9_MOR_META = "sample_table_mor_avro__v9_txns_simple_meta"
V9_NONPART_META = "sample_table_cow__v9_txns_nonpart_meta"
LOG_NAME = re.compile(r"\.(.+?)_(\d+)\.log\.\d+(?:_\d+-\d+-\d+)?")


@pytest.fixture(scope="module")
def mdt(spark):
    return spark._jvm.io.hudimeta.metadata.MetadataInspect


@pytest.fixture(scope="module")
def conf(spark):
    return spark._jsc.hadoopConfiguration()


def listing(mdt, conf, base) -> dict:
    return json.loads(mdt.listingJson(str(base), conf))


def instant_of(name: str) -> str:
    """Instant in a base file name (after the last `_`) or a log file name (after the file id)."""
    m = LOG_NAME.fullmatch(name)
    return m[2] if m else name.rsplit("_", 1)[1].split(".", 1)[0]


def without_instant(files: dict, instant: str) -> dict:
    return {p: [f for f in entries if instant_of(f[0]) != instant] for p, entries in files.items()}


def last_commit(base: Path) -> str:
    """Requested time of the latest completed commit/deltacommit/replacecommit of a v8+ table."""
    done = [f.name for f in (base / ".hoodie" / "timeline").iterdir()
            if re.fullmatch(r"\d+_\d+\.(commit|deltacommit|replacecommit)", f.name)]
    return max(done).split("_")[0]


def copy_table(fixture_tables, name, tmp_path) -> Path:
    target = tmp_path / name
    shutil.copytree(fixture_tables[name], target)
    return target


def append_blocks(log_file: Path, *blocks) -> None:
    with open(log_file, "ab") as f:
        for b in blocks:
            f.write(encode_block(b))


def mdt_files_log(base: Path, instant: str) -> Path:
    [log] = (base / ".hoodie" / "metadata" / "files").glob(f".files-0000-0_{instant}.log.*")
    return log


# ---------------------------------------------------------------- discovery

def test_fixtures_with_metadata_tables():
    assert V8_MDT in MDT_TABLES and V9_MOR_META in MDT_TABLES and V9_NONPART_META in MDT_TABLES
    assert len(MDT_TABLES) == 7, MDT_TABLES


# ---------------------------------------------------------------- files partition vs storage

@pytest.mark.parametrize("name", MDT_TABLES)
def test_metadata_listing_equals_committed_storage_listing(mdt, conf, fixture_tables, name):
    r = listing(mdt, conf, fixture_tables[name])
    assert r["mdt"] and r["inSync"]
    meta, storage = r["metadata"], r["storage"]
    assert meta["partitions"] == storage["partitions"]
    assert meta["files"] == storage["files"]  # names and sizes of committed base and log files
    assert meta["slices"] == storage["slices"]
    assert sum(len(v) for v in meta["files"].values()) > 0
    if name == V9_NONPART_META:
        assert meta["partitions"] == [""]


@pytest.mark.parametrize("name", ["sample_table_cow__v9_txns_simple_nometa", "sample_table_cow__v8_nonpartitioned"])
def test_tables_without_metadata_table(mdt, conf, fixture_tables, name):
    assert listing(mdt, conf, fixture_tables[name])["mdt"] is False


def test_metadata_table_without_properties_is_not_used(mdt, conf, fixture_tables, tmp_path):
    base = copy_table(fixture_tables, V9_COW_META, tmp_path)
    (base / ".hoodie" / "metadata" / ".hoodie" / "hoodie.properties").unlink()
    assert listing(mdt, conf, base)["mdt"] is False


# ---------------------------------------------------------------- which writes count

def test_mdt_commit_of_pending_data_commit_is_ignored(mdt, conf, fixture_tables, tmp_path):
    """Write protocol: the MDT commits first. If the data commit never completed, its MDT blocks
    must not be read, so both listings agree on the previous state."""
    base = copy_table(fixture_tables, V9_MOR_META, tmp_path)
    t = last_commit(base)
    before = listing(mdt, conf, fixture_tables[V9_MOR_META])["metadata"]["files"]
    [done] = (base / ".hoodie" / "timeline").glob(f"{t}_*.deltacommit")
    done.unlink()  # the data deltacommit is now only inflight
    r = listing(mdt, conf, base)
    assert r["inSync"]
    assert r["metadata"]["files"] == r["storage"]["files"]
    assert r["metadata"]["slices"] == r["storage"]["slices"]
    assert r["metadata"]["files"] == without_instant(before, t) != before


def test_mdt_behind_data_table_is_not_in_sync(mdt, conf, fixture_tables, tmp_path):
    base = copy_table(fixture_tables, V9_MOR_META, tmp_path)
    t = last_commit(base)
    [done] = (base / ".hoodie" / "metadata" / ".hoodie" / "timeline").glob(f"{t}_*.deltacommit")
    done.unlink()  # the MDT deltacommit is now only inflight
    r = listing(mdt, conf, base)
    assert r["inSync"] is False
    storage = r["storage"]["files"]
    assert r["metadata"]["files"] == without_instant(storage, t) != storage


def test_rollback_command_block_drops_target_blocks(mdt, conf, fixture_tables, tmp_path):
    base = copy_table(fixture_tables, V9_MOR_META, tmp_path)
    t = last_commit(base)
    append_blocks(mdt_files_log(base, t), rollback_block("20990101000000000", t))
    r = listing(mdt, conf, base)
    storage = r["storage"]["files"]
    assert r["metadata"]["files"] == without_instant(storage, t) != storage


def test_delete_block_removes_partition_record(mdt, conf, fixture_tables, tmp_path):
    base = copy_table(fixture_tables, V9_MOR_META, tmp_path)
    t = last_commit(base)
    append_blocks(mdt_files_log(base, t), delete_block([DeleteRecord("region=eu", "files")], t))
    meta = listing(mdt, conf, base)["metadata"]
    assert "region=eu" in meta["partitions"]  # still in __all_partitions__
    assert meta["files"]["region=eu"] == []
    assert meta["files"]["region=us"] and meta["files"]["region=apac"]


@pytest.mark.parametrize("records, live, tombstones", [
    ([{"a": [10, False]}, {"a": [20, False], "b": [5, False]}], {"a": 20, "b": 5}, []),
    ([{"a": [30, False]}, {"a": [20, False]}], {"a": 30}, []),  # sizes only grow: max wins
    ([{"a": [10, False], "b": [1, False]}, {"a": [0, True]}], {"b": 1}, []),
    ([{"a": [10, False]}, {"c": [0, True]}], {"a": 10}, ["c"]),  # deletion of an unknown file is kept
    ([{"a": [10, False]}, {"c": [0, True]}, {"c": [7, False]}], {"a": 10, "c": 7}, []),
    ([{"a": [10, False]}, None], None, []),  # delete-block entry
    ([{"a": [10, False]}, None, {"b": [3, False]}], {"b": 3}, []),  # starts afresh after a delete
])
def test_files_record_merge(mdt, records, live, tombstones):
    r = json.loads(mdt.mergeFilesJson(json.dumps(records)))
    assert r["live"] == live
    assert r["tombstones"] == tombstones


# ---------------------------------------------------------------- index partitions vs snapshot

def snapshot_rows(name: str) -> list[dict]:
    """hudi-rs's snapshot of a fixture table (canonical form: values as str(), nulls as None)."""
    exp = json.loads((FIXTURES / "expected" / f"{name}.snapshot.json").read_text())
    return [dict(zip(exp["columns"], row)) for row in exp["rows"]]


@pytest.mark.parametrize("name, key_field, partition_field", [
    (V8_MDT, "uuid", "city"), (V9_COW_META, "txn_id", "region"), (V9_MOR_META, "txn_id", "region")])
def test_record_index_matches_snapshot(mdt, conf, fixture_tables, name, key_field, partition_field):
    """After merging base HFiles, HFile blocks and delete blocks, record_index holds exactly the live keys,
    each pointing at a file group of its partition."""
    base = fixture_tables[name]
    rows = snapshot_rows(name)
    index = json.loads(mdt.recordsJson(base, conf, "record_index", ""))
    assert set(index) == {r[key_field] for r in rows}
    slices = listing(mdt, conf, base)["metadata"]["slices"]
    for r in rows:
        info = json.loads(index[r[key_field]]["payload"])["recordIndexMetadata"]
        assert info["partitionName"] == f"{partition_field}={r[partition_field]}"
        bits = (info["fileIdHighBits"] % 2**64) << 64 | info["fileIdLowBits"] % 2**64
        assert f"{uuid.UUID(int=bits)}-{info['fileIndex']}" in {s["fileId"] for s in slices[info["partitionName"]]}


def test_record_index_lookup_routes_keys(mdt, conf, fixture_tables):
    """Exact lookups go to one file group by key hash; they must find what a full scan finds."""
    base = fixture_tables[V9_MOR_META]
    keys = [r["txn_id"] for r in snapshot_rows(V9_MOR_META)]
    scanned = json.loads(mdt.recordsJson(base, conf, "record_index", ""))
    found = json.loads(mdt.lookupJson(base, conf, "record_index", json.dumps(keys + ["TXN-999", "TXN-009"])))
    assert found == scanned
    assert "TXN-009" not in found  # deleted through a delete block (docs/format.md §7.8)


def test_secondary_index_matches_snapshot(mdt, conf, fixture_tables):
    rows = snapshot_rows(V9_MOR_META)
    index = json.loads(mdt.recordsJson(fixture_tables[V9_MOR_META], conf, "secondary_index_merchant_idx", ""))

    def escape(v: str) -> str:
        return "\0" if v is None else v.replace("\\", "\\\\").replace("$", "\\$")

    assert set(index) == {f"{escape(r['merchant_name'])}${r['txn_id']}" for r in rows}


# ---------------------------------------------------------------- hash ids and keys

def test_hash_id_vectors(mdt):
    ids = json.loads(mdt.hashIdsJson(json.dumps([".", "", "currency", "region=us"])))
    assert {s: ids[s]["id64"] for s in (".", "", "currency", "region=us")} == {
        ".": "FXThHwelITM=", "": "DW/eaNVbRdo=", "currency": "/m6lxu4Dh5w=", "region=us": "431THTTwO5Q="}
    assert ids[""]["id128"] == "1B2M2Y8AsgTpgAmY7PhCfg=="  # MD5 of the empty string
    # reference XXH64 vectors (seed 0 and a custom seed), covering the 32-byte stripe loop and all tails
    assert ids["__xxh64_seed0__"][""] == "ef46db3751d8e999"
    assert mdt.xxhash64Hex("abc", 0) == "44bc2cf5ad770999"
    assert mdt.xxhash64Hex("Nobody inspects the spammish repetition", 0) == "fbcea83c8a378bf1"
    assert mdt.xxhash64Hex("xxhash", 20141025) == "b559b98d844e0635"


def test_stats_key_vector(mdt):
    """The T-v9cow-meta example key of docs/format.md §7.8."""
    [k] = json.loads(mdt.statsKeysJson(json.dumps(
        [["currency", "region=us", "c7bbe63e-fa43-40ba-94a9-03158165edc6-0_1-27-53_20260307162434124.parquet"]])))
    assert k["partition_stats"] == "/m6lxu4Dh5w=431THTTwO5Q="
    assert k["column_stats"] == "/m6lxu4Dh5w=431THTTwO5Q=W7RhzS2IFnrW7FlqIkFJUw=="


@pytest.mark.parametrize("name", [V8_MDT, V9_COW_META, V9_NONPART_META])
def test_every_stats_key_recomputes(mdt, conf, fixture_tables, name):
    base = fixture_tables[name]
    partitions = listing(mdt, conf, base)["metadata"]["partitions"]
    col = json.loads(mdt.recordsJson(base, conf, "column_stats", ""))
    assert col
    triples = [[r["stats"]["columnName"], p, r["stats"]["fileName"]] for r in col.values() for p in partitions]
    keys = {k["column_stats"] for k in json.loads(mdt.statsKeysJson(json.dumps(triples)))}
    assert set(col) <= keys
    part = json.loads(mdt.recordsJson(base, conf, "partition_stats", ""))
    # partition_stats records keep the partition path ("." when non-partitioned) in fileName
    triples = [[r["stats"]["columnName"], r["stats"]["fileName"], ""] for r in part.values()]
    assert [k["partition_stats"] for k in json.loads(mdt.statsKeysJson(json.dumps(triples)))] == list(part)


# ---------------------------------------------------------------- column stats vs pyarrow

def arrow_value(column: pa.ChunkedArray, which: str):
    """min or max of a column as [kind, value] in MetadataInspect's encoding."""
    t = column.type
    if pa.types.is_timestamp(t):
        column = pc.cast(pc.cast(column, pa.timestamp("us", t.tz)), pa.int64())
    v = pc.min_max(column)[which].as_py()
    if v is None:
        return None
    if pa.types.is_timestamp(t):
        return ["timestamp", v]
    if pa.types.is_decimal(t):
        return ["decimal", str(v)]
    if pa.types.is_date(t):
        return ["date", v.isoformat()]
    if pa.types.is_boolean(t):
        return ["boolean", v]
    if pa.types.is_integer(t):
        return ["long" if t.bit_width == 64 else "int", v]
    if pa.types.is_floating(t):
        return ["double", v]
    return ["string", v]


@pytest.mark.parametrize("name, partition", [(V9_COW_META, "region=us"), (V8_MDT, "city=sao_paulo"),
                                             (V9_NONPART_META, "")])
def test_column_stats_match_parquet(mdt, conf, fixture_tables, name, partition):
    base = Path(fixture_tables[name])
    slices = listing(mdt, conf, base)["metadata"]["slices"][partition]
    bases = [s["base"] for s in slices if s["base"]]
    assert bases
    table0 = pq.read_table(base / partition / bases[0])
    columns = table0.column_names
    stats = json.loads(mdt.columnStatsJson(str(base), conf, partition, json.dumps(columns)))
    compared = 0
    for file_name in bases:
        data = pq.read_table(base / partition / file_name)
        per_column = stats[file_name]
        for column, s in per_column.items():
            col = data.column(column)
            assert s["fileName"] == file_name and s["columnName"] == column
            assert s["valueCount"] == data.num_rows, column
            assert s["nullCount"] == col.null_count, column
            got_min, got_max = s["min"], s["max"]
            if got_min and got_min[0] == "double":
                got_min, got_max = ["double", float(got_min[1])], ["double", float(got_max[1])]
            assert got_min == arrow_value(col, "min"), (file_name, column)
            assert got_max == arrow_value(col, "max"), (file_name, column)
            compared += 1
    assert compared >= len(bases) * 3


def test_column_stats_value_types_v9(mdt, conf, fixture_tables):
    """v9 records carry a valueType; dates, decimals and timestamps come back typed."""
    base = fixture_tables[V9_COW_META]
    stats = json.loads(mdt.columnStatsJson(base, conf, "region=us",
                                           json.dumps(["txn_date", "amount", "txn_datetime", "is_international"])))
    kinds = {c: (s["min"][0], s["valueType"]) for by_col in stats.values() for c, s in by_col.items()}
    assert kinds == {"txn_date": ("date", 12), "amount": ("decimal", 10), "txn_datetime": ("timestamp", 16),
                     "is_international": ("boolean", 2)}
    assert all(Decimal(s["amount"]["min"][1]) <= Decimal(s["amount"]["max"][1]) for s in stats.values())


def test_column_stats_unknown_column_is_empty(mdt, conf, fixture_tables):
    assert json.loads(mdt.columnStatsJson(fixture_tables[V9_COW_META], conf, "region=us", '["no_such_column"]')) == {}


def test_partition_stats(mdt, conf, fixture_tables):
    r = json.loads(mdt.partitionStatsJson(fixture_tables[V9_COW_META], conf, '["region=us", "region=eu"]',
                                          '["currency"]'))
    assert r["region=us"]["currency"]["min"] == ["string", "USD"] == r["region=us"]["currency"]["max"]
    assert r["region=eu"]["currency"]["min"] == ["string", "EUR"]


# ---------------------------------------------------------------- no data-table listing

def local(path: str) -> str:
    return urlparse(path.split(" ", 1)[1]).path.rstrip("/")


def test_metadata_listing_lists_no_data_directory(mdt, conf, fixture_tables):
    base = str(Path(fixture_tables[V9_COW_META]).resolve())
    r = json.loads(mdt.countedListingJson(base, conf))
    assert r["mdt"] and r["inSync"] and r["partitions"] == 3 and r["files"] > 0
    listed = [local(p) for p in r["listings"]]
    assert listed, "the counting file system saw no listing at all"
    assert all(p.startswith(base + "/.hoodie/") for p in listed), listed
    assert not [p for p in r["opens"] if urlparse(p).path.startswith(base + "/region=")]
    # control: a storage listing of the same table, through the same counting file system
    control = {local(p) for p in r["storageListings"]}
    assert {base, base + "/region=us", base + "/region=eu", base + "/region=apac"} <= control
