"""Comparing the MDT `files` partition with a storage listing of the committed files."""
from __future__ import annotations

import posixpath
from typing import Iterable, Mapping


def _actual(listing: Mapping[str, Iterable]) -> dict[str, dict[str, int]]:
    """partition -> file name -> size (-1 when the listing gives names only)."""
    actual: dict[str, dict[str, int]] = {}
    for p, entries in listing.items():
        files = actual.setdefault("" if p == "." else p, {})
        for e in entries:
            if isinstance(e, str):
                files[e] = -1
            else:
                files[posixpath.basename(e[0])] = int(e[1])
    # a partition without any file (e.g. the leftovers of a rolled-back first write) counts as absent
    return {p: f for p, f in actual.items() if f}


def differences(mdt_listing: Mapping[str, Mapping[str, int]], listing: Mapping[str, Iterable]) -> dict:
    """{} when they agree, else any of "missing_partitions" (on storage, not in the MDT),
    "extra_partitions", "missing_files" / "extra_files" ({partition: [names]}) and
    "size_mismatch" ({partition: {name: [mdt, storage]}})."""
    actual = _actual(listing)
    mdt = {p: f for p, f in mdt_listing.items() if f}
    out: dict = {}
    if sorted(set(actual) - set(mdt)):
        out["missing_partitions"] = sorted(set(actual) - set(mdt))
    if sorted(set(mdt) - set(actual)):
        out["extra_partitions"] = sorted(set(mdt) - set(actual))
    missing, extra, sizes = {}, {}, {}
    for p in sorted(set(actual) | set(mdt)):
        a, m = actual.get(p, {}), mdt.get(p, {})
        if set(a) - set(m):
            missing[p] = sorted(set(a) - set(m))
        if set(m) - set(a):
            extra[p] = sorted(set(m) - set(a))
        diff = {n: [m[n], a[n]] for n in sorted(set(a) & set(m)) if a[n] >= 0 and a[n] != m[n]}
        if diff:
            sizes[p] = diff
    for k, v in (("missing_files", missing), ("extra_files", extra), ("size_mismatch", sizes)):
        if v:
            out[k] = v
    return out
