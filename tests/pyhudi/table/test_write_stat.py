"""WriteStat: the executors' stats rows typed, and the HoodieWriteStat commit metadata lists."""
import dataclasses

import pytest

from pyhudi.table.write_stat import WriteStat, by_partition
from pyhudi.write.executor import STATS_SCHEMA

BASE = WriteStat(partition="city=a", file_id="f1", path="city=a/f1_0-1-0_20250101000000001.parquet",
                 file_size=900, num_writes=5, num_inserts=3, num_update_writes=2, prev_commit="20241231000000001",
                 min_key="k1", max_key="k5", column_stats="[]", bloom="AAAA")
LOG = WriteStat(partition="city=a", file_id="f1", path="city=a/.f1_20250101000000002.log.1_0-1-0", file_size=70,
                is_log=True, num_writes=1, num_update_writes=1, num_deletes=1, prev_commit="20250101000000002",
                base_file="f1_0-1-0_20250101000000001.parquet")


def test_every_stats_row_column_is_a_field():
    names = [f.name for f in dataclasses.fields(WriteStat)]
    assert set(STATS_SCHEMA.names) <= set(names) and set(names) - set(STATS_SCHEMA.names) == {"bloom_type"}
    row = {f.name: getattr(BASE, f.name) for f in STATS_SCHEMA}
    assert WriteStat.from_row(row) == BASE


def test_mapping_round_trip_and_unknown_fields():
    assert WriteStat.from_row(dataclasses.asdict(LOG)) == LOG  # a stats row has exactly these fields
    with pytest.raises(TypeError):
        WriteStat.from_row({**dataclasses.asdict(LOG), "sizeInBytes": 1})


def test_base_file_commit_stat():
    stat = BASE.to_commit_stat()
    assert {k: stat[k] for k in ("fileId", "path", "prevCommit", "numWrites", "numInserts", "numUpdateWrites",
                                 "numDeletes", "totalWriteBytes", "fileSizeInBytes", "partitionPath")} == {
        "fileId": "f1", "path": BASE.path, "prevCommit": "20241231000000001", "numWrites": 5, "numInserts": 3,
        "numUpdateWrites": 2, "numDeletes": 0, "totalWriteBytes": 900, "fileSizeInBytes": 900,
        "partitionPath": "city=a"}
    assert stat["totalWriteErrors"] == 0 and stat["logFiles"] is None and stat["baseFile"] is None


def test_log_file_commit_stat():
    stat = LOG.to_commit_stat()
    assert (stat["logVersion"], stat["logOffset"], stat["baseFile"], stat["logFiles"]) == (
        1, 0, "f1_0-1-0_20250101000000001.parquet", [".f1_20250101000000002.log.1_0-1-0"])
    assert (stat["numDeletes"], stat["numInserts"]) == (1, 0)


def test_by_partition():
    other = dataclasses.replace(BASE, partition="city=b", path="city=b/f2_0-1-0_20250101000000001.parquet")
    assert by_partition([BASE, LOG, other]) == {"city=a": [BASE.to_commit_stat(), LOG.to_commit_stat()],
                                                "city=b": [other.to_commit_stat()]}
