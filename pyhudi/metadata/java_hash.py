"""Java's hashing as the metadata table depends on it: `String.hashCode` (which routes keys to
file groups) and the iteration order of a `java.util.HashMap<String, ?>` (the order Hudi writes
Avro maps in, so that our bytes match the Java writer's)."""
from __future__ import annotations

import functools
import sys
from array import array
from operator import mul
from typing import Iterable

INT_MIN = -(1 << 31)
_UTF16 = "utf-16-le" if sys.byteorder == "little" else "utf-16-be"  # native order, as array("H") reads it
_powers: list[int] = []  # 31**(n-1), ..., 31**0 (mod 2**32) for the longest string hashed so far


def java_string_hash(s: str) -> int:
    """Java's String.hashCode: h = 31*h + UTF-16 code unit, as a signed 32-bit int; computed as the sum
    of unit * 31**(n-1-i) (mod 2**32), a product of two sequences in C rather than a Python loop."""
    global _powers
    units = s.encode("ascii") if s.isascii() else array("H", s.encode(_UTF16))
    n = len(units)
    if n > len(_powers):
        size = max(n, 2 * len(_powers), 64)
        _powers = [pow(31, size - 1 - j, 1 << 32) for j in range(size)]
    h = sum(map(mul, units, _powers[len(_powers) - n:])) & 0xFFFFFFFF
    return h - (1 << 32) if h & 0x80000000 else h


def java_abs(i: int) -> int:
    """Math.abs of an int: Integer.MIN_VALUE stays negative."""
    return i if i == INT_MIN else abs(i)


def java_rem(a: int, n: int) -> int:
    """Java's `a % n` for ints: truncating, so the sign follows `a`."""
    return a % n if a >= 0 else -((-a) % n)


# ---------------------------------------------------------------- java.util.HashMap order

_TREEIFY_THRESHOLD = 8
_MIN_TREEIFY_CAPACITY = 64


@functools.lru_cache(maxsize=1 << 17)  # file names, merged again at every read of the `files` partition
def _spread(key: str) -> int:
    h = java_string_hash(key) & 0xFFFFFFFF
    return h ^ (h >> 16)


def _table_size_for(cap: int) -> int:
    n = 1
    while n < cap:
        n <<= 1
    return n


class JavaHashMap:
    """The key order of a java.util.HashMap<String, ?>: buckets in index order, each holding its
    keys in insertion order (resizes keep that relative order). Covers the constructors
    `HashMap()` / `HashMap(cap[, loadFactor])`, put, putAll (which sizes an empty table for the
    incoming entries) and remove. Bins Java turns into trees (9+ colliding keys in a table of 64+
    buckets) are kept in insertion order here."""

    def __init__(self, initial_capacity: int | None = None, load_factor: float = 0.75):
        self.load_factor = load_factor
        self.capacity = 0
        self.threshold = 0 if initial_capacity is None else _table_size_for(max(initial_capacity, 1))
        self.table: list[list[str]] = []
        self.size = 0

    def _resize(self) -> None:
        old = self.capacity
        if old > 0:
            self.capacity = old << 1
            self.threshold = self.threshold << 1 if old >= 16 else int(self.capacity * self.load_factor)
        elif self.threshold > 0:
            self.capacity = self.threshold
            self.threshold = int(self.capacity * self.load_factor)
        else:
            self.capacity, self.threshold = 16, int(16 * self.load_factor)
        table: list[list[str]] = [[] for _ in range(self.capacity)]
        for bucket in self.table:
            for k in bucket:
                table[_spread(k) & (self.capacity - 1)].append(k)
        self.table = table

    def put(self, key: str) -> None:
        if self.capacity == 0:
            self._resize()
        bucket = self.table[_spread(key) & (self.capacity - 1)]
        if key in bucket:
            return
        bucket.append(key)
        if len(bucket) > _TREEIFY_THRESHOLD and self.capacity < _MIN_TREEIFY_CAPACITY:
            self._resize()
        self.size += 1
        if self.size > self.threshold:
            self._resize()

    def put_all(self, keys: Iterable[str]) -> None:
        keys = list(keys)
        if not keys:
            return
        if self.capacity == 0:
            wanted = int(len(keys) / self.load_factor + 1.0)
            if wanted > self.threshold:
                self.threshold = _table_size_for(wanted)
        elif len(keys) > self.threshold:
            self._resize()
        for k in keys:
            self.put(k)

    def remove(self, key: str) -> None:
        if self.capacity:
            bucket = self.table[_spread(key) & (self.capacity - 1)]
            if key in bucket:
                bucket.remove(key)
                self.size -= 1

    def keys(self) -> list[str]:
        return [k for bucket in self.table for k in bucket]


def java_hashmap_order(keys: Iterable[str], initial_capacity: int | None = None,
                       load_factor: float = 0.75) -> list[str]:
    """Iteration order of `new HashMap<>([initial_capacity[, load_factor]])` after putting
    `keys` one by one."""
    m = JavaHashMap(initial_capacity, load_factor)
    for k in keys:
        m.put(k)
    return m.keys()
