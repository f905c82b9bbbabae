"""The indexing action: a record index built for a table with data while a writer goes on, caught up with
the writes completed during the build, listed only once complete; Hudi's plan and commit metadata; a
build that died cleared and run again; the errors."""
from pathlib import Path

import pytest

from pyhudi import faults
from pyhudi.cli import main as cli
from pyhudi.hudi_table import HudiTable
from pyhudi.services import indexing
from pyhudi.table import instant_metadata as im
from tests.pyhudi.write.test_record_index import OPTS, _assert_index_right, _index, _partitions, _rows

PLAIN = {k: v for k, v in OPTS.items() if k != "hoodie.metadata.record.index.enable"}


def _timeline(path: str, action: str) -> list[Path]:
    return sorted(p for p in (Path(path) / ".hoodie" / "timeline").iterdir() if f".{action}" in p.name)


@pytest.mark.parametrize("table_type", ["COPY_ON_WRITE", "MERGE_ON_READ"])
def test_built_while_a_writer_goes_on(spark, tmp_path, table_type):
    path = str(tmp_path / table_type)
    t = HudiTable(spark, path, {**PLAIN, "hoodie.datasource.write.table.type": table_type,
                                "hoodie.compact.inline": "false"})
    t.insert(_rows(spark, range(40), 1))
    writer = {**OPTS, "hoodie.index.type": "RECORD_INDEX", "hoodie.record.index.update.partition.path": "true"}
    writes, started = [], []

    def meanwhile():  # between the snapshot build and the hand-over: the index is listed inflight
        if started:  # the writes below pass this crash point too
            return
        started.append(True)
        assert "record_index" not in _partitions(path)
        writes.append(t.upsert(_rows(spark, range(35, 45), 2), writer))  # 5 updates, 5 new keys
        writes.append(t.delete(_rows(spark, range(0, 6), 3), writer))
        writes.append(t.upsert(_rows(spark, [10, 11], 4, region="apac"), writer))  # moved partition
    with faults.at("after_files", meanwhile):
        done = indexing.create(spark, path)
    assert len(writes) == 3 and all(w < done.requested_time or w > done.requested_time for w in writes)
    assert "record_index" in _partitions(path)
    index = _index(spark, path)
    assert "k0000" not in index and "k0044" in index and index["k0010"][0] == "apac"
    _assert_index_right(spark, path)
    # Apache Hudi's instants: the plan indexes up to the last instant completed before it
    [requested] = [p for p in _timeline(path, "indexing") if p.name.endswith(".requested")]
    plan = im.decode(requested.read_bytes())
    [info] = plan["indexPartitionInfos"]
    assert info["metadataPartitionPath"] == "record_index" and info["indexUptoInstant"] < done.requested_time
    [completed] = [p for p in _timeline(path, "indexing") if p.name.count("_") == 1]
    assert im.decode(completed.read_bytes())["indexPartitionInfos"] == [info]
    t.upsert(_rows(spark, range(44, 50), 5), writer)  # later writes keep it
    _assert_index_right(spark, path)


class _Died(Exception):
    pass


def _die():
    raise _Died()


def test_waits_for_writes_begun_before_it_and_a_dead_build_is_redone(spark, tmp_path, monkeypatch):
    path = str(tmp_path / "older")
    t = HudiTable(spark, path, PLAIN)
    t.insert(_rows(spark, range(20), 1))
    with faults.at("after_inflight", _die), pytest.raises(_Died):
        t.upsert(_rows(spark, range(5), 2))  # left inflight, as by a writer that died
    monkeypatch.setattr(indexing, "WAIT_FOR_OLDER_WRITES_S", 0)
    with pytest.raises(indexing.IndexingError, match=r"write \d+ began before indexing \d+ and is still pending"):
        indexing.create(spark, path)
    assert "record_index" not in _partitions(path)  # never listed: readers and writers ignore it
    assert cli(["rollback", path]) == 0
    assert cli(["index", "create", path]) == 0  # clears what the first attempt left, builds again
    assert len([p for p in _timeline(path, "indexing") if p.name.count("_") == 1]) == 1
    _assert_index_right(spark, path)


def test_errors_name_the_problem(spark, tmp_path):
    path = str(tmp_path / "errors")
    t = HudiTable(spark, path, {**PLAIN, "hoodie.metadata.enable": "false"})
    t.insert(_rows(spark, range(5), 1))
    with pytest.raises(indexing.IndexingError, match="has no metadata table"):
        indexing.create(spark, path)
    t.upsert(_rows(spark, range(5), 2), {**OPTS, "hoodie.metadata.enable": "true"})  # with its record index
    with pytest.raises(indexing.IndexingError, match="already has record_index"):
        indexing.create(spark, path)
    with pytest.raises(indexing.IndexingError, match="secondary_index_<name>, column_stats.*; 'files' is not one"):
        indexing.create(spark, path, "files")
    with pytest.raises(indexing.IndexingError, match="already has column_stats"):
        indexing.create(spark, path, "column_stats")
