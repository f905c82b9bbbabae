"""The metadata table checked against the data it describes, partition by partition, as Apache Hudi's
HoodieMetadataTableValidator does: `files` against a storage listing, `column_stats` and `partition_stats`
against the files' own statistics, `bloom_filters` against the base files' footers, `record_index` and each
secondary index against the table's records (which the caller reads, with Spark: `rows_of`). A partition
that cannot be read (a truncated or missing file) is a difference too, naming the error, and so is a file
shorter than the instant that wrote it recorded (pyhudi.metadata.integrity: cut at a block boundary, it parses).

`check` returns each checked partition's differences; `exit_status` sets one bit per partition that differs
(EXIT_BITS), the status `pyhudi metadata validate` exits with."""
from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Callable, Iterable, Mapping

from pyhudi.errors import HudiError
from pyhudi.metadata import data_files, integrity
from pyhudi.metadata.keys import (
    BLOOM_FILTERS,
    COLUMN_STATS,
    FILES,
    PARTITION_STATS,
    RECORD_INDEX,
    SECONDARY_INDEX_PREFIX,
    is_secondary_index,
)
from pyhudi.metadata.layout import completed_partitions
from pyhudi.metadata.reader import files_listing, read_partition
from pyhudi.metadata.validation import bloom_filters, column_stats, files, keys
from pyhudi.metadata.validation.difference import Difference
from pyhudi.table.file_slices import listing_from_storage

if TYPE_CHECKING:
    from pyhudi.metadata.state import MdtState
    from pyhudi.metadata.writer import MetadataWriter

log = logging.getLogger(__name__)

EXIT_BITS = {FILES: 1, COLUMN_STATS: 2, PARTITION_STATS: 4, BLOOM_FILTERS: 8, RECORD_INDEX: 16,
             SECONDARY_INDEX_PREFIX: 32}
RowsOf = Callable[[str], keys.Rows]  # record_index or secondary_index_<name> -> the table's rows for it

__all__ = ["Difference", "EXIT_BITS", "ValidationError", "check", "exit_status", "needs_records", "to_check"]


class ValidationError(HudiError, ValueError):
    pass


def needs_records(partitions: Iterable[str]) -> bool:
    """Whether checking `partitions` reads the table's records (with Spark)."""
    return any(p == RECORD_INDEX or is_secondary_index(p) for p in partitions)


def to_check(writer: "MetadataWriter", partitions: Iterable[str] | None) -> list[str]:
    """`partitions`, each checked to be built (every built partition when None)."""
    built = completed_partitions(writer.data_props)
    wanted = list(partitions) if partitions is not None else built
    unknown = [p for p in wanted if p not in built]
    if unknown:
        raise ValidationError(f"the metadata table of {writer.base_path} has no built partition "
                              f"{', '.join(unknown)}; its partitions: {', '.join(built) or 'none'}")
    return wanted


def check(writer: "MetadataWriter", partitions: Iterable[str] | None = None, rows_of: RowsOf | None = None,
          listing: Mapping[str, Iterable] | None = None) -> dict[str, list[Difference]]:
    """partition -> its differences ([] when it agrees) for `partitions` (every built one when None)."""
    wanted = to_check(writer, partitions)
    if needs_records(wanted) and rows_of is None:
        raise ValidationError("checking record_index or a secondary index reads the table's records: give rows_of")
    state = writer.state()
    if listing is None:
        listing = listing_from_storage(writer.storage, writer.base_path, writer.data_timeline())
    on_storage = files.actual_sizes(listing)
    cols = writer.ctx.columns(state.data) or []
    truth = _file_stats(writer, on_storage, cols) if {COLUMN_STATS, PARTITION_STATS} & set(wanted) else {}
    cut = integrity.damaged(state, wanted)  # one read of the instants that wrote the files, for every partition
    out = {}
    for part in wanted:
        out[part] = [Difference(part, d.file, f"shorter than instant {d.instant} wrote it", d.written, d.size)
                     for d in cut if d.partition == part]
        try:
            out[part] += _check(writer, state, part, listing, on_storage, truth, cols, rows_of)
        except (HudiError, OSError, ValueError, IndexError, KeyError) as e:
            log.warning("metadata partition %s of %s cannot be read: %s", part, writer.base_path, e)
            out[part].append(Difference(part, "", "unreadable", f"{type(e).__name__}: {e}", None))
    return out


def _file_stats(writer: "MetadataWriter", on_storage, cols: list[str]) -> column_stats.FileStats:
    return {p: {n: data_files.column_stats(writer.ctx, p, n, cols) for n in names}
            for p, names in on_storage.items()}


def _check(writer: "MetadataWriter", state: "MdtState", part: str, listing, on_storage, truth, cols: list[str],
           rows_of: RowsOf | None) -> list[Difference]:
    if part == FILES:
        return files.check(files_listing(state), listing)
    records = read_partition(state, part)
    if part == COLUMN_STATS:
        return column_stats.check_column_stats(records, on_storage, truth, cols)
    if part == PARTITION_STATS:
        return column_stats.check_partition_stats(records, on_storage, truth, cols, state.data)
    if part == BLOOM_FILTERS:
        return bloom_filters.check(records, on_storage, lambda p, n: data_files.bloom_filter(writer.ctx, p, n))
    assert rows_of is not None  # check() refused without it
    if part == RECORD_INDEX:
        return keys.check_record_index(part, records, rows_of(part))
    if is_secondary_index(part):
        return keys.check_secondary_index(part, records, rows_of(part))
    raise ValidationError(f"no check of metadata partition {part}")


def exit_status(results: Mapping[str, list[Difference]]) -> int:
    """One bit per partition kind that differs (0: every checked partition agrees)."""
    status = 0
    for part, diffs in results.items():
        if diffs:
            status |= EXIT_BITS[SECONDARY_INDEX_PREFIX if is_secondary_index(part) else part]
    return status
