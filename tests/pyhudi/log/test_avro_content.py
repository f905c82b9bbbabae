import struct

import pytest

from pyhudi.log import avro_content as C
from pyhudi.log.cursor import LogFormatError

SCHEMA = {"type": "record", "name": "r", "fields": [{"name": "n", "type": "long"}]}


def test_records_round_trip_through_content():
    raw = C.encode_avro_records([{"n": 1}, {"n": -300}], SCHEMA)
    assert raw == [b"\x02", b"\xd7\x04"]
    content = C.encode_avro_content(raw)
    assert content == struct.pack(">iii", 3, 2, 1) + b"\x02" + struct.pack(">i", 2) + b"\xd7\x04"
    assert C.decode_avro_content(content) == raw
    assert C.decode_avro_records(raw, C.schema_text(SCHEMA)) == [{"n": 1}, {"n": -300}]


def test_content_versions():
    assert C.decode_avro_content(C.encode_avro_content([b"\x02"], version=2)) == [b"\x02"]
    with pytest.raises(LogFormatError, match="content version 1 is not supported"):
        C.decode_avro_content(C.encode_avro_content([b"\x02"], version=1))


def test_malformed_content():
    content = C.encode_avro_content([b"\x02"])
    with pytest.raises(LogFormatError, match="1 bytes after the last record"):
        C.decode_avro_content(content + b"\x00")
    with pytest.raises(LogFormatError, match="truncated reading record at offset 12"):
        C.decode_avro_content(content[:-1])
