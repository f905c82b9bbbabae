"""bulk_insert without a shuffle (pyhudi.write.bulk_insert): every hoodie.bulkinsert.sort.mode lays files out as
Apache Hudi's does, files roll over at hoodie.parquet.max.file.size, and the connector and hudi-rs read back
exactly what was written."""
import json
from collections import defaultdict
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from pyhudi import faults
from pyhudi.hudi_table import HudiTable

SCHEMA = "id string, ts long, region string, note string"
REGIONS = ("eu", "us", "ap")
OPTS = {"hoodie.table.name": "bulk", "hoodie.datasource.write.recordkey.field": "id",
        "hoodie.datasource.write.precombine.field": "ts", "hoodie.datasource.write.partitionpath.field": "region"}
TASKS = 3


def _input(spark, n, tasks=TASKS):
    """n rows spread over every region in each of `tasks` input partitions, keys not in input order."""
    rows = [(f"k{(i * 7919) % n:05d}", i, REGIONS[i % 3], f"note {i}") for i in range(n)]
    return spark.createDataFrame(rows, SCHEMA).repartition(tasks)


def _files(path) -> dict[str, list[Path]]:
    """partition -> its base files."""
    out = defaultdict(list)
    for f in sorted(Path(path).glob("*/*.parquet")):
        out[f.parent.name].append(f)
    return out


def _keys(f: Path) -> list[str]:
    return pq.read_table(f, columns=["_hoodie_record_key"]).column(0).to_pylist()


def _rows(table: pa.Table) -> list[tuple]:
    return sorted(zip(*(table.column(c).to_pylist() for c in ("id", "ts", "region", "note"))))


def _hudi_rs(path) -> list[tuple]:
    from hudi import HudiTableBuilder

    return _rows(pa.Table.from_batches(HudiTableBuilder.from_base_uri(path).build().read()))


def _commit(path) -> dict:
    completed = sorted(Path(path, ".hoodie", "timeline").glob("*.commit"))
    from pyhudi.table import instant_metadata as im
    return im.decode(completed[-1].read_bytes())


ROW_WRITER = "hoodie.datasource.write.row.writer.enable"


@pytest.mark.parametrize("mode,row_writer", [
    ("NONE", "false"), ("PARTITION_SORT", "false"), ("GLOBAL_SORT", "false"), ("PARTITION_PATH_REPARTITION", "false"),
    ("PARTITION_PATH_REPARTITION_AND_SORT", "false"), ("NONE", "true"), ("GLOBAL_SORT", "true")])
def test_each_sort_mode_lays_files_out_as_hudi_and_reads_back(spark, tmp_path, mode, row_writer):
    path, n = str(tmp_path / mode), 900
    df = _input(spark, n)
    HudiTable(spark, path, OPTS).bulk_insert(df, {"hoodie.bulkinsert.sort.mode": mode, ROW_WRITER: row_writer})
    expected = sorted((r.id, r.ts, r.region, r.note) for r in df.collect())
    read = spark.read.format("hudi-meta").load(path).select("id", "ts", "region", "note").collect()
    assert sorted(map(tuple, read)) == expected
    assert _hudi_rs(path) == expected
    files = _files(path)
    assert sorted(files) == sorted(REGIONS)
    per_partition = {p: len(fs) for p, fs in files.items()}
    if mode in ("NONE", "PARTITION_SORT"):  # each of the 3 input tasks writes its own file per region
        assert per_partition == {p: TASKS for p in REGIONS}
    if mode.startswith("PARTITION_PATH_REPARTITION"):  # a region is written by one task
        assert per_partition == {p: 1 for p in REGIONS}
    keys = {f: _keys(f) for fs in files.values() for f in fs}
    if mode in ("PARTITION_SORT", "GLOBAL_SORT"):  # sorted by (partition path, record key)
        assert all(k == sorted(k) for k in keys.values())
    if mode == "GLOBAL_SORT":  # and key ranges of a partition's files do not overlap
        for fs in files.values():
            ranges = sorted((keys[f][0], keys[f][-1]) for f in fs)
            assert all(a[1] < b[0] for a, b in zip(ranges, ranges[1:]))
    if mode == "NONE":  # as the input came: not sorted (the input's keys are scattered)
        assert any(k != sorted(k) for k in keys.values())
    stats = [s for p in _commit(path)["partitionToWriteStats"].values() for s in p]
    assert sum(s["numInserts"] for s in stats) == n and all(s["prevCommit"] == "null" for s in stats)
    assert {s["path"] for s in stats} == {f"{f.parent.name}/{f.name}" for f in keys}


@pytest.mark.parametrize("row_writer", ["false", "true"])
def test_files_roll_over_at_the_max_file_size(spark, tmp_path, row_writer):
    path, n = str(tmp_path / "roll"), 30_000
    limit = 40_000
    df = _input(spark, n, tasks=1)
    HudiTable(spark, path, OPTS).bulk_insert(df, {"hoodie.parquet.max.file.size": str(limit), ROW_WRITER: row_writer})
    files = _files(path)
    assert all(len(fs) > 1 for fs in files.values())  # each region's 10,000 rows in several file groups
    ids = [f.name.split("_")[0] for fs in files.values() for f in fs]
    assert len(set(ids)) == len(ids)
    for fs in files.values():
        for f in fs:  # written in row groups of at most the limit (in Arrow bytes) each
            meta = pq.ParquetFile(f).metadata
            groups = [meta.row_group(i) for i in range(meta.num_row_groups)]
            assert sum(g.column(j).total_compressed_size for g in groups for j in range(g.num_columns)) < 2 * limit
            seqnos = pq.read_table(f, columns=["_hoodie_commit_seqno"]).column(0).to_pylist()
            assert [s.rsplit("_", 1)[1] for s in seqnos] == [str(i) for i in range(len(seqnos))]  # per file
    assert spark.read.format("hudi-meta").load(path).count() == n
    assert len(_hudi_rs(path)) == n


def test_merge_on_read_bulk_insert_then_upsert(spark, tmp_path):
    path = str(tmp_path / "mor")
    t = HudiTable(spark, path, {**OPTS, "hoodie.datasource.write.table.type": "MERGE_ON_READ"})
    t.bulk_insert(_input(spark, 300))
    assert list(Path(path, ".hoodie", "timeline").glob("*.deltacommit"))
    t.upsert(spark.createDataFrame([("k00001", 10_000, "us", "updated")], SCHEMA))
    read = {r.id: r.note for r in spark.read.format("hudi-meta").load(path).collect()}
    assert len(read) == 300 and read["k00001"] == "updated"
    rs = {r[0]: r[3] for r in _hudi_rs(path)}
    assert rs == read


def test_a_bad_sort_mode_is_refused_before_any_instant(spark, tmp_path):
    path = str(tmp_path / "bad")
    with pytest.raises(ValueError, match="hoodie.bulkinsert.sort.mode.*GLOBAL_SORT"):
        HudiTable(spark, path, OPTS).bulk_insert(_input(spark, 10), {"hoodie.bulkinsert.sort.mode": "RANDOM"})
    assert not list(Path(path).glob(".hoodie/timeline/*"))


def test_the_metadata_table_lists_what_bulk_insert_wrote(spark, tmp_path):
    path = str(tmp_path / "mdt")
    HudiTable(spark, path, OPTS).bulk_insert(_input(spark, 600))
    listed = json.loads(spark._jvm.io.hudimeta.metadata.MetadataInspect.recordsJson(
        path, spark._jsc.hadoopConfiguration(), "files", ""))
    on_disk = {p: sorted(f.name for f in fs) for p, fs in _files(path).items()}
    for partition, names in on_disk.items():
        payload = json.loads(listed[partition]["payload"])
        assert sorted(payload["filesystemMetadata"]) == names



def test_files_of_a_failed_task_attempt_are_deleted_before_the_commit(spark, tmp_path):
    """A task attempt that wrote a file and then failed leaves it with its marker, and the retry writes the rows
    again: the commit deletes what its write stats do not list, so a listing reads each row once."""
    path = tmp_path / "retried"
    left = []

    def failed_attempt():  # as a first attempt would leave it: another file group with the same rows
        temp = next((path / ".hoodie" / ".temp").iterdir())
        written = sorted(path.glob("eu/*.parquet"))[0]
        name = f"00000000-0000-0000-0000-000000000000-0_9-9-9_{temp.name}.parquet"
        (path / "eu" / name).write_bytes(written.read_bytes())
        (temp / "eu").mkdir(parents=True, exist_ok=True)
        (temp / "eu" / f"{name}.marker.CREATE").write_bytes(b"")
        left.append(path / "eu" / name)

    with faults.at("after_files", failed_attempt):
        HudiTable(spark, str(path), {**OPTS, "hoodie.metadata.enable": "false"}).bulk_insert(_input(spark, 300))
    assert left and not left[0].exists()
    assert spark.read.format("hudi-meta").load(str(path)).count() == 300
    assert len(_hudi_rs(str(path))) == 300
