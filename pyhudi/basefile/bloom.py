"""Hudi's record-key bloom filters, bit-compatible with the Java implementation.

Two kinds, named by the footer key `hoodie_bloom_filter_type_code`:

* SIMPLE: one bit vector (Hadoop `BloomFilter` layout).
* DYNAMIC_V0 (Hudi's default): `HoodieDynamicBoundedBloomFilter`, a list of SIMPLE-format rows;
  a new row starts every `num_entries` keys until `max_entries` is covered, after which keys go
  round-robin over the existing rows.

Serialized form (Base64, standard alphabet, padded) of big-endian fields:
  int32 version (-1) | int32 nbHash | int8 hashType (1 = murmur) | int32 vectorSize | ...
  SIMPLE:  ceil(vectorSize/8) bytes of bits, bit i in byte i>>3 at mask 1<<(i&7)
  DYNAMIC: int32 nr | int32 currentNbRecord | int32 rows | rows x SIMPLE body (with its own header)

Bit positions of a key (UTF-8 bytes): h0 = 0, h(i+1) = murmur2(key, seed=h(i)),
position = |h(i+1) rem vectorSize| with Java's truncating remainder on signed 32-bit values.

Many keys at once (`add_all`, `might_contain_all`) are hashed by pyhudi.basefile.bloom_vector: in C
when the package's native library is built (about 0.25 s per million 36-byte UUID keys with the
default 30 hashes), else with numpy (about 1 s); without numpy a pure-Python loop does the same work
at about 40 microseconds per key.
"""
from __future__ import annotations

import base64
import math
import struct
from typing import Iterable

from pyhudi.basefile import bloom_vector as vec
from pyhudi.basefile.bloom_vector import MASK32, MURMUR_M, BloomFilterError, np

SIMPLE = "SIMPLE"
DYNAMIC_V0 = "DYNAMIC_V0"
TYPE_CODES = (SIMPLE, DYNAMIC_V0)

DEFAULT_NUM_ENTRIES = 60000        # hoodie.index.bloom.num_entries
DEFAULT_FPP = 1e-9                 # hoodie.index.bloom.fpp
DEFAULT_DYNAMIC_MAX_ENTRIES = 100000  # hoodie.bloom.index.filter.dynamic.max.entries

MURMUR_HASH = 1                    # Hadoop Hash.MURMUR_HASH (0 would be Jenkins)
_FILTER_VERSION = -1
_SMALL_BATCH = 64                  # below this, per-key Python hashing beats numpy's fixed costs


# ---------------------------------------------------------------- sizing and hashing


def bit_size(num_entries: int, fpp: float) -> int:
    """Number of bits for `num_entries` keys at false-positive rate `fpp` (BloomFilterUtils)."""
    return int(math.ceil(num_entries * (-math.log(fpp) / (math.log(2) ** 2))))


def num_hashes(bits: int, num_entries: int) -> int:
    return int(math.ceil(math.log(2) * bits / num_entries))


def _signed(h: int) -> int:
    return h - (1 << 32) if h & 0x80000000 else h


def _sbyte(b: int) -> int:
    return b - 256 if b > 127 else b


def _key_parts(data: bytes) -> tuple[list[int], int | None]:
    """Seed-independent parts of murmur2: mixed body words and the tail value (None: no tail).

    The tail follows Hudi/Hadoop: the last 1-3 bytes counted from the end, as sign-extended
    Java bytes, which differs from the reference C code for non-ASCII bytes and odd lengths."""
    n = len(data)
    nb = n >> 2
    ks = []
    for w in struct.unpack_from(f"<{nb}I", data) if nb else ():
        k = (w * MURMUR_M) & MASK32
        k ^= k >> 24
        ks.append((k * MURMUR_M) & MASK32)
    left = n - (nb << 2)
    if not left:
        return ks, None
    t = _sbyte(data[n - 1])
    if left >= 2:
        t ^= _sbyte(data[n - 2]) << 8
    if left >= 3:
        t ^= _sbyte(data[n - 3]) << 16
    return ks, t & MASK32


def _murmur_parts(ks: list[int], tail: int | None, length: int, seed: int) -> int:
    h = (seed ^ length) & MASK32
    for k in ks:
        h = ((h * MURMUR_M) & MASK32) ^ k
    if tail is not None:
        h = ((h ^ tail) * MURMUR_M) & MASK32
    h ^= h >> 13
    h = (h * MURMUR_M) & MASK32
    return h ^ (h >> 15)


def murmur_hash(data: bytes, seed: int = 0) -> int:
    """Hudi's MurmurHash (32-bit MurmurHash2 with Hadoop's tail), as a signed int like Java."""
    ks, tail = _key_parts(bytes(data))
    return _signed(_murmur_parts(ks, tail, len(data), seed & MASK32))


def hash_positions(key: str | bytes, nb_hash: int, vector_size: int) -> list[int]:
    """The `nb_hash` bit positions of one key."""
    data = vec.key_bytes(key)
    ks, tail = _key_parts(data)
    out, h = [], 0
    for _ in range(nb_hash):
        h = _murmur_parts(ks, tail, len(data), h)
        out.append(abs(_signed(h)) % vector_size)  # == |h rem v| with Java's truncating rem
    return out


# ---------------------------------------------------------------- one bit vector


class _BitVector:
    """One Hadoop-format bloom row: header fields plus LSB-first packed bits."""

    def __init__(self, vector_size: int, nb_hash: int, hash_type: int = MURMUR_HASH,
                 bits: bytes | None = None):
        if vector_size <= 0 or nb_hash <= 0:
            raise BloomFilterError(f"bad bloom sizing: vectorSize={vector_size} nbHash={nb_hash}")
        if hash_type != MURMUR_HASH:
            raise BloomFilterError(f"unsupported bloom hash type {hash_type} (only murmur = 1)")
        self.vector_size, self.nb_hash, self.hash_type = vector_size, nb_hash, hash_type
        nbytes = (vector_size + 7) // 8
        self.bits = bytearray(bits) if bits is not None else bytearray(nbytes)
        if len(self.bits) != nbytes:
            raise BloomFilterError(f"bit vector has {len(self.bits)} bytes, expected {nbytes}")

    def set_positions(self, positions: Iterable[int]) -> None:
        b = self.bits
        for p in positions:
            b[p >> 3] |= 1 << (p & 7)

    def set_positions_np(self, positions) -> None:
        flat = positions.ravel()
        if not len(flat):
            return
        unpacked = np.unpackbits(np.frombuffer(self.bits, dtype=np.uint8), bitorder="little")
        unpacked[flat] = 1
        self.bits = bytearray(np.packbits(unpacked, bitorder="little").tobytes())

    def set_keys(self, data, starts, lengths) -> None:
        self.bits = vec.set_bits(self.bits, data, starts, lengths, self.nb_hash, self.vector_size)

    def test(self, positions: Iterable[int]) -> bool:
        b = self.bits
        return all(b[p >> 3] >> (p & 7) & 1 for p in positions)

    def set_bits(self) -> list[int]:
        """Indexes of the set bits (for tests and diagnostics)."""
        if np is not None:
            unpacked = np.unpackbits(np.frombuffer(self.bits, dtype=np.uint8), bitorder="little")
            return np.nonzero(unpacked[: self.vector_size])[0].tolist()
        return [i for i in range(self.vector_size) if self.bits[i >> 3] >> (i & 7) & 1]

    def header(self) -> bytes:
        return struct.pack(">iibi", _FILTER_VERSION, self.nb_hash, self.hash_type, self.vector_size)

    def to_bytes(self) -> bytes:
        return self.header() + bytes(self.bits)

    @classmethod
    def read(cls, buf: bytes, pos: int) -> tuple["_BitVector", int]:
        if len(buf) - pos < 13:
            raise BloomFilterError("bloom filter truncated in its header")
        version, nb_hash, hash_type, vector_size = struct.unpack_from(">iibi", buf, pos)
        if version != _FILTER_VERSION:
            raise BloomFilterError(f"unsupported bloom filter version {version} (expected -1)")
        pos += 13
        nbytes = (vector_size + 7) // 8
        if len(buf) - pos < nbytes:
            raise BloomFilterError("bloom filter truncated in its bit vector")
        return cls(vector_size, nb_hash, hash_type, buf[pos: pos + nbytes]), pos + nbytes


# ---------------------------------------------------------------- public filters


class BloomFilter:
    """Common API: add / add_all / might_contain / might_contain_all / serialize."""

    type_code: str
    vector_size: int
    nb_hash: int

    def add(self, key: str | bytes) -> None:
        self.add_all([key])

    def add_all(self, keys) -> None:
        """Add keys (str/bytes sequence or pyarrow string array) in order; order matters for
        DYNAMIC_V0 once a row fills up."""
        if not hasattr(keys, "__len__"):
            keys = list(keys)
        if np is None or (vec.NATIVE is None and len(keys) < _SMALL_BATCH):  # numpy unpacks the bits: ~3 ms
            keys = keys.to_pylist() if hasattr(keys, "to_pylist") else keys
            for first, n, run_row in self._assign_rows(len(keys)):
                for i in range(n):
                    pos = hash_positions(keys[first + i], self.nb_hash, self.vector_size)
                    self._rows()[self._row_of(run_row, i)].set_positions(pos)
            return
        for data, starts, lengths in vec.batches(keys):
            for first, n, run_row in self._assign_rows(len(starts)):
                rows, s, ln = self._rows(), starts[first: first + n], lengths[first: first + n]
                if run_row >= 0:
                    rows[run_row].set_keys(data, s, ln)
                    continue
                chunk = vec.positions(data, s, ln, self.nb_hash, self.vector_size)  # round-robin: rare
                which = (-1 - run_row + np.arange(n)) % len(rows)
                for r, row in enumerate(rows):
                    row.set_positions_np(chunk[which == r])

    def might_contain(self, key: str | bytes) -> bool:
        pos = hash_positions(key, self.nb_hash, self.vector_size)
        return any(row.test(pos) for row in self._rows())

    def might_contain_all(self, keys) -> list[bool]:
        """Membership for many keys at once (vectorized when numpy is available)."""
        if np is None:
            keys = keys.to_pylist() if hasattr(keys, "to_pylist") else keys
            return [self.might_contain(k) for k in keys]
        result = []
        for data, starts, lengths in vec.batches(keys):
            hit = np.zeros(len(starts), dtype=bool)
            for row in self._rows():
                vec.test_bits(row.bits, data, starts, lengths, self.nb_hash, self.vector_size, hit)
            result.extend(hit.tolist())
        return result

    def serialize(self) -> str:
        """The Base64 text Hudi stores in Parquet footers and the metadata table."""
        return base64.b64encode(self.to_bytes()).decode("ascii")

    def to_bytes(self) -> bytes:
        raise NotImplementedError

    def _rows(self) -> list[_BitVector]:
        raise NotImplementedError

    def _assign_rows(self, count: int) -> list[tuple[int, int, int]]:
        """(first key, key count, row) runs for the next `count` keys; a negative row -1-s
        means round-robin: key i of the run goes to row (s + i) % rows."""
        return [(0, count, 0)] if count else []

    def _row_of(self, run_row: int, i: int) -> int:
        return run_row if run_row >= 0 else (-1 - run_row + i) % len(self._rows())


class SimpleBloomFilter(BloomFilter):
    type_code = SIMPLE

    def __init__(self, num_entries: int = DEFAULT_NUM_ENTRIES, fpp: float = DEFAULT_FPP, *,
                 _vector: _BitVector | None = None):
        if _vector is None:
            bits = bit_size(num_entries, fpp)
            _vector = _BitVector(bits, num_hashes(bits, num_entries))
        self._vec = _vector
        self.vector_size, self.nb_hash = _vector.vector_size, _vector.nb_hash

    def to_bytes(self) -> bytes:
        return self._vec.to_bytes()

    def _rows(self) -> list[_BitVector]:
        return [self._vec]

    @classmethod
    def from_bytes(cls, raw: bytes) -> "SimpleBloomFilter":
        vec, end = _BitVector.read(raw, 0)
        if end != len(raw):
            raise BloomFilterError(f"{len(raw) - end} trailing bytes after a SIMPLE bloom filter")
        return cls(_vector=vec)


class DynamicBloomFilter(BloomFilter):
    """HoodieDynamicBoundedBloomFilter (type code DYNAMIC_V0)."""

    type_code = DYNAMIC_V0

    def __init__(self, num_entries: int = DEFAULT_NUM_ENTRIES, fpp: float = DEFAULT_FPP,
                 max_entries: int = DEFAULT_DYNAMIC_MAX_ENTRIES):
        bits = bit_size(num_entries, fpp)
        self.vector_size, self.nb_hash = bits, num_hashes(bits, num_entries)
        self.nr = num_entries             # keys per row
        self.max_entries = max_entries    # not serialized (Java forgets it too, see from_bytes)
        self.current_nb_record = 0
        self.rows = [_BitVector(self.vector_size, self.nb_hash)]
        # Java's transient state: once the bound is reached keys go round-robin over the rows.
        self._reached_max = False
        self._cur_index = 0

    def _assign_rows(self, count: int) -> list[tuple[int, int, int]]:
        """Advance Java's row-selection state machine (InternalDynamicBloomFilter) by `count` keys."""
        runs, done = [], 0
        while done < count:
            if self._reached_max:
                runs.append((done, count - done, -1 - self._cur_index))
                self._cur_index += count - done
                self.current_nb_record += count - done
                break
            if self.current_nb_record >= self.nr:
                if len(self.rows) * self.nr < self.max_entries:
                    self.rows.append(_BitVector(self.vector_size, self.nb_hash))
                    self.current_nb_record = 0
                else:
                    self._reached_max = True  # this key goes to row 0 without advancing the index
                    runs.append((done, 1, 0))
                    self.current_nb_record += 1
                    done += 1
                continue
            take = min(count - done, self.nr - self.current_nb_record)
            runs.append((done, take, len(self.rows) - 1))
            self.current_nb_record += take
            done += take
        return runs

    def to_bytes(self) -> bytes:
        head = struct.pack(">iibiiii", _FILTER_VERSION, self.nb_hash, MURMUR_HASH, self.vector_size,
                           self.nr, self.current_nb_record, len(self.rows))
        return head + b"".join(r.to_bytes() for r in self.rows)

    def _rows(self) -> list[_BitVector]:
        return self.rows

    @classmethod
    def from_bytes(cls, raw: bytes, max_entries: int = DEFAULT_DYNAMIC_MAX_ENTRIES) -> "DynamicBloomFilter":
        if len(raw) < 25:
            raise BloomFilterError("DYNAMIC_V0 bloom filter truncated in its header")
        version, nb_hash, hash_type, vector_size, nr, current, nrows = struct.unpack_from(">iibiiii", raw, 0)
        if version != _FILTER_VERSION or hash_type != MURMUR_HASH:
            raise BloomFilterError(f"unsupported DYNAMIC_V0 filter (version {version}, hash type {hash_type})")
        if nrows < 1 or nr < 1:
            raise BloomFilterError(f"bad DYNAMIC_V0 filter: {nrows} rows of {nr} entries")
        self = cls.__new__(cls)
        self.vector_size, self.nb_hash, self.nr = vector_size, nb_hash, nr
        self.max_entries, self.current_nb_record = max_entries, current
        self._reached_max, self._cur_index = False, 0
        self.rows, pos = [], 25
        for _ in range(nrows):
            row, pos = _BitVector.read(raw, pos)
            self.rows.append(row)
        if pos != len(raw):
            raise BloomFilterError(f"{len(raw) - pos} trailing bytes after a DYNAMIC_V0 bloom filter")
        return self


def create_bloom_filter(type_code: str = DYNAMIC_V0, num_entries: int = DEFAULT_NUM_ENTRIES,
                        fpp: float = DEFAULT_FPP,
                        max_entries: int = DEFAULT_DYNAMIC_MAX_ENTRIES) -> BloomFilter:
    """A new empty filter as Hudi's writers configure it."""
    if type_code == SIMPLE:
        return SimpleBloomFilter(num_entries, fpp)
    if type_code == DYNAMIC_V0:
        return DynamicBloomFilter(num_entries, fpp, max_entries)
    raise BloomFilterError(f"unknown bloom filter type code {type_code!r}; valid: {', '.join(TYPE_CODES)}")


def parse_bloom_filter(serialized: str | bytes, type_code: str | None = None) -> BloomFilter:
    """Parse the Base64 text of a footer/metadata bloom filter.

    `type_code` is the `hoodie_bloom_filter_type_code` value; files written before type codes
    existed have none and hold a SIMPLE filter."""
    if isinstance(serialized, str):
        serialized = serialized.encode("ascii")
    try:
        raw = base64.b64decode(serialized, validate=True)
    except ValueError as e:
        raise BloomFilterError(f"bloom filter is not valid Base64: {e}") from None
    code = type_code or SIMPLE
    if code == SIMPLE:
        return SimpleBloomFilter.from_bytes(raw)
    if code.startswith("DYNAMIC"):
        return DynamicBloomFilter.from_bytes(raw)
    raise BloomFilterError(f"unknown bloom filter type code {type_code!r}; valid: {', '.join(TYPE_CODES)}")
