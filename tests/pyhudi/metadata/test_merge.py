"""Hudi's merge of two records of one key."""
from pyhudi.metadata.merge import combine, merge_stats
from pyhudi.metadata.records import ColumnStats, deletion, partition_files_record
from pyhudi.metadata.wrappers import LONG, wrap


def test_files_merge():
    older = partition_files_record("p", {"a": 10, "b": 20})
    newer = partition_files_record("p", {"c": 5, "a": 12}, deleted=["b", "gone"])
    merged = combine(older, newer)
    assert dict(sorted(merged.files.items())) == {"a": (12, False), "c": (5, False), "gone": (0, True)}
    assert merged.live_files() == {"a": 12, "c": 5}
    assert combine(merged, deletion("p")).deleted
    assert combine(deletion("p"), older).files == older.files


def test_stats_merge():
    a = ColumnStats("f", "c", wrap(5, LONG), wrap(9, LONG), 4, 1, 10, 20)
    b = ColumnStats("f", "c", wrap(1, LONG), wrap(7, LONG), 2, 0, 5, 6)
    m = merge_stats(a, b)
    assert (m.min_value.value, m.max_value.value, m.value_count, m.null_count, m.total_size) == (1, 9, 6, 1, 15)
    tight = ColumnStats("f", "c", wrap(3, LONG), wrap(4, LONG), 1, 0, 1, 1, is_tight_bound=True)
    assert merge_stats(a, tight) is tight
    tomb = ColumnStats("f", "c", is_deleted=True)
    assert merge_stats(a, tomb) is tomb and merge_stats(tomb, b) is b
