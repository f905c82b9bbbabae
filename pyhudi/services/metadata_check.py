"""`pyhudi metadata validate` with the table's records: what pyhudi.metadata.validation checks, with the
records record_index and the secondary indexes are checked against read by a snapshot query (Spark, through
hudi-meta, as the indexing action reads them to build those partitions)."""
from __future__ import annotations

from typing import Callable, Iterable, Mapping

from pyhudi.metadata import of_table
from pyhudi.metadata.keys import RECORD_INDEX
from pyhudi.metadata.validation import Difference, ValidationError, check, needs_records, to_check
from pyhudi.metadata.validation.keys import Rows
from pyhudi.table import properties
from pyhudi.write import record_index, secondary_index


def validate(path: str, partitions: Iterable[str] | None = None, spark: Callable | object | None = None,
             listing: Mapping[str, Iterable] | None = None) -> dict[str, list[Difference]]:
    """Each checked partition's differences. `spark`: a SparkSession, or what starts one (called only when a
    partition to check is read against the records); `listing`: the storage listing, when already made."""
    writer = of_table(path)
    if not writer.exists():
        raise ValidationError(f"no metadata table at {writer.mdt_path}; create it with `pyhudi metadata create`")
    wanted = to_check(writer, partitions)
    rows_of = None
    if needs_records(wanted):
        if spark is None:
            raise ValidationError("checking record_index or a secondary index reads the table's records with Spark")
        session = spark() if callable(spark) else spark
        rows_of = records_of(session, path, writer)
    return check(writer, wanted, rows_of, listing)


def records_of(spark, path: str, writer) -> Callable[[str], Rows]:
    """(key, data partition, file id) of every record, for record_index; (entry key, ...) for a secondary index."""
    def rows(partition: str) -> Rows:
        if partition == RECORD_INDEX:
            snap = record_index.snapshot_rows(spark, path)
        else:
            index = next((i for i in secondary_index.maintained(spark, path, writer.storage, writer.base_path,
                                                                 writer.data_props) if i.partition == partition), None)
            if index is None:
                raise ValidationError(f"{partition} has no definition in the table's index definitions (no column "
                                      f"to check it against); drop it and create it again: pyhudi index drop")
            snap = secondary_index.snapshot_rows(spark, path, index, null_marked=_null_marked(writer.data_props))
        cols = (record_index.KEY, record_index.PART, record_index.LOC)
        return ((r[0], r[1], r[2]) for r in snap.select(*cols).toLocalIterator())
    return rows


def _null_marked(props) -> bool:
    """Whether the table's secondary indexes spell entries as Apache Hudi 1.1 does (table version 9)."""
    return int(props.get(properties.VERSION) or 0) >= 9
