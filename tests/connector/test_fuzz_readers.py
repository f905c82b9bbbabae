"""The connector's readers on fuzzed real files: io.hudimeta.log.LogFileReader with every block
decoder (Avro records and rows, deletes, Parquet rows, the HFile inside metadata-table blocks),
io.hudimeta.hfile.HFileReader (full scan, file info, seeks) and the instant-file decoder
(io.hudimeta.table.InstantContent, then CommitMetadata).

The mutations and the oracle are those of tests/fuzzing (see there for what the formats can
and cannot detect). Hypothesis draws batches of mutated files; the test helper
io.hudimeta.table.FuzzProbe (test jar) reads a whole batch in one py4j call, each file under a 5 s
limit, and answers per file with digests of what it decoded or the throwable it ended in.

Unlike pyhudi's, the connector's log reader skips a block whose framing is corrupt (no magic, a
length past the end, a trailing length that disagrees, fields that do not fill the block) and
resyncs on the next magic, as Hudi's HoodieLogFileReader does: such a block just goes missing.
A block whose framing is intact but whose content does not decode fails the read with a
LogFormatException naming the file and the block's offset.
"""
from __future__ import annotations

import hashlib
import json
import tempfile
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pyhudi.hfile.reader import parse_hfile
from tests.fuzzing import corpus
from tests.fuzzing.mutations import (
    Mutation,
    avro_container_fields,
    fuzz_settings,
    hfile_fields,
    log_blocks,
    log_fields,
    mutations,
)
from tests.fuzzing.oracle import Inputs, check_log_blocks

BATCH = 40
TIMEOUT_S = 5
# what one decode of a fixture (at most 300 KB) may allocate in all: a buffer sized from a corrupt
# length field (gigabytes, or an OutOfMemoryError) is far above it
MAX_ALLOCATED = 256 << 20
EMPTY_TREE = hashlib.sha256(b"2:{}").hexdigest()  # FuzzProbe's digest of the tree of an empty file


@pytest.fixture(scope="module")
def probe(spark):
    run = spark._jvm.io.hudimeta.table.FuzzProbe.probe

    def probe(kind: str, files: dict[str, bytes], rows: list[str] = ()) -> dict[str, dict]:
        with tempfile.TemporaryDirectory(prefix=f"fuzz-{kind}-") as tmp:
            for name, data in files.items():
                (Path(tmp) / name).write_bytes(data)
            lines = run(kind, tmp, "\n".join(rows), TIMEOUT_S)
        results = [json.loads(line) for line in lines.split("\n") if line]  # not splitlines: U+2028 is text
        return {r["file"]: r for r in results}

    return probe


def originals(probe, kind: str, inputs: list[tuple[str, bytes]], rows=lambda data: []) -> Inputs:
    out = Inputs()
    for name, data in inputs:
        (result,) = probe(kind, {name: data}, rows(data)).values()
        assert result.get("ok"), result
        out[name] = data, rows(data), result["result"]
    return out


def batch(draw, inputs: Inputs, fields) -> tuple[str, list]:
    name = draw.draw(st.sampled_from(sorted(inputs)), label="input")
    data = inputs[name][0]
    return name, [draw.draw(mutations(data, fields(data)), label=f"mutation {i}") for i in range(BATCH)]


def run_batch(probe, kind: str, inputs: Inputs, name: str, ms: list) -> list[tuple]:
    data, rows, _ = inputs[name]
    files = {f"{name}.case{i:03d}": m.apply(data) for i, m in enumerate(ms)}
    results = probe(kind, files, rows)
    for m, file in zip(ms, files):
        allocated = results[file]["allocated"]
        assert 0 <= allocated <= MAX_ALLOCATED, f"{m.describe()}: reading {file} allocated {allocated} bytes"
    return [(m, file, results[file]) for m, file in zip(ms, files)]


def check_error(m, file: str, r: dict, allow_unsupported: bool = False) -> None:
    """A clear error: a HudiException naming the file (or, for a well-formed value this reader does
    not support, such as another HFile codec, an UnsupportedOperationException naming it)."""
    assert r["error"] != "hang", f"{m.describe()}: {file} was still being read after {TIMEOUT_S} s"
    clear = r["hudi"] or (allow_unsupported and r["error"] == "java.lang.UnsupportedOperationException")
    assert clear and file in r["message"], f"{m.describe()}: {r['error']}: {r['message']}"


# ------------------------------------------------------------------------------------- logs


@pytest.fixture(scope="module")
def logs(probe, fixture_tables) -> Inputs:
    return originals(probe, "log", corpus.log_inputs(fixture_tables))


def _block_view(block: dict) -> dict:
    return {k: v for k, v in block.items() if k != "offset"}


@fuzz_settings(20)
@given(draw=st.data())
def test_fuzzed_logs(probe, logs, draw):
    name, ms = batch(draw, logs, log_fields)
    data, _, expected = logs[name]
    ends = dict(log_blocks(data))
    original = [(b["offset"], ends[b["offset"]], _block_view(b)) for b in expected]
    for m, file, r in run_batch(probe, "log", logs, name, ms):
        if not r.get("ok"):
            check_error(m, file, r)
            assert "offset" in r["message"], f"{m.describe()}: no offset in {r['message']}"
            continue
        check_log_blocks(original, [(b["offset"], _block_view(b)) for b in r["result"]], m)


# ------------------------------------------------------------------------------------- HFiles


def _seek_rows(data: bytes) -> list[str]:
    """Rows to seek: first, middle and last present, and absent ones."""
    rows = [r.decode() for r, _ in parse_hfile(data).cells]
    present = rows[:1] + rows[len(rows) // 2:len(rows) // 2 + 1] + rows[-1:]
    return present + ["", (rows[0] if rows else "a") + "\u0000"]


@pytest.fixture(scope="module")
def hfiles(probe, fixture_tables) -> Inputs:
    return originals(probe, "hfile", corpus.hfile_inputs(fixture_tables), _seek_rows)


@fuzz_settings(15)
@given(draw=st.data())
def test_fuzzed_hfiles(probe, hfiles, draw):
    name, ms = batch(draw, hfiles, hfile_fields)
    expected = hfiles[name][2]
    for m, file, r in run_batch(probe, "hfile", hfiles, name, ms):
        if not r.get("ok"):
            check_error(m, file, r, allow_unsupported=True)
            continue
        assert r["result"] == expected, f"{m.describe()}: {file} decoded without error to other cells"


# ------------------------------------------------------------------------------------- instants


@pytest.fixture(scope="module")
def instants(probe, fixture_tables) -> Inputs:
    return originals(probe, "instant", corpus.instant_inputs(fixture_tables))


def _container_fields(data: bytes):
    return avro_container_fields(data) if data[:4] == b"Obj\x01" else []


@fuzz_settings(15)
@given(draw=st.data())
def test_fuzzed_instants(probe, instants, draw):
    name, ms = batch(draw, instants, _container_fields)
    expected = instants[name][2]
    for m, file, r in run_batch(probe, "instant", instants, name, ms):
        if not r.get("ok"):
            check_error(m, file, r)
        elif m.detectable:  # the original value, or an empty file's
            want = expected["tree"] if m.offsets != (0,) else EMPTY_TREE
            assert r["result"]["tree"] == want, f"{m.describe()}: {file} decoded to another value"


# ------------------------------------------------------------------------------------- huge lengths


def test_huge_lengths_inside_avro_data_are_refused_before_allocation(probe, logs, instants):
    """Avro's decoder sizes a string, bytes value or array from the length it reads; a corrupt one
    of a gigabyte or two must fail the read (the framing around it kept intact), not be allocated."""
    for kind, inputs, fields in [("log", logs, log_fields), ("instant", instants, _container_fields)]:
        cases, files = [], {}
        for name, (data, _, _) in inputs.items():
            for f in [f for f in fields(data) if not f.framing][:4]:
                for value in (2**30, 2**31 - 9, 2**40):
                    m = Mutation("overwrite", (f.offset,), value, f)
                    files[f"{name}.{f.offset}.{value}"] = m.apply(data)
                    cases.append(m)
        assert len(files) >= 40
        results = probe(kind, files)
        for m, file in zip(cases, files):
            r = results[file]
            assert 0 <= r["allocated"] <= MAX_ALLOCATED, f"{m.describe()}: {file} allocated {r['allocated']} bytes"
            assert not r.get("ok"), f"{m.describe()}: {file} decoded"
            check_error(m, file, r)
