"""The `files` partition against a storage listing of the committed files (HoodieMetadataTableValidator's
file-listing check)."""
from __future__ import annotations

import posixpath
from typing import Iterable, Mapping

from pyhudi.metadata.keys import FILES
from pyhudi.metadata.validation.difference import Difference


def actual_sizes(listing: Mapping[str, Iterable]) -> dict[str, dict[str, int]]:
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
    actual = actual_sizes(listing)
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


def check(mdt_listing: Mapping[str, Mapping[str, int]], listing: Mapping[str, Iterable]) -> list[Difference]:
    """`differences` one line each: a partition or file the metadata table and storage disagree on."""
    diff = differences(mdt_listing, listing)
    out = [Difference(FILES, p, "partition not in the metadata table", None, "on storage")
           for p in diff.get("missing_partitions", [])]
    out += [Difference(FILES, p, "partition not on storage", "listed", None) for p in diff.get("extra_partitions", [])]
    for kind, mdt, actual in (("missing_files", None, "on storage"), ("extra_files", "listed", None)):
        what = "file not in the metadata table" if mdt is None else "file not on storage"
        out += [Difference(FILES, posixpath.join(p, n), what, mdt, actual)
                for p, names in diff.get(kind, {}).items() for n in names]
    out += [Difference(FILES, posixpath.join(p, n), "size", sizes[0], sizes[1])
            for p, by_name in diff.get("size_mismatch", {}).items() for n, sizes in by_name.items()]
    return out
