"""Hadoop WritableUtils vlongs."""
from __future__ import annotations

import pytest

from pyhudi.hfile.varint import read_vlong, vint_size, write_vlong


@pytest.mark.parametrize("value", [0, 1, -1, 127, -112, -113, 128, 131, 255, 256, -129, 2**40, -2**40,
                                   2**63 - 1, -2**63])
def test_hadoop_vlong_round_trip(value):
    encoded = write_vlong(value)
    assert read_vlong(encoded, 0) == (value, len(encoded))
    if value >= 0:
        assert vint_size(value) == len(encoded)


def test_vlong_matches_bytes_seen_in_fixtures():
    assert write_vlong(131) == bytes.fromhex("8f83")  # key length of the large-key fixtures
