import struct

import pytest

from pyhudi.log.cursor import Cursor, LogFormatError
from pyhudi.log.framing import encode_map


def test_reads_stop_at_the_end():
    data = struct.pack(">iq", 7, -2) + b"tail"
    c = Cursor(data, 0, 12)
    assert (c.int32("a"), c.int64("b"), c.pos) == (7, -2, 12)
    with pytest.raises(LogFormatError, match="block truncated reading c at offset 12"):
        c.take(1, "c")
    with pytest.raises(LogFormatError, match="reading d"):
        Cursor(data, 0, len(data)).take(-1, "d")


def test_map_reads_what_framing_writes():
    entries = {0: "20250101", 2: "schéma"}
    raw = encode_map(entries)
    c = Cursor(raw, 0, len(raw))
    assert c.map("header") == entries and c.pos == len(raw)
    with pytest.raises(LogFormatError, match="header value"):
        Cursor(raw, 0, len(raw) - 1).map("header")
