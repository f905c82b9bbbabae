"""XXHash64 (XXH64), the hash behind the metadata table's 64-bit hash ids (docs/format.md §7.5)."""
from __future__ import annotations

import struct

_P1 = 0x9E3779B185EBCA87
_P2 = 0xC2B2AE3D27D4EB4F
_P3 = 0x165667B19E3779F9
_P4 = 0x85EBCA77C2B2AE63
_P5 = 0x27D4EB2F165667C5
M64 = (1 << 64) - 1


def _rotl(x: int, r: int) -> int:
    return ((x << r) | (x >> (64 - r))) & M64


def _round(acc: int, lane: int) -> int:
    acc = (acc + lane * _P2) & M64
    return (_rotl(acc, 31) * _P1) & M64


def _merge_round(acc: int, val: int) -> int:
    acc ^= _round(0, val)
    return (acc * _P1 + _P4) & M64


def _stripes(data: bytes, seed: int) -> tuple[int, int]:
    """The accumulator after the 32-byte stripes, and how many bytes they consumed."""
    n, i = len(data), 0
    if n < 32:
        return (seed + _P5) & M64, 0
    v1, v2, v3, v4 = (seed + _P1 + _P2) & M64, (seed + _P2) & M64, seed, (seed - _P1) & M64
    while i + 32 <= n:
        a, b, c, d = struct.unpack_from("<4Q", data, i)
        v1, v2, v3, v4 = _round(v1, a), _round(v2, b), _round(v3, c), _round(v4, d)
        i += 32
    h = (_rotl(v1, 1) + _rotl(v2, 7) + _rotl(v3, 12) + _rotl(v4, 18)) & M64
    for v in (v1, v2, v3, v4):
        h = _merge_round(h, v)
    return h, i


def xxhash64(data: bytes, seed: int = 0) -> int:
    """XXH64 of `data` (unsigned 64-bit result); `seed` is taken modulo 2**64."""
    n = len(data)
    h, i = _stripes(data, seed & M64)
    h = (h + n) & M64
    while i + 8 <= n:
        h ^= _round(0, struct.unpack_from("<Q", data, i)[0])
        h = (_rotl(h, 27) * _P1 + _P4) & M64
        i += 8
    if i + 4 <= n:
        h ^= (struct.unpack_from("<I", data, i)[0] * _P1) & M64
        h = (_rotl(h, 23) * _P2 + _P3) & M64
        i += 4
    while i < n:
        h ^= (data[i] * _P5) & M64
        h = (_rotl(h, 11) * _P1) & M64
        i += 1
    h ^= h >> 33
    h = (h * _P2) & M64
    h ^= h >> 29
    h = (h * _P3) & M64
    return h ^ (h >> 32)
