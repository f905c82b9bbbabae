"""Differences between the MDT `files` partition and a storage listing."""
from pyhudi.metadata.validation.files import differences


def test_differences():
    mdt = {"a": {"f1": 10, "f2": 20}, "b": {"g": 5}, "empty": {}}
    assert differences(mdt, {"a": [("a/f1", 10, None), ("f2", 20)], "b": ["g"], "gone": []}) == {}
    assert differences(mdt, {"a": [("f1", 11), ("f3", 1)], "c": ["h"]}) == {
        "missing_partitions": ["c"], "extra_partitions": ["b"], "missing_files": {"a": ["f3"], "c": ["h"]},
        "extra_files": {"a": ["f2"], "b": ["g"]}, "size_mismatch": {"a": {"f1": [10, 11]}}}
    assert differences({"": {"f": 1}}, {".": [("f", 1)]}) == {}
