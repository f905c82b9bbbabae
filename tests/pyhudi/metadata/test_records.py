"""Constructors of metadata records."""
import pytest

from pyhudi.metadata.errors import MetadataRecordError
from pyhudi.metadata.records import (
    all_partitions_record,
    bloom_filter_record,
    column_stats_tombstone,
    deletion,
    partition_files_record,
)


def test_records_readers_skip():
    assert not deletion("k").is_present
    assert not column_stats_tombstone("p", "f.parquet", "c").is_present
    assert not bloom_filter_record("p", "f.parquet", "1", None, deleted=True).is_present
    assert bloom_filter_record("p", "f.parquet", "1", "QUJD").bloom.bloom_filter == b"QUJD"


def test_files_records():
    assert all_partitions_record(["", "b"]).files == {".": (0, False), "b": (0, False)}
    assert partition_files_record("p", {"f": 3}, deleted=["f", "g"]).files == {"f": (3, False), "g": (0, True)}
    with pytest.raises(MetadataRecordError, match="never records empty files"):
        partition_files_record("p", {"f": 0})
