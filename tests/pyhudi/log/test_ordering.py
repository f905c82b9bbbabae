import datetime as dt
import decimal

import pytest

from pyhudi.avro.binary import AvroReader
from pyhudi.log import ordering as O
from pyhudi.log.cursor import LogFormatError
from pyhudi.log.delete_content import DeleteRecord, encode_delete_list


def test_decimal_wrapper_bytes_and_type_mapping():
    # DecimalWrapper = decimal(30,15): 1 -> unscaled 10**15 as minimal two's complement
    payload = encode_delete_list([DeleteRecord(None, None, decimal.Decimal(1))])
    unscaled = (10**15).to_bytes(7, "big", signed=True)
    assert payload == b"\x02\x00\x00\x12" + bytes([len(unscaled) * 2]) + unscaled + b"\x00"
    assert O.ordering_type_for_avro(["null", "long"]) == "long"
    assert O.ordering_type_for_avro(["null", {"type": "int", "logicalType": "date"}]) == "int"
    assert O.ordering_type_for_avro({"type": "fixed", "name": "f", "size": 5, "logicalType": "decimal"}) == "decimal"


def test_union_branches_follow_the_wrapper_order():
    assert O.WRAPPER_INDEX["boolean"] == 1 and O.WRAPPER_INDEX["timestamp-micros"] == len(O.WRAPPERS)


@pytest.mark.parametrize("kind,value,encoded,decoded", [
    ("date", 19742, b"\xbc\xb4\x02", dt.date(2024, 1, 20)),
    ("date", dt.date(2024, 1, 20), b"\xbc\xb4\x02", dt.date(2024, 1, 20)),
    ("time-micros", 4, b"\x08", 4),
    ("timestamp-micros", dt.datetime(1970, 1, 1, 0, 0, 1), b"\x80\x89\x7a", 10**6),  # naive = UTC
])
def test_epoch_values_encode_from_numbers_or_python_values(kind, value, encoded, decoded):
    assert O.encode_wrapped(kind, value) == encoded
    assert O.decode_wrapped(AvroReader(encoded), kind) == decoded


def test_values_without_a_wrapper():
    with pytest.raises(LogFormatError, match="no Hudi ordering-value wrapper for list"):
        O.infer_ordering_type([1])
    with pytest.raises(LogFormatError, match="for Avro type 'null'"):
        O.ordering_type_for_avro("null")
    with pytest.raises(LogFormatError, match="unknown ordering type 'short'"):
        O.encode_wrapped("short", 1)
