"""KeyValue cells and HBase's shortened index keys."""
from __future__ import annotations

import pytest

from pyhudi.hfile.cell import key_value_key, midpoint_row, parse_cells, put_cell
from pyhudi.hfile.format import HFileFormatError


@pytest.mark.parametrize("left,right,mid", [
    (b"hudi-key-000000234-abcdefghij", b"hudi-key-000000235-abcdefghij", b"hudi-key-000000235"),
    (b"abc", b"abe", b"abd"),
    (b"ab", b"abc", b"abc"),
    (b"a\x7f", b"a\x80", b"a\x80"),
    (b"a\x90x", b"a\x95", b"a\x91"),
])
def test_index_key_shortening(left, right, mid):
    assert midpoint_row(left, right) == mid
    assert left < mid <= right


def test_cells_parse_back_to_rows_and_values():
    cells = [(b"a", b""), (b"row", b"value"), (b"\xff" * 300, b"x" * 1000)]
    payload = b"".join(put_cell(row, value) for row, value in cells)
    assert parse_cells(payload, with_mvcc=True, with_tags=False) == cells
    cut = put_cell(b"r", b"value")[:-2]  # memstore byte and last value byte gone
    with pytest.raises(HFileFormatError, match="overrun their data block by 1 bytes"):
        parse_cells(cut, with_mvcc=False, with_tags=False)


def test_put_cell_holds_the_key_value_key_of_its_row():
    row, value = b"some-row", b"some-value"
    cell = put_cell(row, value)
    key = key_value_key(row)
    assert cell[8:8 + len(key)] == key and cell[8 + len(key):-1] == value and cell[-1:] == b"\x00"
    assert int.from_bytes(cell[:4], "big") == len(key) and int.from_bytes(cell[4:8], "big") == len(value)
