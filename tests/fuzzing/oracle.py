"""What a reader may make of a mutated file, shared by the Python and the Java fuzz tests.

Log files carry no checksum: a flipped bit inside a block can give another block that still
decodes (a different header value, an Avro string with another character, a different number),
and nothing in the format can tell. So for logs the oracle is per block, by offset: a block the
mutation did not touch must come back exactly as in the original; a touched block may come back
changed (bit flips only), be skipped as corrupt (the connector, as Hudi does) or fail the read with
a corruption error; no block may appear that the original does not have at that offset.
"""
from __future__ import annotations

from typing import Any

from tests.fuzzing.mutations import Mutation, overlaps


def check_log_blocks(original: list[tuple[int, int, Any]], got: list[tuple[int, Any]], m: Mutation,
                     size: int | None = None) -> None:
    """`original`: (start, end, view) of each block of the intact file; `got`: (offset, view) of the
    blocks a reader returned for the mutated bytes without failing (offsets in the mutated bytes,
    which an overwritten varint of another width shifts). `size`: the mutated file's length
    when the reader must account for every byte (the strict Python reader), None when it may skip
    corrupt ranges (the connector)."""
    original = [(m.shift(start), m.shift(end), view) for start, end, view in original]  # in mutated bytes
    by_start = {start: (end, view) for start, end, view in original}
    touched = [(m.shift(a), m.shift(b)) for a, b in m.touched()]
    cut = m.offsets[0] if m.kind == "truncate" else None

    def damaged(start: int, end: int) -> bool:
        return overlaps(touched, start, end) or (cut is not None and end > cut)

    offsets = [offset for offset, _ in got]
    assert offsets == sorted(set(offsets)), f"blocks out of order: {offsets}"
    for offset, view in got:
        assert offset in by_start, f"{m.describe()}: a block at {offset}, where the original has none"
        end, expected = by_start[offset]
        assert cut is None or end <= cut, f"{m.describe()}: the block cut at {cut} was returned"
        if not damaged(offset, end):
            assert view == expected, f"{m.describe()}: the untouched block at {offset} changed"
        else:
            # no checksum: a flipped bit (or an Avro length inside a record) may give another valid
            # block; a wrong framing length may not
            assert not m.detectable, f"{m.describe()}: the block at {offset} was returned all the same"
    intact = [start for start, end, _ in original if not damaged(start, end)]
    missing = sorted(set(intact) - set(offsets))
    assert not missing, f"{m.describe()}: untouched blocks at {missing} were not returned"
    if size is not None:  # no skipping: the blocks must cover the file exactly
        ends = [by_start[offset][0] for offset in offsets]
        assert offsets == [0, *ends][:len(offsets)] and (ends[-1] if ends else 0) == size, \
            f"{m.describe()}: the blocks returned do not cover the file"


class Inputs(dict):
    """Fixture files by name, with a short repr: hypothesis prints the arguments of a failing case."""

    def __repr__(self) -> str:
        return f"<{len(self)} fuzz inputs: {', '.join(self)}>"


