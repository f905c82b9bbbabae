"""The trailer and file-info protobuf messages."""
from __future__ import annotations

import dataclasses

import pytest

from pyhudi.hfile.format import HUDI_COMPARATOR, TRAILER_SIZE, HFileFormatError
from pyhudi.hfile.trailer import Trailer, file_info_bytes, parse_file_info, parse_trailer, trailer_bytes

TRAILER = Trailer(file_info_offset=900, load_on_open_offset=800, uncompressed_data_index_size=70,
                  total_uncompressed_bytes=5000, data_index_count=3, meta_index_count=1, entry_count=42,
                  data_index_levels=1, first_data_block_offset=-1, last_data_block_offset=-1,
                  comparator=HUDI_COMPARATOR, codec="GZ", major_version=3, minor_version=3)


def test_trailer_round_trip():
    data = trailer_bytes(TRAILER)
    assert len(data) == TRAILER_SIZE
    assert parse_trailer(b"blocks" + data) == TRAILER


def test_trailer_limits():
    with pytest.raises(ValueError, match="does not fit"):
        trailer_bytes(dataclasses.replace(TRAILER, comparator="c" * TRAILER_SIZE))
    with pytest.raises(HFileFormatError, match="major version 2"):
        parse_trailer(trailer_bytes(dataclasses.replace(TRAILER, major_version=2)))
    with pytest.raises(HFileFormatError, match="not an HFile"):
        parse_trailer(bytes(100))


def test_file_info_round_trip_in_key_order():
    info = {b"schema": b"{}", b"hfile.LASTKEY": b"\x00\x01k", b"empty": b""}
    payload = file_info_bytes(info)
    assert payload.startswith(b"PBUF")
    assert list(parse_file_info(payload).items()) == sorted(info.items())
