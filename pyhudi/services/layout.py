"""Record order for clustering by several columns (hoodie.layout.optimize.strategy): linear sorts by the
columns in turn; z-order and Hilbert sort by a space-filling curve over them, so that files end up with
narrow ranges in every column, not just the first. Each value becomes an order-preserving 64-bit key
(Hudi's "direct" curve method): numbers by their bits, strings and bytes by their first 8 bytes."""
from __future__ import annotations

import struct
from typing import Any, Sequence

BITS = 64
_SIGN = 1 << 63


def value_key(v: Any) -> int:
    """An unsigned 64-bit key whose order follows the value's (nulls first)."""
    if v is None:
        return 0
    if isinstance(v, bool):
        return int(v) + 1
    if isinstance(v, int):
        return (v + _SIGN) & ((1 << BITS) - 1)
    if isinstance(v, float):
        bits = struct.unpack(">Q", struct.pack(">d", v))[0]
        return bits ^ ((1 << BITS) - 1) if bits & _SIGN else bits | _SIGN
    if hasattr(v, "timestamp"):  # datetime
        return value_key(int(v.timestamp() * 1_000_000))
    if hasattr(v, "toordinal"):  # date
        return value_key(v.toordinal())
    raw = v if isinstance(v, (bytes, bytearray)) else str(v).encode("utf-8")
    return int.from_bytes(bytes(raw[:8]).ljust(8, b"\0"), "big")


def z_value(keys: Sequence[int]) -> bytes:
    """Bits of the keys interleaved, most significant first: the z-order curve's position."""
    n, out = len(keys), 0
    for bit in range(BITS - 1, -1, -1):
        for k in keys:
            out = (out << 1) | ((k >> bit) & 1)
    return out.to_bytes(n * BITS // 8, "big")


def hilbert_value(keys: Sequence[int]) -> bytes:
    """Position on the Hilbert curve through the keys (Skilling's transpose: coordinates to the curve's
    transposed index, then its bits interleaved as for z-order)."""
    x, n = list(keys), len(keys)
    m = 1 << (BITS - 1)
    q = m
    while q > 1:  # inverse undo of the excess work
        p = q - 1
        for i in range(n):
            if x[i] & q:
                x[0] ^= p
            else:
                t = (x[0] ^ x[i]) & p
                x[0] ^= t
                x[i] ^= t
        q >>= 1
    for i in range(1, n):  # Gray encode
        x[i] ^= x[i - 1]
    t, q = 0, m
    while q > 1:
        if x[n - 1] & q:
            t ^= q - 1
        q >>= 1
    x = [xi ^ t for xi in x]
    return z_value(x)


def curve_key(values: Sequence[Any], strategy: str) -> bytes:
    """The sort key of one record's sort-column values under `strategy` (zorder or hilbert)."""
    keys = [value_key(v) for v in values]
    return hilbert_value(keys) if strategy == "hilbert" else z_value(keys)
