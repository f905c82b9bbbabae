from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from conftest import TABLE_NAMES
from pyhudi.table import file_names as filenames

file_ids = st.one_of(st.uuids().map(lambda u: f"{u}-0"),
                     st.integers(0, 9999).map(lambda n: f"files-{n:04d}-0"))
instants = st.integers(10**16, 10**17 - 1).map(str)
tokens = st.tuples(*(st.integers(0, 10**6),) * 3).map(lambda t: "-".join(map(str, t)))


@given(file_ids, tokens, instants, st.sampled_from(["parquet", "hfile", "orc"]))
def test_base_name_round_trip(fid, token, instant, ext):
    name = filenames.BaseFileName(fid, token, instant, ext)
    assert filenames.parse_base(str(name)) == name
    assert filenames.is_base(str(name)) and not filenames.is_log(str(name))


@given(file_ids, instants, st.integers(0, 10**5), st.one_of(st.none(), tokens), st.sampled_from(["", ".cdc"]))
def test_log_name_round_trip(fid, instant, version, token, cdc):
    name = filenames.LogFileName(fid, instant, version, token, cdc if token else "")
    assert filenames.parse_log(str(name)) == name
    assert filenames.is_log(str(name)) and not filenames.is_base(str(name))


def test_log_order_is_hudis():
    """LogFileComparator: instant, version, write token (a missing one first), then suffix."""
    names = [".f-0_20250101000000001.log.1_0-1-1", ".f-0_20250101000000000.log.2",
             ".f-0_20250101000000000.log.1_1-0-1", ".f-0_20250101000000000.log.1",
             ".f-0_20250101000000000.log.1_0-1-2.cdc", ".f-0_20250101000000000.log.1_0-1-2"]
    ordered = sorted(names, key=lambda n: filenames.parse_log(n).sort_key())
    assert ordered == [names[3], names[5], names[4], names[2], names[1], names[0]]


def test_every_fixture_data_file_parses(fixture_tables):
    bases = logs = 0
    for name in TABLE_NAMES:
        for f in Path(fixture_tables[name]).rglob("*"):
            if "__MACOSX" in f.parts or not f.is_file():
                continue
            if f.suffix in (".parquet", ".hfile"):
                parsed = filenames.parse_base(f.name)
                assert str(parsed) == f.name
                bases += 1
            elif ".log." in f.name:
                parsed = filenames.parse_log(f.name)
                assert str(parsed) == f.name
                logs += 1
    assert bases > 100 and logs > 100


def test_known_names_and_errors():
    log = filenames.parse_log(".c3b646cc-8602-47c5-b010-3fe002241298-0_20260307162611195.log.1_0-157-346")
    assert (log.file_id, log.instant, log.version, log.write_token) == (
        "c3b646cc-8602-47c5-b010-3fe002241298-0", "20260307162611195", 1, "0-157-346")
    base = filenames.parse_base("files-0000-0_0-5-4_00000000000000000.hfile")
    assert (base.file_id, base.instant, base.ext) == ("files-0000-0", "00000000000000000", "hfile")
    import pytest
    with pytest.raises(ValueError, match="not a base file name"):
        filenames.parse_base("part-0000.parquet")


def test_partition_metadata():
    text = filenames.partition_metadata_text("20250101000000000", filenames.partition_depth("a=1/b=2"))
    assert text.startswith("#partition metadata\n")
    assert "commitTime=20250101000000000\npartitionDepth=2\n" in text
    assert filenames.partition_depth("") == 0
