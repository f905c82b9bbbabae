"""Bloom-filter hashing of many keys at once: the bit positions of Hudi's filters (see
pyhudi.basefile.bloom) for a batch of keys, set into or tested against one bit vector.

Native when `python -m pyhudi.build` (or installing the package) compiled pyhudi/native/bloom.c: eight
keys at a time in C, several times faster than numpy, which does the same work in array passes (30 hashes
x the key's words, each a pass over the batch) when the library is not there."""
from __future__ import annotations

import ctypes
from pathlib import Path

from pyhudi.errors import HudiError

try:  # numpy is optional: pyarrow no longer requires it
    import numpy as np
except ImportError:  # pragma: no cover - exercised only on numpy-less installs
    np = None  # type: ignore[assignment]  # the optional module: users test `np is None` first

LIBRARY = Path(__file__).resolve().parent.parent / "native" / "libhudi_bloom.so"
BATCH = 1 << 17                  # keys hashed per pass (bounds temporary memory)
MURMUR_M = 0x5BD1E995           # Hadoop MurmurHash's multiplier
MASK32 = 0xFFFFFFFF
_MAX_NATIVE_HASHES = 64          # the C code's per-key position buffer


def _load():
    if np is None or not LIBRARY.exists():
        return None
    try:
        lib = ctypes.CDLL(str(LIBRARY))
    except OSError:  # built for another platform: numpy does it
        return None
    p, i64, i32 = ctypes.c_void_p, ctypes.c_int64, ctypes.c_int32
    lib.hudi_bloom_positions.argtypes = [p, p, p, i64, i32, i32, p]
    lib.hudi_bloom_set.argtypes = [p, p, p, i64, i32, i32, p]
    lib.hudi_bloom_test.argtypes = [p, p, p, i64, i32, i32, p, p]
    return lib


NATIVE = _load()


class BloomFilterError(HudiError, ValueError):
    pass


def key_bytes(key: str | bytes) -> bytes:
    if isinstance(key, str):
        key = key.encode("utf-8")
    elif key is None:
        raise BloomFilterError("record key must not be null")
    if not key:
        raise BloomFilterError("record key must not be empty (Hudi's hash rejects it)")
    return bytes(key)


def key_buffers(keys) -> tuple:
    """(data uint8, starts int64, lengths int64) for a sequence of keys or a pyarrow array."""
    try:
        import pyarrow as pa
        if isinstance(keys, (pa.Array, pa.ChunkedArray)):
            return _arrow_buffers(keys, pa)
    except ImportError:  # pragma: no cover
        pass
    encoded = [key_bytes(k) for k in keys]
    lengths = np.fromiter((len(e) for e in encoded), dtype=np.int64, count=len(encoded))
    starts = np.cumsum(lengths) - lengths
    return np.frombuffer(b"".join(encoded), dtype=np.uint8), starts, lengths


def _arrow_buffers(arr, pa) -> tuple:
    if isinstance(arr, pa.ChunkedArray):
        arr = arr.combine_chunks()
    if arr.null_count:
        raise BloomFilterError("record keys must not be null")
    arr = arr.cast(pa.large_binary())
    _, off_buf, data_buf = arr.buffers()
    offsets = np.frombuffer(off_buf, dtype=np.int64)[arr.offset: arr.offset + len(arr) + 1]
    data = np.frombuffer(data_buf, dtype=np.uint8) if data_buf is not None else np.zeros(0, np.uint8)
    lengths = np.diff(offsets)
    if len(lengths) and lengths.min() == 0:
        raise BloomFilterError("record key must not be empty (Hudi's hash rejects it)")
    return data, offsets[:-1].copy(), lengths


def batches(keys):
    """The keys as (data, starts, lengths) batches of at most BATCH keys."""
    data, starts, lengths = key_buffers(keys)
    for lo in range(0, len(starts), BATCH):
        yield data, np.ascontiguousarray(starts[lo: lo + BATCH]), np.ascontiguousarray(lengths[lo: lo + BATCH])


def _native(nb_hash: int):
    return NATIVE if NATIVE is not None and nb_hash <= _MAX_NATIVE_HASHES else None


def _ptr(a):
    return a.ctypes.data_as(ctypes.c_void_p)


def positions(data, starts, lengths, nb_hash: int, vector_size: int):
    """(n, nb_hash) int64 bit positions of the batch."""
    out = np.empty((len(starts), nb_hash), dtype=np.int64)
    lib = _native(nb_hash)
    if lib is not None:
        lib.hudi_bloom_positions(_ptr(data), _ptr(starts), _ptr(lengths), len(starts), nb_hash, vector_size, _ptr(out))
        return out
    nwords = lengths >> 2
    for nb in np.unique(nwords):  # keys grouped by word count: each group is one set of array passes
        sel = np.nonzero(nwords == nb)[0]
        out[sel] = _positions_group(data, starts[sel], lengths[sel], int(nb), nb_hash, vector_size)
    return out


def set_bits(bits: bytearray, data, starts, lengths, nb_hash: int, vector_size: int) -> bytearray:
    """`bits` (one LSB-first bit vector) with the batch's bits set: the same object when native."""
    lib = _native(nb_hash)
    if lib is not None:
        view = np.frombuffer(bits, dtype=np.uint8)
        lib.hudi_bloom_set(_ptr(data), _ptr(starts), _ptr(lengths), len(starts), nb_hash, vector_size, _ptr(view))
        return bits
    flat = positions(data, starts, lengths, nb_hash, vector_size).ravel()
    unpacked = np.unpackbits(np.frombuffer(bits, dtype=np.uint8), bitorder="little")
    unpacked[flat] = 1
    return bytearray(np.packbits(unpacked, bitorder="little").tobytes())


def test_bits(bits: bytes | bytearray, data, starts, lengths, nb_hash: int, vector_size: int, hit) -> None:
    """hit[k] |= whether every bit of key k is set in `bits` (hit: a bool array of the batch)."""
    lib = _native(nb_hash)
    if lib is not None:
        view = np.frombuffer(bits, dtype=np.uint8)  # read only: no copy of the bit vector
        lib.hudi_bloom_test(_ptr(data), _ptr(starts), _ptr(lengths), len(starts), nb_hash, vector_size, _ptr(view),
                            _ptr(hit.view(np.uint8)))
        return
    pos = positions(data, starts, lengths, nb_hash, vector_size)
    packed = np.frombuffer(bits, dtype=np.uint8)
    hit |= ((packed[pos >> 3] >> (pos & 7).astype(np.uint8)) & 1).all(axis=1).astype(bool)


def _positions_group(data, starts, lengths, nb, nb_hash, vector_size):
    """Positions of keys of `nb` body words: numpy's uint32 wraps exactly like Java's int."""
    m = np.uint32(MURMUR_M)

    def gather(idx):
        return data[idx].astype(np.uint32)

    ks = []
    for j in range(nb):  # mixed body words do not depend on the seed: compute once
        base = starts + 4 * j
        k = gather(base) | (gather(base + 1) << 8) | (gather(base + 2) << 16) | (gather(base + 3) << 24)
        k *= m
        k ^= k >> np.uint32(24)
        k *= m
        ks.append(k)
    left = lengths - 4 * nb
    sdata = data.view(np.int8)
    end = starts + lengths
    tail = np.zeros(len(starts), dtype=np.int64)
    for back, shift in ((1, 0), (2, 8), (3, 16)):
        has = left >= back
        if has.any():
            idx = np.where(has, end - back, 0)
            tail ^= np.where(has, sdata[idx].astype(np.int64) << shift, 0)
    tail = (tail & MASK32).astype(np.uint32)
    has_tail = left > 0
    all_tail, any_tail = bool(has_tail.all()), bool(has_tail.any())
    length = lengths.astype(np.uint32)
    h = np.zeros(len(starts), dtype=np.uint32)
    out = np.empty((len(starts), nb_hash), dtype=np.int64)
    for i in range(nb_hash):
        h ^= length
        for k in ks:
            h *= m
            h ^= k
        if all_tail:
            h ^= tail
            h *= m
        elif any_tail:
            np.copyto(h, (h ^ tail) * m, where=has_tail)
        h ^= h >> np.uint32(13)
        h *= m
        h ^= h >> np.uint32(15)
        out[:, i] = np.abs(h.view(np.int32).astype(np.int64)) % vector_size
    return out
