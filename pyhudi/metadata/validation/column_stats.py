"""`column_stats` against every listed file's own statistics, and `partition_stats` against the statistics
of the files of each partition's latest slices (HoodieMetadataTableValidator's validateAllColumnStats and
validatePartitionStats)."""
from __future__ import annotations

import decimal
import posixpath
from typing import Mapping

from pyhudi.metadata.keys import COLUMN_STATS, PARTITION_STATS, column_stats_key, partition_stats_key
from pyhudi.metadata.merge import aggregate_stats
from pyhudi.metadata.partition_stats import latest_slice_files
from pyhudi.metadata.records import ColumnStats, MetadataRecord
from pyhudi.metadata.validation.difference import Difference

Listing = Mapping[str, Mapping[str, int]]  # data partition -> file name -> size
FileStats = dict[str, dict[str, dict[str, ColumnStats]]]  # data partition -> file -> column -> stats
COUNTS = ("null_count", "value_count")


def _value(w):
    return None if w is None else w.value


def _comparable(m, a):
    """(metadata, data) values made comparable: table version 9 keeps a decimal column's min/max as the
    unscaled bytes at the column's scale (a BytesWrapper, HoodieMetadataColumnStats' valueType DECIMAL)."""
    if isinstance(m, bytes) and isinstance(a, decimal.Decimal):
        exponent = a.as_tuple().exponent
        m = decimal.Decimal(int.from_bytes(m, "big", signed=True)).scaleb(exponent if isinstance(exponent, int) else 0)
    return m, a


def compare(partition: str, where: str, column: str, mdt: ColumnStats, actual: ColumnStats,
            bound_only: bool = False) -> list[Difference]:
    """The fields of one column's statistics that differ; `bound_only`: the metadata table's range need only
    cover the data's, and say there are nulls where there are (what pruning relies on)."""
    out = []
    for field, smaller in (("min_value", True), ("max_value", False)):
        m, a = _comparable(_value(getattr(mdt, field)), _value(getattr(actual, field)))
        if m == a or (bound_only and m is not None and a is not None and (m <= a if smaller else m >= a)):
            continue
        out.append(Difference(partition, where, f"{field[:3]} of {column}", m, a))
    if bound_only and (actual.null_count or 0) > 0 and not mdt.null_count:
        out.append(Difference(partition, where, f"null_count of {column}", mdt.null_count, actual.null_count))
    if not bound_only:
        out += [Difference(partition, where, f"{field} of {column}", getattr(mdt, field), getattr(actual, field))
                for field in COUNTS if getattr(mdt, field) != getattr(actual, field)]
    return out


def check_column_stats(records: Mapping[str, MetadataRecord], listing: Listing, truth: FileStats,
                       cols: list[str]) -> list[Difference]:
    """Every indexed column of every listed file has its record, equal to the file's own statistics; no record
    is left for a file the table no longer lists."""
    out, expected = [], set()
    for p, files in sorted(listing.items()):
        for name in sorted(files):
            where = posixpath.join(p, name)
            for c in cols:
                actual = truth.get(p, {}).get(name, {}).get(c)
                if actual is None:
                    continue  # the file holds no statistics of c (a log file of deletes only, a later column)
                key = column_stats_key(c, p, name)
                expected.add(key)
                rec = records.get(key)
                if rec is None or rec.stats is None:
                    out.append(Difference(COLUMN_STATS, where, f"no statistics of {c}", None, _summary(actual)))
                else:
                    out += compare(COLUMN_STATS, where, c, rec.stats, actual)
    out += [Difference(COLUMN_STATS, r.stats.file_name or key if r.stats else key, "statistics of a file not listed",
                       r.stats.column_name if r.stats else key, None)
            for key, r in sorted(records.items()) if key not in expected and not _of_unindexed_file(r, truth)]
    return out


def _of_unindexed_file(rec: MetadataRecord, truth: FileStats) -> bool:
    """A record of a listed file for a column its footer has no statistics of is not "extra"."""
    name = rec.stats.file_name if rec.stats else None
    return any(name in files for files in truth.values())


def _summary(s: ColumnStats) -> dict:
    return {"min": _value(s.min_value), "max": _value(s.max_value), "null_count": s.null_count}


def check_partition_stats(records: Mapping[str, MetadataRecord], listing: Listing, truth: FileStats,
                          cols: list[str], data) -> list[Difference]:
    """Each partition's record of a column covers the values of the files of its latest slices and counts
    nulls where they have some; none is left for a partition that is gone. Not equality: Apache Hudi 1.2's
    own records, marked tight, also count the file versions an update or an insert_overwrite replaced. A
    partition may lack a column's record (some file has no statistics of it): pruning then keeps it."""
    replaced = data.replaced_file_groups()
    out, expected = [], set()
    for p, files in sorted(listing.items()):
        live = latest_slice_files({n: (s, None, None) for n, s in files.items()}, data, replaced.get(p, set()))
        for c in cols:
            key = partition_stats_key(c, p)
            expected.add(key)
            ranges = [r for n in live if (r := truth.get(p, {}).get(n, {}).get(c)) is not None]
            rec = records.get(key)
            if rec is None or rec.stats is None or not ranges or len(ranges) < len(live):
                continue
            actual = aggregate_stats(ranges, p, c, tight=True)
            out += compare(PARTITION_STATS, p or "(non-partitioned)", c, rec.stats, actual, bound_only=True)
    out += [Difference(PARTITION_STATS, key, "statistics of a partition not listed", _summary(r.stats), None)
            for key, r in sorted(records.items()) if key not in expected and r.stats is not None]
    return out
