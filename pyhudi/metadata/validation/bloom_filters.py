"""`bloom_filters` against the filters the base files' own footers hold (HoodieMetadataTableValidator's
validateBloomFilters): one record per listed base file that has a filter, the same filter and type."""
from __future__ import annotations

import posixpath
from typing import Callable, Mapping

from pyhudi.metadata.keys import BLOOM_FILTERS, bloom_filter_key
from pyhudi.metadata.records import MetadataRecord
from pyhudi.metadata.validation.difference import Difference
from pyhudi.table import file_names

Footer = Callable[[str, str], tuple[str | None, str | None]]  # (partition, name) -> (Base64 filter, type)


def check(records: Mapping[str, MetadataRecord], listing: Mapping[str, Mapping[str, int]],
          footer: Footer) -> list[Difference]:
    out, expected = [], set()
    for p, files in sorted(listing.items()):
        for name in sorted(n for n in files if file_names.is_base(n) and n.endswith(".parquet")):
            b64, btype = footer(p, name)
            if not b64:
                continue
            key = bloom_filter_key(p, name)
            expected.add(key)
            rec, where = records.get(key), posixpath.join(p, name)
            if rec is None or rec.bloom is None:
                out.append(Difference(BLOOM_FILTERS, where, "no bloom filter", None, f"{len(b64)} Base64 chars"))
                continue
            stored = rec.bloom.bloom_filter.decode("ascii", "replace")
            if stored != b64:
                out.append(Difference(BLOOM_FILTERS, where, "filter bits", _digest(stored), _digest(b64)))
            if btype and rec.bloom.type != btype:
                out.append(Difference(BLOOM_FILTERS, where, "filter type", rec.bloom.type, btype))
    out += [Difference(BLOOM_FILTERS, key, "filter of a file not listed", "present", None)
            for key in sorted(set(records) - expected)]
    return out


def _digest(b64: str) -> str:
    """A filter in a message: its length and ends, not its kilobytes."""
    return f"{len(b64)} chars {b64[:12]}...{b64[-12:]}" if len(b64) > 32 else b64
