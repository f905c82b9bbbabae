"""Java's String.hashCode and java.util.HashMap iteration order."""
from pyhudi.metadata.java_hash import JavaHashMap, java_hashmap_order, java_string_hash


def test_java_string_hash():
    assert java_string_hash("TXN-008") == -166313931
    assert java_string_hash("\U0001F600") == 0xD83D * 31 + 0xDE00  # UTF-16 code units
    assert java_string_hash("") == 0 and java_string_hash("a") == 97
    # against the definition (h = 31*h + unit, wrapped to a signed int), longer than any string hashed before
    for s in ["x" * 300, "héllo wörld \U0001F600" * 9, "2026-11-27/part-0001_1-0-1_20261127093015123.parquet"]:
        h, raw = 0, s.encode("utf-16-be")
        for i in range(0, len(raw), 2):
            h = (31 * h + (raw[i] << 8 | raw[i + 1])) & 0xFFFFFFFF
        assert java_string_hash(s) == (h - (1 << 32) if h >= 1 << 31 else h)


def test_java_hashmap_order():
    parts = ["city=san_francisco", "city=sao_paulo", "city=chennai"]
    assert java_hashmap_order(parts[::-1]) == parts  # as the fixture's __all_partitions__ holds them
    m = JavaHashMap()
    m.put_all(["x"])  # putAll sizes an empty table for the incoming entries: 2 buckets here
    assert m.capacity == 2
    assert sorted(java_hashmap_order(str(i) for i in range(100))) == sorted(str(i) for i in range(100))
