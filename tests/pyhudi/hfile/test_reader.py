"""The sequential reader on HBase-written files (the writer's tests rely on it)."""
from __future__ import annotations

import pytest

from pyhudi.hfile import parse_hfile, read_hfile, write_hfile
from pyhudi.hfile.format import TRAILER_SIZE, HFileFormatError
from tests.pyhudi.hfile.hfile_checks import HFILES


@pytest.mark.parametrize("path", HFILES, ids=lambda p: p.stem)
def test_reads_hbase_fixture(path):
    data = path.read_bytes()
    contents = parse_hfile(data)  # also verifies every checksum
    assert len(contents.cells) == contents.trailer.entry_count
    assert [row for row, _ in contents.cells] == sorted(row for row, _ in contents.cells)
    assert all(row.startswith(b"hudi-key-") and value.startswith(b"hudi-value-") for row, value in contents.cells)
    assert f"_{contents.trailer.codec}_" in path.stem or not contents.cells
    assert read_hfile(data) == contents.cells


def test_missing_load_on_open_blocks_rejected():
    data = write_hfile([("k", b"v")])
    with pytest.raises(HFileFormatError, match="no file-info block"):
        parse_hfile(data[-TRAILER_SIZE:])
