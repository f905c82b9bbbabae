import datetime as dt
import decimal
import struct

import pytest

from pyhudi.log import delete_content as D
from pyhudi.log.cursor import LogFormatError


def test_delete_payload_bytes():
    # v9 data-table delete (docs/format.md §2.4)
    payload = D.encode_delete_list([D.DeleteRecord("TXN-002", "region=us")])
    assert payload == b"\x02\x02\x0eTXN-002\x02\x12region=us\x04\x00\x00"


@pytest.mark.parametrize("value,kind,expected", [
    (True, None, True), (7, None, 7), (2**40, None, 2**40), (5, "long", 5), (1.5, None, 1.5),
    (1.25, "float", 1.25), (b"\x01\x02", None, b"\x01\x02"), ("zz", None, "zz"),
    (dt.date(2024, 1, 20), None, dt.date(2024, 1, 20)),
    (decimal.Decimal("-12.5"), None, decimal.Decimal("-12.5")),
    (dt.datetime(2024, 1, 20, 16, 0, 0, 5, tzinfo=dt.timezone.utc), None, 1705766400000005),
    (dt.time(1, 2, 3, 4), None, 3723000004), (None, None, None),
])
def test_delete_ordering_values_round_trip(value, kind, expected):
    d = D.DeleteRecord("key", "part", value, kind)
    (back,) = D.decode_delete_content(D.encode_delete_content([d]))
    assert (back.record_key, back.partition_path) == ("key", "part")
    assert back.ordering_value == expected
    assert back.ordering_type == (d.wrapper())
    assert D.encode_delete_content([back]) == D.encode_delete_content([d])


def test_unknown_ordering_type_is_refused():
    with pytest.raises(LogFormatError, match="valid: boolean"):
        D.encode_delete_list([D.DeleteRecord("k", "p", 1, "short")])


def test_sized_array_blocks_are_read():
    # Avro lets an array block carry its byte size (negative count); Java does not write it
    item = D.encode_delete_list([D.DeleteRecord("k", None)])[1:-1]
    payload = b"\x01" + bytes([len(item) * 2]) + item + b"\x00"
    assert D.decode_delete_list(payload) == [D.DeleteRecord("k", None, 0, "int")]


def test_malformed_delete_content():
    with pytest.raises(LogFormatError, match="version 2 .* not supported"):
        D.decode_delete_content(struct.pack(">ii", 2, 0))
    good = D.encode_delete_content([D.DeleteRecord("k", "p")])
    with pytest.raises(LogFormatError, match="1 bytes after the delete payload"):
        D.decode_delete_content(good + b"\x00")
    with pytest.raises(LogFormatError, match="delete block payload truncated"):
        D.decode_delete_list(b"\x02\x02")
    with pytest.raises(LogFormatError, match="branch 13 is not a Hudi 1.0 wrapper"):
        D.decode_delete_list(b"\x02\x00\x00\x1a\x00")
    with pytest.raises(LogFormatError, match="1 bytes after the delete record list"):
        D.decode_delete_list(b"\x00\x00")
