"""Secondary indexes (`secondary_index_<name>` metadata partitions) on real Hudi tables: the lookup of the
record keys holding a value (io.hudimeta.index.SecondaryIndex), and reads pruned by it: `col = v` / `col IN
(...)` on an indexed column give record keys, which the record index places in file groups.

Every query's rows must equal a full read filtered in Python; its scan description must name the keys, the
values looked up and the file groups read. A copy of a fixture without the data files of every other file
group proves no other file is opened.
"""
from __future__ import annotations

import datetime
import json
import re
import shutil
import sys
from functools import lru_cache
from pathlib import Path

import pyarrow as pa
import pytest
from pyspark.sql import functions as F

from tests.connector.index.test_record_index_pruning import (
    DS,
    KEY_FIELD,
    MAX_KEYS,
    METRICS,
    V8_MDT,
    V9_COW_META,
    V9_MOR_META,
    keep_only,
    locations,
    read,
)
from tests.connector.spark.test_data_skipping import scan_node

from tests.canonical import canon

INDEXES = {V8_MDT: {"rider": "secondary_index_rider_idx"},
           V9_MOR_META: {"merchant_name": "secondary_index_merchant_idx", "txn_date": "secondary_index_txn_date_idx"},
           V9_COW_META: {"merchant_name": "secondary_index_merchant_idx", "txn_date": "secondary_index_txn_date_idx"}}
INDEXED = [(name, column) for name, columns in INDEXES.items() for column in columns]
DESCRIBED = re.compile(r"record_index: (off\([^)]*\)|(\d+) keys? (?:\(([^)]*)\) )?-> (\d+) file groups?, "
                       r"(\d+) of (\d+) file slices pruned)")
INFLIGHT = "hoodie.table.metadata.partitions.inflight"
BUILT = "hoodie.table.metadata.partitions"


def lookup(spark, path, index, values) -> dict:
    jvm = spark._jvm.io.hudimeta.index.SecondaryIndex
    return json.loads(jvm.lookupJson(str(path), {}, index, json.dumps(values)))


@lru_cache(maxsize=None)
def full_read(spark, path) -> pa.Table:
    return read(spark, path).toArrow()


@lru_cache(maxsize=None)
def file_groups(spark, path) -> dict:
    """record key -> (partition, file id) of every live key."""
    return {k: tuple(v) for k, v in locations(spark, path).items()}


def expected(spark, path, keep) -> tuple[list, set]:
    """The canonical rows of a full read that `keep` (a row dict -> bool) selects, and their record keys."""
    table = full_read(spark, path)
    kept = [r for r in table.to_pylist() if keep(r)]
    return canon(pa.Table.from_pylist(kept, schema=table.schema))["rows"], {r["_hoodie_record_key"] for r in kept}


def run(df):
    """Rows (canonical form), the scan's metrics and its record_index description: (outcome, keys, values
    looked up, file groups, slices pruned, slices); the counts None when off."""
    rows = canon(df.toArrow())["rows"]
    node = scan_node(df)
    metrics = {m: node.metrics().apply(m).value() for m in METRICS}
    plan = df._jdf.queryExecution().executedPlan().toString()
    described = DESCRIBED.search(plan)
    assert described, plan
    return rows, metrics, described.groups()


def check_pruned(spark, path, where, keep, values: str, pinned=None):
    """`where` returns the rows `keep` selects; record_index looked up exactly the keys of the rows `pinned`
    selects (default: `keep`), found through `values` ("secondary_index_x: 1 value"), and read exactly the
    slices of their file groups."""
    rows, metrics, described = run(read(spark, path).where(where))
    want, keys = expected(spark, path, keep)
    if pinned is not None:
        keys = expected(spark, path, pinned)[1]
    groups = {file_groups(spark, path)[k] for k in keys}
    assert rows == want
    assert metrics["recordIndexKeys"] == len(keys)
    before, after = metrics["fileSlicesAfterSkipping"], metrics["fileSlicesAfterRecordIndex"]
    # column_stats keep every slice holding a row `where` selects; those of the keys' other rows may go
    assert after == len(groups) if pinned is None else 0 < after <= len(groups)
    assert described[1:] == (str(len(keys)), values, str(len(groups)), str(before - after), str(before))
    return metrics


def distinct(spark, path, column) -> list:
    return sorted({v for v in full_read(spark, path).column(column).to_pylist() if v is not None})


def pruning_value(spark, path, column):
    """The first value of `column` whose point query the secondary index prunes further than column_stats."""
    for value in distinct(spark, path, column):
        _, metrics, _ = run(read(spark, path).where(F.col(column) == value))
        if metrics["fileSlicesAfterSkipping"] > metrics["fileSlicesAfterRecordIndex"]:
            return value
    raise AssertionError(f"no value of {column} in {path} is pruned further by its secondary index")


def edited_copy(fixture_tables, name, tmp_path, edit) -> Path:
    """A copy of the fixture whose hoodie.properties lines `edit` rewrites (key, value) -> value."""
    base = tmp_path / name
    shutil.copytree(fixture_tables[name], base)
    props = base / ".hoodie" / "hoodie.properties"
    lines = []
    for line in props.read_text().splitlines():
        key, sep, value = line.partition("=")
        lines.append(f"{key}={edit(key, value)}" if sep and not line.startswith("#") else line)
    props.write_text("\n".join(lines) + "\n")
    return base


# ---- lookups ----

@pytest.mark.parametrize("name, column", INDEXED)
def test_lookup_returns_the_live_keys_of_every_value(spark, fixture_tables, name, column):
    path = fixture_tables[name]
    rows = full_read(spark, path).select(["_hoodie_record_key", column]).to_pylist()
    holding: dict[str, set] = {}
    for r in rows:
        if r[column] is not None:
            holding.setdefault(str(r[column]), set()).add(r["_hoodie_record_key"])
    assert len(holding) > 1
    index = INDEXES[name][column]
    for asked in (index, index.removeprefix("secondary_index_")):
        found = lookup(spark, path, asked, sorted(holding))
        assert {v: set(keys) for v, keys in found.items()} == holding
        assert all(keys == sorted(keys) for keys in found.values())


def test_lookup_of_values_no_row_holds(spark, fixture_tables):
    path = fixture_tables[V8_MDT]
    assert lookup(spark, path, "rider_idx", ["rider-B", "rider-A$", "", "rider-A"]) == {
        "rider-B": [], "rider-A$": [], "": [], "rider-A": ["334e26e9-8355-45cc-97c6-c31daf0df330"]}


def test_lookup_of_a_date_by_day_number(spark, fixture_tables):
    path = fixture_tables[V9_MOR_META]
    day = (datetime.date(2024, 1, 21) - datetime.date(1970, 1, 1)).days
    found = lookup(spark, path, "txn_date_idx", ["2024-01-21", day])
    assert found == {"2024-01-21": ["TXN-017", "TXN-018"], str(day): ["TXN-017", "TXN-018"]}


def test_lookup_of_an_unknown_index_names_those_there_are(spark, fixture_tables):
    with pytest.raises(Exception, match=r"no secondary index 'rider_idx'; its secondary indexes: "
                                        r"\[secondary_index_merchant_idx, secondary_index_txn_date_idx\]"):
        lookup(spark, fixture_tables[V9_COW_META], "rider_idx", ["x"])


# ---- pruned reads ----

@pytest.mark.parametrize("name, column", INDEXED)
def test_point_query_on_every_value(spark, fixture_tables, name, column):
    path = fixture_tables[name]
    index = INDEXES[name][column]
    for value in distinct(spark, path, column):
        check_pruned(spark, path, F.col(column) == value, lambda r, v=value: r[column] == v, f"{index}: 1 value")


def test_in_and_null_safe_equality(spark, fixture_tables):
    path = fixture_tables[V8_MDT]
    riders = ["rider-A", "rider-G", "rider-I"]
    check_pruned(spark, path, F.col("rider").isin(*riders, None), lambda r: r["rider"] in riders,
                 "secondary_index_rider_idx: 3 values")
    check_pruned(spark, path, F.col("rider").eqNullSafe("rider-G"), lambda r: r["rider"] == "rider-G",
                 "secondary_index_rider_idx: 1 value")
    check_pruned(spark, path, (F.col("rider") == "rider-A") | (F.col("rider") == "rider-I"),
                 lambda r: r["rider"] in ("rider-A", "rider-I"), "secondary_index_rider_idx: 2 values")


def test_with_a_key_filter_and_other_columns(spark, fixture_tables):
    path = fixture_tables[V9_MOR_META]
    merchants = ["Grab", "GrabFood", "Spotify"]
    day = datetime.date(2024, 1, 16)
    merchant_idx, date_idx = "secondary_index_merchant_idx: ", "secondary_index_txn_date_idx: "
    both = merchant_idx + "1 value, " + date_idx + "1 value"
    cases = [
        # key-pinned and value-pinned keys intersect, in one filter or across top-level filters
        (F.col("merchant_name").isin(*merchants) & F.col("txn_id").isin("TXN-008", "TXN-018", "TXN-001"),
         lambda r: r["merchant_name"] in merchants and r["txn_id"] in ("TXN-008", "TXN-018", "TXN-001"),
         merchant_idx + "3 values"),
        ((F.col("merchant_name") == "Grab") | (F.col("txn_id") == "TXN-001"),
         lambda r: r["merchant_name"] == "Grab" or r["txn_id"] == "TXN-001", merchant_idx + "1 value"),
        # two indexes
        ((F.col("merchant_name") == "Grab") & (F.col("txn_date") == day),
         lambda r: r["merchant_name"] == "Grab" and r["txn_date"] == day, both),
        ((F.col("merchant_name") == "Grab") | (F.col("txn_date") == day),
         lambda r: r["merchant_name"] == "Grab" or r["txn_date"] == day, both),
        # one column pinned twice: the values both allow
        ((F.col("merchant_name").isin("Grab", "Uber")) & (F.col("merchant_name").isin("Uber", "Spotify")),
         lambda r: r["merchant_name"] == "Uber", merchant_idx + "1 value"),
    ]
    for where, keep, values in cases:
        check_pruned(spark, path, where, keep, values)
    # a column no index covers: only the indexed one pins
    usd = lambda r: r["merchant_name"] in merchants and r["currency"] == "USD"  # noqa: E731
    check_pruned(spark, path, F.col("merchant_name").isin(*merchants) & (F.col("currency") == "USD"), usd,
                 merchant_idx + "3 values", pinned=lambda r: r["merchant_name"] in merchants)
    _, _, described = run(read(spark, path).where((F.col("merchant_name") == "Grab") | (F.col("amount") > 0)))
    assert described[0] == "off(no-key-filter)"


@pytest.mark.parametrize("name, column", [(V9_MOR_META, "merchant_name"), (V9_MOR_META, "txn_date"),
                                          (V9_COW_META, "merchant_name"), (V9_COW_META, "txn_date")])
def test_reads_only_the_file_groups_of_the_keys(spark, fixture_tables, tmp_path, name, column):
    path = fixture_tables[name]
    value = pruning_value(spark, path, column)
    _, keys = expected(spark, path, lambda r: r[column] == value)
    copy = keep_only(fixture_tables, name, sorted({file_groups(spark, path)[k] for k in keys}), tmp_path)
    with pytest.raises(Exception, match="FileNotFoundException"):
        read(spark, copy).count()  # control: a full read meets the files moved away
    rows, metrics, described = run(read(spark, copy).where(F.col(column) == value))
    assert rows == expected(spark, path, lambda r: r[column] == value)[0] != []
    assert metrics["fileSlicesAfterRecordIndex"] < metrics["fileSlicesAfterSkipping"]
    assert described[1] == str(len(keys))


@pytest.mark.parametrize("name, column, value", [(V8_MDT, "rider", "rider-B"), (V9_MOR_META, "merchant_name", "Gra"),
                                                 (V9_COW_META, "txn_date", datetime.date(2024, 1, 17))])
def test_value_no_row_holds_reads_nothing(spark, fixture_tables, tmp_path, name, column, value):
    copy = keep_only(fixture_tables, name, [], tmp_path)  # every data file moved away
    rows, metrics, described = run(read(spark, copy).where(F.col(column) == value))
    assert metrics["partitionsAfterPartitionStats"] == 0 and metrics["fileSlicesAfterSkipping"] == 0  # none listed
    assert rows == []
    assert metrics["recordIndexKeys"] == 0
    assert metrics["fileSlicesAfterRecordIndex"] == 0 and metrics["filesAfterRecordIndex"] == 0
    assert described[1:] == ("0", f"{INDEXES[name][column]}: 1 value", "0", "0", "0")


# ---- when the index is not used ----

@pytest.mark.parametrize("options, why", [
    ({DS: "false"}, f"off({DS}=false)"),
    ({MAX_KEYS: "1"}, f"off(2 values > {MAX_KEYS}=1)"),
    ({"hoodie.datasource.query.type": "read_optimized"}, "off(not-latest-snapshot)"),
])
def test_not_used_when_not_allowed(spark, fixture_tables, options, why):
    path = fixture_tables[V9_COW_META]
    rows, metrics, described = run(read(spark, path, **options).where(F.col("merchant_name").isin("Grab", "Uber")))
    assert rows == expected(spark, path, lambda r: r["merchant_name"] in ("Grab", "Uber"))[0] != []
    assert described[0] == why
    assert metrics["recordIndexKeys"] == 0
    assert metrics["fileSlicesAfterRecordIndex"] == metrics["fileSlicesAfterSkipping"]


def test_partition_being_built_is_not_used(spark, fixture_tables, tmp_path):
    name, index = V9_MOR_META, "secondary_index_merchant_idx"

    def inflight(key, value):
        if key == BUILT:
            return ",".join(p for p in value.split(",") if p != index)
        return index if key == INFLIGHT else value

    copy = edited_copy(fixture_tables, name, tmp_path, inflight)
    rows, metrics, described = run(read(spark, copy).where(F.col("merchant_name") == "Grab"))
    assert rows == expected(spark, fixture_tables[name], lambda r: r["merchant_name"] == "Grab")[0] != []
    assert described[0] == "off(no-key-filter)"
    # the other index still prunes
    day = datetime.date(2024, 1, 16)
    _, _, described = run(read(spark, copy).where((F.col("merchant_name") == "Grab") & (F.col("txn_date") == day)))
    assert described[1:3] == ("2", "secondary_index_txn_date_idx: 1 value")
    with pytest.raises(Exception, match="secondary_index_merchant_idx is still being built"):
        lookup(spark, copy, "merchant_idx", ["Grab"])


def test_column_of_a_type_without_key_text_is_not_used(spark, fixture_tables, tmp_path):
    name = V9_COW_META
    copy = tmp_path / name
    shutil.copytree(fixture_tables[name], copy)
    defs = copy / ".hoodie" / ".index_defs" / "index.json"
    text = json.loads(defs.read_text())
    text["indexDefinitions"]["secondary_index_merchant_idx"]["sourceFields"] = ["amount"]  # decimal(10,2)
    defs.write_text(json.dumps(text))
    amount = full_read(spark, fixture_tables[name]).column("amount").to_pylist()[0]
    for where in (F.col("amount") == amount, F.col("merchant_name") == "Grab"):
        rows, metrics, described = run(read(spark, copy).where(where))
        assert described[0] == "off(no-key-filter)"
        assert metrics["fileSlicesAfterRecordIndex"] == metrics["fileSlicesAfterSkipping"]
    assert rows == expected(spark, fixture_tables[name], lambda r: r["merchant_name"] == "Grab")[0] != []


def test_key_field_is_looked_up_without_the_index(spark, fixture_tables):
    """A filter on the record key field pins keys itself, even next to an indexed column."""
    path = fixture_tables[V8_MDT]
    key = min(file_groups(spark, path))
    _, metrics, described = run(read(spark, path).where(F.col(KEY_FIELD[V8_MDT]) == key))
    assert described[1:3] == ("1", None)
    assert metrics["recordIndexKeys"] == 1
