"""pyhudi's log-file reader (pyhudi.log: framing, Avro and delete contents, and the HFiles inside
metadata-table blocks) on fuzzed real log files.

Each case: a fixture log truncated, bit-flipped, or with one length field (block length, header
and footer counts and value lengths, content length, trailing total length, Avro record count and
lengths, delete payload length, and the string lengths and array counts inside Avro records and
delete payloads) overwritten. The read must end, within 5 s, in either a
LogFormatError/HFileFormatError naming the file and an offset, or blocks that pass
`oracle.check_log_blocks`. This reader never skips: any damage to the framing is an error (the
writer side rewrites what it reads and must not drop records), so a read that succeeds must also
account for every byte.

Not detectable by the format (log blocks carry no checksum): a bit flipped inside a header value,
an Avro field value or a delete key, or a wrong length inside an Avro record (overwritten with the
enclosing lengths fixed up, so the framing stays intact), can give a block that decodes to other
values; the oracle allows that for the touched block only. The HFile inside a metadata-table block
is the exception: it is checksummed (v8) or gzip-protected (v9), see test_fuzz_hfile.py.
"""
from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pyhudi.errors import HudiError
from pyhudi.hfile.reader import read_hfile
from pyhudi.log.block import BlockType, LogBlock
from pyhudi.log.framing import read_blocks
from tests.fuzzing import corpus
from tests.fuzzing.mutations import fuzz_settings, log_blocks, log_fields, mutations, time_limit
from tests.fuzzing.oracle import Inputs, check_log_blocks

NAMES = ["log-avro", "log-delete", "log-parquet", "log-three-blocks", "v8-avro-delete",
         "v9-avro-delete-rollback", "v8-mdt-files-hfile", "v9-mdt-record-index"]
FUZZ = fuzz_settings(150)


def view(b: LogBlock):
    """Everything the reader gives for a block, content decoded by type."""
    decoded = None
    if b.block_type in (BlockType.AVRO_DATA, BlockType.CDC_DATA):
        decoded = b.records()
    elif b.block_type == BlockType.DELETE:
        decoded = b.deletes()
    elif b.block_type == BlockType.HFILE_DATA:
        decoded = read_hfile(b.content, b.where())
    return int(b.block_type), b.header, b.footer, b.content, decoded


def read(data: bytes, source: str) -> list[tuple[int, tuple]]:
    with time_limit(5, f"reading {source}"):
        return [(b.offset, view(b)) for b in read_blocks(data, source)]


@pytest.fixture(scope="module")
def logs(fixture_tables) -> dict[str, tuple[bytes, list]]:
    out = Inputs()
    for name, data in corpus.log_inputs(fixture_tables):
        views = dict(read(data, name))
        out[name] = data, [(start, end, views[start]) for start, end in log_blocks(data)]
    assert sorted(out) == sorted(NAMES)
    return out


def test_corpus_covers_every_block_type(logs):
    types = {view[0] for _, blocks in logs.values() for _, _, view in blocks}
    assert types == {BlockType.COMMAND, BlockType.DELETE, BlockType.AVRO_DATA, BlockType.HFILE_DATA,
                     BlockType.PARQUET_DATA}


@pytest.mark.parametrize("name", NAMES)
@FUZZ
@given(draw=st.data())
def test_fuzzed_log_is_read_exactly_or_fails_clearly(logs, name, draw):
    data, original = logs[name]
    m = draw.draw(mutations(data, log_fields(data)), label="mutation")
    mutated = m.apply(data)
    source = f"{name}.fuzzed"
    try:
        got = read(mutated, source)
    except HudiError as e:
        assert source in str(e) and "offset" in str(e), f"{m.describe()}: unclear error {e}"
        return
    check_log_blocks(original, got, m, size=len(mutated))
