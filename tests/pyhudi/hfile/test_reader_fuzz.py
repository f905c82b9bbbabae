"""pyhudi's HFile reader (pyhudi.hfile: `parse_hfile`, which walks every block, and `lookup`,
which seeks through the index) on fuzzed real HFiles.

Each case: a fixture HFile truncated, bit-flipped, or with one length field overwritten (block
header sizes, trailer fields; in the uncompressed file also root index entries and cell lengths,
with the block's checksums recomputed so the reader's own checks must catch them). Within 5 s
the reader must either fail with an HFileFormatError naming the file, or return exactly what it
returns for the original: every cell, the file info and meta blocks, and the looked-up cells.

Why exactly: every byte that decides a cell is protected. HBase-written files (v8 metadata
tables, the HF-* test files) carry a CRC32C per 16 KiB of every block, header included. Hudi's
native writer (v9) writes no checksums, but zero placeholders where they go, which the reader
checks, and its blocks are gzip members, whose CRC32 and length cover the payload. The trailer
has no checksum; its fields are cross-checked instead (offsets must land on blocks of the
right type, the root index must hold exactly the counted entries, the cells must add up to the
entry count). What is left undetectable changes no cell: a block header's previous-block
offset, the gzip header's time and OS bytes in files without checksums, the trailer's padding,
comparator name and unused fields. A native file written without compression would have no
protection for its payload at all; no writer in the fixtures makes one.
"""
from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pyhudi.hfile.format import HFileFormatError
from pyhudi.hfile.reader import lookup, parse_hfile
from tests.fuzzing import corpus
from tests.fuzzing.mutations import fuzz_settings, hfile_fields, mutations, time_limit
from tests.fuzzing.oracle import Inputs

NAMES = ["hf-no-entry", "hf-non-unique", "hf-deep-index", "hf-none-codec", "v8-mdt-record-index",
         "v9-mdt-record-index", "v9-mdt-files"]
LARGE = ["hf-deep-index", "hf-none-codec"]  # 250-300 KB: fewer cases


def lookup_rows(cells: list[tuple[bytes, bytes]]) -> list[bytes]:
    """Rows to look up: first, middle and last present, and absent ones on either side."""
    rows = [r for r, _ in cells]
    return sorted({*rows[:1], *rows[len(rows) // 2:len(rows) // 2 + 1], *rows[-1:], b"", b"\xff\xff",
                   *(r + b"\x00" for r in rows[:1])})


def decode(data: bytes, rows: list[bytes], source: str) -> tuple:
    """Everything both read paths give."""
    with time_limit(5, f"reading {source}"):
        whole = parse_hfile(data, source)
        found = lookup(lambda offset, length: data[offset:offset + length], len(data), rows, source)
    return whole.cells, whole.file_info, whole.meta_blocks, found.cells


@pytest.fixture(scope="module")
def hfiles(fixture_tables) -> dict[str, tuple[bytes, list[bytes], tuple]]:
    out = Inputs()
    for name, data in corpus.hfile_inputs(fixture_tables):
        rows = lookup_rows(parse_hfile(data).cells)
        out[name] = data, rows, decode(data, rows, name)
    assert sorted(out) == sorted(NAMES)
    return out


def test_corpus_covers_both_writers(hfiles):
    kinds = {(parse_hfile(data).blocks[0].checksum_type, parse_hfile(data).trailer.codec)
             for data, _, _ in hfiles.values()}
    assert kinds == {(2, "GZ"), (2, "NONE"), (0, "GZ")}  # HBase CRC32C; Hudi-native without checksums


def _fuzz(name: str, hfiles, draw) -> None:
    data, rows, expected = hfiles[name]
    m = draw.draw(mutations(data, hfile_fields(data)), label="mutation")
    source = f"{name}.fuzzed"
    try:
        got = decode(m.apply(data), rows, source)
    except HFileFormatError as e:
        assert source in str(e), f"{m.describe()}: unclear error {e}"
        return
    assert got == expected, f"{m.describe()}: decoded without error to other cells"


@pytest.mark.parametrize("name", [n for n in NAMES if n not in LARGE])
@fuzz_settings(100)
@given(draw=st.data())
def test_fuzzed_hfile_is_read_exactly_or_fails_clearly(hfiles, name, draw):
    _fuzz(name, hfiles, draw)


@pytest.mark.parametrize("name", LARGE)
@fuzz_settings(60)
@given(draw=st.data())
def test_fuzzed_large_hfile_is_read_exactly_or_fails_clearly(hfiles, name, draw):
    _fuzz(name, hfiles, draw)
