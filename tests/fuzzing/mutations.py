"""Mutations of real fixture files for the fuzz tests, shared by the Python and the Java fuzz tests.

Three kinds, each drawn by hypothesis:

* truncation: the file cut at any offset;
* bit flips: 1-8 random bits inverted;
* length-field overwrites: one length/count/offset field of the format (found by walking the
  file's own layout, see `log_fields`, `hfile_fields`, `avro_container_fields`) replaced by a
  random, huge or negative value. Fixed-width fields are overwritten in place; varints (Avro,
  protobuf) are re-encoded in place, so the bytes after them shift. Two kinds keep the layers
  around them intact, so that the decoder of the field itself must catch the value: lengths
  inside an Avro datum (the enclosing record, content and block lengths are fixed up) and HFile
  index entries and cell lengths (the block's checksums are recomputed).

A `Mutation` also says which byte ranges of the original it touched, so an oracle can tell blocks it
left alone from blocks it changed.
"""
from __future__ import annotations

import contextlib
import json
import os
import signal
import struct
from dataclasses import dataclass

import fastavro
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

from pyhudi.avro.binary import read_varint, varint, zigzag
from pyhudi.hfile.block import checksums


def fuzz_settings(examples: int) -> settings:
    """Deterministic cases for CI. PYHUDI_FUZZ_EXPLORE=<k> instead runs k times as many random
    ones (a new draw each run), to look for what the fixed set misses."""
    explore = int(os.environ.get("PYHUDI_FUZZ_EXPLORE", "0"))
    return settings(max_examples=examples * max(explore, 1), deadline=None, derandomize=not explore,
                    database=None, suppress_health_check=list(HealthCheck))


# --------------------------------------------------------------------------------------- fields


@dataclass(frozen=True)
class Field:
    """A length-like field: `width` bytes at `offset`; `enc` is ">q", ">i" (fixed, big-endian),
    "zigzag" (Avro long) or "varint" (protobuf, unsigned). `scope` is the byte range whose meaning
    the field governs (the block it frames), for the oracle. `reframe`: an HFile block (start,
    end) whose CRC32C checksums are recomputed after the overwrite, so that the reader's own
    checks of the field, not the checksum, must catch it. `framing`: False for the lengths and
    counts inside an Avro datum, where another value can misalign the datum into one that still
    decodes (nothing else checks them), True for fields a wrong value of which no reader may accept.
    `adjust`: (offset, encoding) of the lengths enclosing an Avro datum (record length, content and
    block lengths; a container's block size), moved by the bytes a re-encoded varint gains or loses,
    so that the framing stays intact and the datum's decoder meets the wrong value."""
    offset: int
    width: int
    enc: str
    what: str
    scope: tuple[int, int]
    reframe: tuple[int, int] | None = None
    framing: bool = True
    adjust: tuple[tuple[int, str], ...] = ()


def _map_fields(data: bytes, pos: int, what: str, scope) -> tuple[list[Field], int]:
    fields = [Field(pos, 4, ">i", f"{what} count", scope)]
    (count,) = struct.unpack_from(">i", data, pos)
    pos += 4
    for _ in range(count):
        fields.append(Field(pos + 4, 4, ">i", f"{what} value length", scope))
        (length,) = struct.unpack_from(">i", data, pos + 4)
        pos += 8 + length
    return fields, pos


def log_blocks(data: bytes) -> list[tuple[int, int]]:
    """(start, end) of each block of an intact log file."""
    out, pos = [], 0
    while pos < len(data):
        (length,) = struct.unpack_from(">q", data, pos + 6)
        out.append((pos, pos + 14 + length))
        pos += 14 + length
    return out


def log_fields(data: bytes) -> list[Field]:
    """Framing length fields of every block (block length, map counts and value lengths, content
    length, trailing total length) and the length fields inside Avro and delete contents."""
    fields = []
    for start, end in log_blocks(data):
        scope = (start, end)
        fields.append(Field(start + 6, 8, ">q", "block length", scope))
        (block_type,) = struct.unpack_from(">i", data, start + 18)
        header, pos = _map_fields(data, start + 22, "header", scope)
        fields += header
        fields.append(Field(pos, 8, ">q", "content length", scope))
        (content_length,) = struct.unpack_from(">q", data, pos)
        content = pos + 8
        if block_type in (3, 6) and content_length >= 8:  # Avro/CDC: version, count, lengths
            fields.append(Field(content + 4, 4, ">i", "record count", scope))
            (count,) = struct.unpack_from(">i", data, content + 4)
            schema = fastavro.parse_schema(json.loads(_header_value(data, start + 22, 2)))
            frame = ((pos, ">q"), (start + 6, ">q"), (end - 8, ">q"))
            rec = content + 8
            for _ in range(count):
                fields.append(Field(rec, 4, ">i", "record length", scope))
                fields += avro_datum_fields(schema, data, rec + 4, scope, ((rec, ">i"), *frame))[0]
                rec += 4 + struct.unpack_from(">i", data, rec)[0]
        elif block_type == 1 and content_length >= 8:  # delete: version, payload length
            fields.append(Field(content + 4, 4, ">i", "delete payload length", scope))
            frame = ((content + 4, ">i"), (pos, ">q"), (start + 6, ">q"), (end - 8, ">q"))
            fields += avro_datum_fields(DELETE_LIST, data, content + 8, scope, frame)[0]
        footer, pos = _map_fields(data, content + content_length, "footer", scope)
        fields += footer
        fields.append(Field(end - 8, 8, ">q", "total length", scope))
    return fields


def _header_value(data: bytes, pos: int, key: int) -> str:
    """The value of `key` in the header map at pos."""
    (count,) = struct.unpack_from(">i", data, pos)
    pos += 4
    for _ in range(count):
        k, length = struct.unpack_from(">ii", data, pos)
        if k == key:
            return data[pos + 8:pos + 8 + length].decode()
        pos += 8 + length
    raise KeyError(key)


def _wrapper(name: str, value_type) -> dict:
    return {"type": "record", "name": name, "fields": [{"name": "value", "type": value_type}]}


# HoodieDeleteRecordList as Hudi 1.0 writes it (docs/format.md §2.4), to find the lengths in delete payloads
DELETE_LIST = fastavro.parse_schema({"type": "record", "name": "DeleteList", "fields": [
    {"name": "deleteRecordList", "type": {"type": "array", "items": {"type": "record", "name": "Delete", "fields": [
        {"name": "recordKey", "type": ["null", "string"]},
        {"name": "partitionPath", "type": ["null", "string"]},
        {"name": "orderingVal", "type": ["null"] + [_wrapper(f"W{i}", t) for i, t in enumerate(
            ["boolean", "int", "long", "float", "double", "bytes", "string", "int", "bytes", "long", "long"])]}]}}}]})


def avro_datum_fields(parsed: dict, data: bytes, pos: int, scope, adjust=()) -> tuple[list[Field], int]:
    """String/bytes lengths, array/map counts and map key lengths of the Avro datum of `parsed`
    (a fastavro-parsed schema) at pos, and where the datum ends; `adjust`: see Field."""
    named = parsed.get("__named_schemas", {})
    fields: list[Field] = []

    def zz(pos: int, what: str | None) -> tuple[int, int]:
        raw, after = read_varint(data, pos)
        if what:
            fields.append(Field(pos, after - pos, "zigzag", what, scope, framing=False, adjust=tuple(adjust)))
        return (raw >> 1) ^ -(raw & 1), after

    def walk(s, pos: int) -> int:
        s = named.get(s, s) if isinstance(s, str) else s
        if isinstance(s, list):
            branch, pos = zz(pos, None)
            return walk(s[branch], pos)
        t = s if isinstance(s, str) else s["type"]
        if not isinstance(t, str):  # {"type": {...}}
            return walk(t, pos)
        fixed = {"null": 0, "boolean": 1, "float": 4, "double": 8}
        if t in fixed:
            return pos + fixed[t]
        if t in ("int", "long", "enum"):
            return zz(pos, None)[1]
        if t in ("bytes", "string"):
            n, pos = zz(pos, f"avro {t} length")
            return pos + n
        if t == "fixed":
            return pos + s["size"]
        if t == "record":
            for f in s["fields"]:
                pos = walk(f["type"], pos)
            return pos
        while True:  # array or map blocks
            n, pos = zz(pos, f"avro {t} count")
            if n == 0:
                return pos
            if n < 0:
                n = -n
                _, pos = zz(pos, f"avro {t} block size")
            for _ in range(n):
                if t == "map":
                    k, pos = zz(pos, "avro map key length")
                    pos += k
                pos = walk(s["items"] if t == "array" else s["values"], pos)

    return fields, walk(parsed, pos)


HFILE_TRAILER = 4096
_HFILE_HEADER = struct.Struct(">8siiqbii")


def hfile_blocks(data: bytes) -> list[tuple[int, int]]:
    """(start, end) of each block before the trailer of an intact HFile."""
    out, pos, stop = [], 0, len(data) - HFILE_TRAILER
    while pos < stop:
        size = _HFILE_HEADER.unpack_from(data, pos)[1]
        out.append((pos, pos + 33 + size))
        pos += 33 + size
    return out


def hfile_fields(data: bytes) -> list[Field]:
    """Size fields of every block header (on-disk size, uncompressed size, bytes per checksum,
    data+header size), the varint fields of the trailer protobuf and, in a file without
    compression, the entries of the root data index and the cell lengths of the first data block
    (re-checksummed)."""
    fields = []
    blocks = hfile_blocks(data)
    for start, end in blocks:
        for off, what in ((8, "on-disk size"), (12, "uncompressed size"), (25, "bytes per checksum"),
                          (29, "data+header size")):
            fields.append(Field(start + off, 4, ">i", what, (start, end)))
    trailer = len(data) - HFILE_TRAILER
    scope = (trailer, len(data))
    size, pos = read_varint(data, trailer + 8)
    end = pos + size
    codec = 1
    while pos < end:
        tag, value_at = read_varint(data, pos)
        if tag & 7 == 0:
            value, after = read_varint(data, value_at)
            codec = value if tag >> 3 == 12 else codec
            fields.append(Field(value_at, after - value_at, "varint", f"trailer field {tag >> 3}", scope))
            pos = after
        else:  # length-delimited (the comparator name)
            length, after = read_varint(data, value_at)
            fields.append(Field(value_at, after - value_at, "varint", f"trailer field {tag >> 3} length", scope))
            pos = after + length
    if codec == 2:  # NONE: payloads are plain, fields inside them can be overwritten and re-checksummed
        fields += _index_fields(data, blocks) + _cell_fields(data, blocks)
    return fields


def _payload(data: bytes, start: int) -> tuple[int, int]:
    """(start, end) of a block's payload (no compression)."""
    return start + 33, start + _HFILE_HEADER.unpack_from(data, start)[6]


def _index_fields(data: bytes, blocks: list[tuple[int, int]]) -> list[Field]:
    """Offset and on-disk size of each entry of the root data index (the first IDXROOT2 block)."""
    start, end = next(b for b in blocks if data[b[0]:b[0] + 8] == b"IDXROOT2")
    pos, stop = _payload(data, start)
    fields = []
    while pos + 13 <= stop:
        fields.append(Field(pos, 8, ">q", "root index entry offset", (start, end), (start, end)))
        fields.append(Field(pos + 8, 4, ">i", "root index entry size", (start, end), (start, end)))
        key_len = data[pos + 12]  # one-byte vlong for the short keys of these files
        if key_len > 127:
            break
        pos += 13 + key_len
    return fields


def _cell_fields(data: bytes, blocks: list[tuple[int, int]]) -> list[Field]:
    """Key and value lengths of the first cells of the first data block."""
    start, end = blocks[0]
    pos, stop = _payload(data, start)
    fields = []
    for _ in range(8):
        if pos + 8 > stop or data[start:start + 8] != b"DATABLK*":
            break
        key_len, value_len = struct.unpack_from(">ii", data, pos)
        fields.append(Field(pos, 4, ">i", "cell key length", (start, end), (start, end)))
        fields.append(Field(pos + 4, 4, ">i", "cell value length", (start, end), (start, end)))
        pos += 8 + key_len + value_len + 1  # memstore timestamp 0
    return fields


def avro_container_fields(data: bytes) -> list[Field]:
    """Avro object container file: the metadata map's block counts and key/value lengths, each
    data block's record count and byte size, and (null codec) the lengths inside its records."""
    fields, scope, meta = [], (0, len(data)), {}

    def zz(pos: int, what: str) -> tuple[int, int]:
        raw, after = read_varint(data, pos)
        fields.append(Field(pos, after - pos, "zigzag", what, scope))
        return (raw >> 1) ^ -(raw & 1), after

    pos = 4
    while True:
        count, pos = zz(pos, "metadata count")
        if count == 0:
            break
        if count < 0:
            _, pos = zz(pos, "metadata block size")
            count = -count
        for _ in range(count):
            length, pos = zz(pos, "metadata key length")
            key = data[pos:pos + length]
            length, pos = zz(pos + length, "metadata value length")
            meta[key] = data[pos:pos + length]
            pos += length
    pos += 16
    schema = fastavro.parse_schema(json.loads(meta[b"avro.schema"]))
    while pos < len(data):
        records, pos = zz(pos, "block record count")
        size_at = pos
        size, pos = zz(pos, "block size")
        if meta.get(b"avro.codec", b"null") == b"null":
            at = pos
            for _ in range(records):
                datum, at = avro_datum_fields(schema, data, at, scope, ((size_at, "zigzag"),))
                fields += datum
        pos += size + 16
    return fields


# ------------------------------------------------------------------------------------ mutations


@dataclass(frozen=True)
class Mutation:
    kind: str  # "truncate" | "flip" | "overwrite"
    offsets: tuple[int, ...] = ()  # truncate: (cut,); flip: bit positions; overwrite: (field offset,)
    value: int = 0  # overwrite: the new field value
    field: Field | None = None

    def apply(self, data: bytes) -> bytes:
        if self.kind == "truncate":
            return data[:self.offsets[0]]
        if self.kind == "flip":
            out = bytearray(data)
            for bit in self.offsets:
                out[bit // 8] ^= 1 << (bit % 8)
            return bytes(out)
        f = self.field
        if f.enc in (">q", ">i"):
            out = data[:f.offset] + struct.pack(f.enc, self.value) + data[f.offset + f.width:]
            return _rechecksum(out, *f.reframe) if f.reframe else out
        encoded = zigzag(self.value) if f.enc == "zigzag" else varint(self.value)
        out = data[:f.offset] + encoded + data[f.offset + f.width:]
        delta = len(encoded) - f.width
        for at, enc in f.adjust if delta else ():
            at = at if at < f.offset else at + delta
            if enc == "zigzag":  # the last to adjust: its own width may change too
                raw, after = read_varint(out, at)
                out = out[:at] + zigzag(((raw >> 1) ^ -(raw & 1)) + delta) + out[after:]
            else:
                size = struct.calcsize(enc)
                out = out[:at] + struct.pack(enc, struct.unpack_from(enc, out, at)[0] + delta) + out[at + size:]
        return out

    def touched(self) -> list[tuple[int, int]]:
        """Byte ranges of the original whose content changed (truncation: none; it removes)."""
        if self.kind == "flip":
            return [(b // 8, b // 8 + 1) for b in self.offsets]
        if self.kind == "overwrite":
            return [(self.field.offset, self.field.offset + self.field.width)]
        return []

    def shift(self, pos: int) -> int:
        """Where byte `pos` of the original sits in the mutated bytes: a varint re-encoded in
        another width moves everything after it."""
        if self.kind != "overwrite" or pos <= self.field.offset or self.field.enc in (">q", ">i"):
            return pos
        encoded = zigzag(self.value) if self.field.enc == "zigzag" else varint(self.value)
        return pos + len(encoded) - self.field.width

    @property
    def detectable(self) -> bool:
        """A truncation, or a wrong value in a framing field: a read may not succeed with other results."""
        return self.kind == "truncate" or (self.kind == "overwrite" and self.field.framing)

    def describe(self) -> str:
        if self.kind == "overwrite":
            return f"overwrite {self.field.what} at {self.field.offset} with {self.value}"
        return f"{self.kind} {list(self.offsets)}"


def _wrap(value: int, enc: str) -> int:
    """The value as the field can hold it: two's complement of its width (protobuf: uint64)."""
    if enc == "varint":
        return value & ((1 << 64) - 1)
    bits = {">q": 64, ">i": 32, "zigzag": 64}[enc]
    return ((value + (1 << (bits - 1))) % (1 << bits)) - (1 << (bits - 1))


def interesting_values(original: int, enc: str) -> st.SearchStrategy[int]:
    """Values a length field could be corrupted to: near the original, small, huge, negative."""
    return st.one_of(
        st.sampled_from([0, 1, original - 1, original + 1, original * 2, original // 2]),
        st.integers(-64, 64).map(lambda d: original + d),
        st.integers(-2**8, 2**16),
        st.sampled_from([-1, -2**31, 2**31 - 1, 2**31, 2**32 - 1, 2**62, 2**63 - 1, -2**63, 2**30, 2**24]),
        st.integers(-2**63, 2**63 - 1),
    ).map(lambda v: _wrap(v, enc)).filter(lambda v: v != original)


def field_value(data: bytes, f: Field) -> int:
    if f.enc in (">q", ">i"):
        return struct.unpack_from(f.enc, data, f.offset)[0]
    raw, _ = read_varint(data, f.offset)
    return (raw >> 1) ^ -(raw & 1) if f.enc == "zigzag" else raw


@st.composite
def mutations(draw, data: bytes, fields: list[Field]) -> Mutation:
    """One mutation of `data`: a truncation, 1-8 bit flips, or an overwritten length field (its
    kind drawn first, so that the few trailer fields weigh as much as thousands of block sizes)."""
    kind = draw(st.sampled_from(["truncate", "flip", "flip", "overwrite"] if fields else ["truncate", "flip"]))
    if kind == "truncate":
        return Mutation("truncate", (draw(st.integers(0, len(data) - 1)),))
    if kind == "flip":
        n = draw(st.integers(1, 8))
        bits = draw(st.lists(st.integers(0, len(data) * 8 - 1), min_size=n, max_size=n, unique=True))
        return Mutation("flip", tuple(sorted(bits)))
    what = draw(st.sampled_from(sorted({f.what for f in fields})))
    f = draw(st.sampled_from([f for f in fields if f.what == what]))
    value = draw(interesting_values(field_value(data, f), f.enc))
    return Mutation("overwrite", (f.offset,), value, f)


def overlaps(ranges: list[tuple[int, int]], start: int, end: int) -> bool:
    return any(a < end and start < b for a, b in ranges)


# ------------------------------------------------------------------------------------ hang guard


class Hang(AssertionError):
    pass


@contextlib.contextmanager
def time_limit(seconds: int = 5, what: str = "decode"):
    """Fails with Hang if the body runs longer than `seconds` of wall-clock time (SIGALRM: main
    thread only, as pytest runs tests)."""
    def on_alarm(signum, frame):
        raise Hang(f"{what} ran longer than {seconds} s")

    previous = signal.signal(signal.SIGALRM, on_alarm)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


def _rechecksum(data: bytes, start: int, end: int) -> bytes:
    """The HFile with the CRC32C checksums of the block at start..end recomputed."""
    framed_end = start + _HFILE_HEADER.unpack_from(data, start)[6]
    return data[:framed_end] + checksums(data[start:framed_end]) + data[end:]
