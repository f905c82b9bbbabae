"""The protobuf varints and fields of the trailer and file info."""
from __future__ import annotations

import pytest

from pyhudi.hfile import protobuf as pb
from pyhudi.hfile.format import HFileFormatError


def test_varints_as_java_writes_them():
    assert pb.varint(300) == b"\xac\x02"
    assert pb.varint(-1) == b"\xff" * 9 + b"\x01"  # int64 -1: ten bytes
    assert pb.read_varint(pb.varint(-1), 0) == ((1 << 64) - 1, 10)


def test_fields_round_trip():
    message = pb.field_varint(1, 7) + pb.field_bytes(11, b"name") + pb.field_varint(12, 1)
    assert list(pb.fields(message)) == [(1, 7), (11, b"name"), (12, 1)]
    assert pb.read_delimited(b"xx" + pb.delimited(message), 2) == message


def test_malformed_messages_rejected():
    with pytest.raises(HFileFormatError, match="truncated"):
        list(pb.fields(b"\x08\x80"))
    with pytest.raises(HFileFormatError, match="wire type 5"):
        list(pb.fields(b"\x0d\x00\x00\x00\x00"))
