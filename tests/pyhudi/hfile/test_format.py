"""Layout constants and the writer's codec option."""
from __future__ import annotations

import pytest

from pyhudi.hfile.format import BLOCK_HEADER, CODEC_NAMES, CODECS, HEADER_SIZE, codec_name


def test_block_header_is_33_bytes():
    assert BLOCK_HEADER.size == HEADER_SIZE == 33


@pytest.mark.parametrize("option,name", [("gz", "GZ"), ("GZIP", "GZ"), ("none", "NONE"), (None, "NONE")])
def test_codec_names(option, name):
    assert codec_name(option) == name
    assert CODEC_NAMES[CODECS[name]] == name
