"""pyhudi's instant-metadata decoder (pyhudi.table.instant_metadata.decode: Avro object container
files of layout 2 and plans, JSON commit metadata of layout 1) on fuzzed real instant files.

Each case: an instant file truncated, bit-flipped, or (Avro) with one length field overwritten:
of the container (metadata map counts, key and value lengths, the block's record count and byte
size) or inside the record (string lengths, array and map counts, map key lengths). Within 5 s
the decoder must either raise a CorruptFileError naming the file, or return a record (a dict).

Not detectable by the formats: neither has a checksum (Hudi writes the null codec; deflate has
none either), so a flipped bit inside a value, a JSON number or string, or even the embedded Avro
schema text can give another valid value; only a value is required then, and the same for a length
inside the record, which can misalign it into another record that fills the block. A truncation or
an overwritten container field is detectable (the sync marker must follow the block, which must
hold one record exactly, and JSON must be complete): a decode that succeeds must give exactly the
original value - or {} when nothing is left, as an empty
instant file is valid.
"""
from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pyhudi.errors import CorruptFileError
from pyhudi.table import instant_metadata as im
from tests.fuzzing import corpus
from tests.fuzzing.mutations import avro_container_fields, fuzz_settings, mutations, time_limit
from tests.fuzzing.oracle import Inputs

NAMES = ["v6-commit-json", "v8-deltacommit-avro", "v8-compaction-plan", "v8-indexing", "v9-replacecommit",
         "v9-clustering-plan", "v6-rollback", "v6-replacecommit-json"]


def fields(data: bytes):
    return avro_container_fields(data) if data[:4] == im.AVRO_MAGIC else []


def decode(data: bytes, source: str) -> dict:
    layout = 2 if data[:4] == im.AVRO_MAGIC else 1
    with time_limit(5, f"decoding {source}"):
        return im.decode(data, layout_version=layout, source=source)


@pytest.fixture(scope="module")
def instants(fixture_tables) -> dict[str, tuple[bytes, dict]]:
    out = Inputs({name: (data, decode(data, name)) for name, data in corpus.instant_inputs(fixture_tables)})
    assert sorted(out) == sorted(NAMES)
    return out


@pytest.mark.parametrize("name", NAMES)
@fuzz_settings(120)
@given(draw=st.data())
def test_fuzzed_instant_decodes_or_fails_clearly(instants, name, draw):
    data, expected = instants[name]
    m = draw.draw(mutations(data, fields(data)), label="mutation")
    source = f"{name}.fuzzed"
    try:
        got = decode(m.apply(data), source)
    except CorruptFileError as e:
        assert source in str(e), f"{m.describe()}: unclear error {e}"
        return
    assert isinstance(got, dict), f"{m.describe()}: decoded to a {type(got).__name__}"
    if m.detectable:  # cut to nothing is an empty instant file, which many states are
        assert got == (expected if m.offsets != (0,) else {}), f"{m.describe()}: decoded to another value"
