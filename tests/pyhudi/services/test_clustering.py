"""Clustering: small files stitched into one per group, records sorted (linear, z-order, Hilbert) and
keeping their commit times, the input groups replaced, updates to groups under a pending plan refused
with the table left as it was, inline triggering, and hudi-rs reading what the connector reads."""
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from pyhudi.cli import main as cli
from pyhudi.hudi_table import HudiTable
from pyhudi.services import clustering, layout
from pyhudi.services.instant import ServiceTable
from pyhudi.table import file_names
from pyhudi.table import instant_metadata as im
from pyhudi.write.client import ClusteringConflictError
from tests.table_checks import fingerprint

SCHEMA = "id string, ts long, region string, x int, y int"
OPTS = {"hoodie.table.name": "cl", "hoodie.datasource.write.recordkey.field": "id",
        "hoodie.datasource.write.precombine.field": "ts", "hoodie.datasource.write.partitionpath.field": "region",
        "hoodie.clean.automatic": "false", "hoodie.archive.automatic": "false",
        "hoodie.parquet.small.file.limit": "0"}  # every insert opens a new file group: small files to stitch


def _rows(spark, ids, ts):
    return spark.createDataFrame([(f"k{i:03d}", ts, ("eu", "us")[i % 2], (i * 7) % 16, (i * 5) % 16) for i in ids],
                                 SCHEMA)


def _read(spark, path):
    return {r["id"]: (r["x"], r["ts"], r["_hoodie_commit_time"])
            for r in spark.read.format("hudi-meta").load(path).collect()}


def _live_bases(path, partition):
    return [p for p in (Path(path) / partition).glob("*.parquet")]


def _table(spark, path, table_type="COPY_ON_WRITE"):
    t = HudiTable(spark, path, {**OPTS, "hoodie.datasource.write.table.type": table_type})
    for start in range(0, 40, 10):
        t.insert(_rows(spark, range(start, start + 10), 1))
    return t


def test_small_files_are_stitched_sorted_and_replaced(spark, tmp_path):
    path = str(tmp_path / "t")
    _table(spark, path)
    before = _read(spark, path)
    opts = {**OPTS, "hoodie.clustering.plan.strategy.sort.columns": "x"}
    [t] = clustering.cluster(spark, path, opts)
    table = ServiceTable.open(path)
    done = [i for i in table.timeline.completed() if i.requested_time == t][0]
    assert done.action == "replacecommit"
    meta = im.decode(table.timeline.read(done))
    assert meta["operationType"] == "CLUSTER" and sorted(meta["partitionToReplaceFileIds"]) == ["eu", "us"]
    assert all(len(v) == 4 for v in meta["partitionToReplaceFileIds"].values())
    assert _read(spark, path) == before  # same rows, same commit times
    for partition in ("eu", "us"):
        new = [p for p in _live_bases(path, partition) if file_names.parse_base(p.name).instant == t]
        assert len(new) == 1
        xs = pq.read_table(new[0]).column("x").to_pylist()
        assert xs == sorted(xs) and len(xs) == 20
    from hudi import HudiTableBuilder
    got = pa.Table.from_batches(HudiTableBuilder.from_base_uri(path).build().read())
    assert sorted(got.column("id").to_pylist()) == sorted(before)
    assert cli(["metadata", "validate", path]) == 0
    assert spark.read.format("hudi-meta").load(path).filter("x = 3").count() == \
        sum(1 for v in before.values() if v[0] == 3)


def test_updates_to_a_group_under_pending_clustering_are_refused(spark, tmp_path):
    path = str(tmp_path / "t")
    t = _table(spark, path)
    scheduled = clustering.schedule(spark, path, OPTS).requested_time
    before = _read(spark, path)
    files = fingerprint(path)
    with pytest.raises(ClusteringConflictError, match=f"pending clustering {scheduled} rewrites"):
        t.upsert(_rows(spark, [1], 2))
    assert _read(spark, path) == before
    assert {k: v for k, v in fingerprint(path).items() if ".hoodie" not in k} == \
        {k: v for k, v in files.items() if ".hoodie" not in k}
    t.insert(_rows(spark, [100], 2))  # new records go to new file groups: allowed
    assert cli(["cluster", path]) == 0  # runs the pending plan
    t.upsert(_rows(spark, [1], 3))
    got = _read(spark, path)
    assert got["k001"][1] == 3 and "k100" in got and len(got) == 41


def test_merge_on_read_and_inline_clustering(spark, tmp_path):
    path = str(tmp_path / "t")
    opts = {**OPTS, "hoodie.datasource.write.table.type": "MERGE_ON_READ", "hoodie.compact.inline": "false",
            "hoodie.clustering.inline": "true", "hoodie.clustering.inline.max.commits": "3"}
    t = HudiTable(spark, path, opts)
    for start in range(0, 30, 10):
        t.insert(_rows(spark, range(start, start + 10), 1))
    replaces = [i for i in ServiceTable.open(path).timeline.completed() if i.action == "replacecommit"]
    assert len(replaces) == 1
    t.upsert(_rows(spark, [0, 1], 5))
    got = _read(spark, path)
    assert len(got) == 30 and got["k000"][1] == 5
    from hudi import HudiTableBuilder
    rs = pa.Table.from_batches(HudiTableBuilder.from_base_uri(path).build().read())
    assert dict(zip(rs.column("id").to_pylist(), rs.column("ts").to_pylist())) == {k: v[1] for k, v in got.items()}


def test_curves_order_points_by_both_columns():
    pts = [(x, y) for x in range(8) for y in range(8)]
    for strategy in ("zorder", "hilbert"):
        order = sorted(pts, key=lambda p: layout.curve_key(p, strategy))
        first_quarter = order[:16]
        assert {(x < 4, y < 4) for x, y in first_quarter} == {(True, True)}  # one quadrant, not one column
    assert layout.value_key(-5) < layout.value_key(3) < layout.value_key(2**40)
    assert layout.value_key(-1.5) < layout.value_key(0.0) < layout.value_key(2.25)
    assert layout.value_key("ab") < layout.value_key("b")


def test_zorder_clustering_and_errors(spark, tmp_path):
    path = str(tmp_path / "t")
    _table(spark, path)
    before = _read(spark, path)
    opts = {**OPTS, "hoodie.clustering.plan.strategy.sort.columns": "x,y", "hoodie.layout.optimize.strategy": "z-order"}
    clustering.cluster(spark, path, opts)
    assert _read(spark, path) == before
    with pytest.raises(clustering.ClusteringError, match="20990101000000000 is not a pending clustering"):
        clustering.execute(spark, path, "20990101000000000")
    with pytest.raises(Exception, match="hoodie.layout.optimize.strategy=spiral is not valid"):
        clustering.cluster(spark, path, {**OPTS, "hoodie.layout.optimize.strategy": "spiral"})
