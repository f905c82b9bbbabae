"""`pyhudi metadata repair`: a broken metadata partition built again from the data while writers go on, the way
the indexing action builds one (pyhudi.services.indexing): dropped (readers stop using it, writers stop
keeping it), then built from a snapshot and caught up with the writes made meanwhile under the hand-off lock.
The partitions that need it go with it and come back after it (the record index's secondary indexes, column
stats' partition stats). `files` cannot be dropped alone: the whole metadata table is built again, each of
its partitions as before (pyhudi.services.restore's rebuild). With no partition named, the partitions the
validator finds differing are repaired; either way the validator runs after, and its answer is returned."""
from __future__ import annotations

from typing import Callable, Iterable

from pyhudi.metadata import of_table
from pyhudi.metadata.keys import BLOOM_FILTERS, COLUMN_STATS, FILES, PARTITION_STATS, RECORD_INDEX, is_secondary_index
from pyhudi.metadata.layout import completed_partitions
from pyhudi.metadata.validation import Difference, ValidationError, needs_records, to_check
from pyhudi.services import indexing, metadata_check, restore
from pyhudi.services.instant import Progress, ServiceTable, no_progress
from pyhudi.table import index_definitions, properties

ORDER = (FILES, COLUMN_STATS, BLOOM_FILTERS, PARTITION_STATS, RECORD_INDEX)  # a partition after those it needs


def repair(path: str, partitions: Iterable[str] | None = None, spark: Callable | object | None = None,
           progress: Progress = no_progress) -> tuple[list[str], dict[str, list[Difference]]]:
    """(the partitions built again, the validator's differences after). `spark`: a SparkSession or what makes
    one, for the record-level partitions (checked or built)."""
    table = ServiceTable.open(path)
    properties.check_writable(table.props, path)  # before anything is checked or dropped
    session = _Session(spark)
    if partitions is None:
        found = metadata_check.validate(path, spark=session.get)
        wanted = [p for p, diffs in found.items() if diffs]
    else:
        wanted = to_check(of_table(path), partitions)
    rebuilt = _rebuild_all(path, session, progress) if FILES in wanted else \
        [p for part in _ordered(wanted) for p in _rebuild(path, part, session, progress)]
    return rebuilt, metadata_check.validate(path, spark=session.get)


def _rebuild(path: str, partition: str, session: "_Session", progress: Progress) -> list[str]:
    """Drops `partition` (and what needs it), then builds each of them again; the partitions built."""
    table = ServiceTable.open(path)
    built = completed_partitions(table.props)
    if partition not in built:
        return []  # dropped with a partition it needs, and built again with it
    definitions = index_definitions.load(table.storage, table.base, table.props)
    columns = {p: index_definitions.secondary_column(definitions, p) for p in built if is_secondary_index(p)}
    dropped = indexing.drop(path, partition)
    progress(f"dropped {', '.join(dropped)}")
    for part in _ordered(dropped):
        if part in completed_partitions(properties.load(table.storage, table.base)):
            progress(f"{part} was built again by a writer meanwhile")
            continue
        spark = session.get() if needs_records([part]) else None
        done = indexing.create(spark, path, part, column=columns.get(part), progress=progress)  # type: ignore[arg-type]
        progress(f"{part} built again at {done.requested_time}")
    return _ordered(dropped)


def _rebuild_all(path: str, session: "_Session", progress: Progress) -> list[str]:
    """The whole metadata table built again, with the partitions it has (those built from records by indexing)."""
    table = ServiceTable.open(path)
    parts = completed_partitions(table.props)
    restore.drop_metadata_table(table, parts)
    progress(f"dropped the metadata table ({', '.join(parts)})")
    restore.rebuild_metadata_table(table, parts)
    restore.rebuild_indexes(table, parts, session.get, progress)
    return _ordered(parts)


def _ordered(parts: Iterable[str]) -> list[str]:
    return sorted(parts, key=lambda p: (ORDER.index(p) if p in ORDER else len(ORDER), p))


class _Session:
    """The Spark session, made the first time a step needs one."""

    def __init__(self, spark):
        self.spark, self.made = spark, not callable(spark) and spark is not None

    def get(self):
        if not self.made:
            if self.spark is None:
                raise ValidationError("repairing or checking record_index or a secondary index needs Spark")
            self.spark, self.made = self.spark(), True
        return self.spark
