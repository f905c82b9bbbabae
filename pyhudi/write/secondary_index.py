"""Secondary indexes as writes and the indexing action use them (`pyhudi.metadata.secondary_index` holds the
layout): a row's entry key computed in Spark, the entries a write adds and removes, the entries of the table
as it is (to build an index). Rows come as record_index's (KEY, PART, LOC, DELETED) shape, KEY being the
entry key, so `pyhudi.write.record_index`'s executor jobs write both."""
from __future__ import annotations

import posixpath
from dataclasses import dataclass

from pyspark.sql import Column, DataFrame, SparkSession
from pyspark.sql import functions as F
from pyspark.sql import types as T

from pyhudi.config import read_keys
from pyhudi.errors import HudiError
from pyhudi.metadata import secondary_index as si
from pyhudi.metadata.keys import is_secondary_index
from pyhudi.metadata.layout import INFLIGHT_PARTITIONS_KEY, completed_partitions, csv
from pyhudi.storage import Storage
from pyhudi.table import index_definitions
from pyhudi.write import record_index
from pyhudi.write.own_records import READ_OPTIONS, file_id_of
from pyhudi.write.record_index import DELETED, KEY, LOC, PART
from pyhudi.write.tagged import DELETE, FG, OP, UPDATE

# the value types whose text Hudi's entry keys hold as Spark renders them (a date as its epoch day)
INDEXABLE = (T.StringType, T.ByteType, T.ShortType, T.IntegerType, T.LongType, T.BooleanType, T.DateType)
_OLD, _NEW, _HAD, _ORD, _OORD = "_si_old", "_si_new", "_si_had", "_si_ord", "_si_oord"
# up to this many updated keys, their stored records are read by key: the record index plans only their
# file groups (the connector's record-index pruning, data skipping on); more read the touched partitions
POINT_READ_MAX_KEYS = 1000
POINT_READ_OPTIONS = {**READ_OPTIONS, "hoodie.enable.data.skipping": "true",
                      read_keys.RECORD_INDEX_MAX_KEYS: str(POINT_READ_MAX_KEYS)}


class SecondaryIndexError(HudiError, ValueError):
    pass


@dataclass(frozen=True)
class Index:
    """A secondary index: its MDT partition and the column it covers, with the column's type."""
    partition: str
    column: str
    dtype: T.DataType

    def entry_key(self, value: Column, record_key: Column, null_marked: bool = False) -> Column:
        """`escape(value text) $ escape(record key)`; null when the value is null (not indexed). `null_marked`:
        as Apache Hudi 1.1 spells entries (table version 9): U+0000 escaped too, a null value a lone U+0000."""
        if not null_marked:
            return F.concat(_escaped(_text(value, self.dtype)), F.lit(si.SEPARATOR), _escaped(record_key))
        text = F.coalesce(_escaped(_text(value, self.dtype), nul=True), F.lit(si.NULL_VALUE))
        return F.concat(text, F.lit(si.SEPARATOR), _escaped(record_key, nul=True))


def column_type(schema: T.StructType, column: str) -> T.DataType:
    """The type of `column`, checked to be one an index can cover."""
    if column not in schema.fieldNames():
        raise SecondaryIndexError(f"the table has no column {column!r}; its columns are "
                                  f"{', '.join(f for f in schema.fieldNames() if not f.startswith('_hoodie'))}")
    dtype = schema[column].dataType
    if not isinstance(dtype, INDEXABLE) or (isinstance(dtype, T.StringType) and dtype != T.StringType()):
        raise SecondaryIndexError(f"a secondary index cannot cover {column!r} of type {dtype.simpleString()}: "
                                  "index a string, integer, boolean or date column")
    return dtype


def maintained(spark: SparkSession, table_uri: str, storage: Storage, base: str, props: dict[str, str]
               ) -> list[Index]:
    """The secondary indexes of the table, built or being built, that have a definition (a column) to keep
    them by (a write keeps an index being built ready for the build's hand-over)."""
    parts = listed(props)
    if not parts:
        return []
    definitions = index_definitions.load(storage, base, props)
    schema = spark.read.format("hudi-meta").options(**READ_OPTIONS).load(table_uri).schema
    out = []
    for part in parts:
        column = index_definitions.secondary_column(definitions, part)
        if column is not None and column in schema.fieldNames():
            out.append(Index(part, column, schema[column].dataType))
    return out


def listed(props: dict[str, str] | None) -> list[str]:
    """The secondary-index partitions the table lists, built or being built."""
    parts = completed_partitions(props or {}) + csv((props or {}).get(INFLIGHT_PARTITIONS_KEY))
    return list(dict.fromkeys(p for p in parts if is_secondary_index(p)))


def snapshot_rows(spark: SparkSession, table_uri: str, index: Index,
                  groups: dict[str, set[str]] | None = None, null_marked: bool = False) -> DataFrame:
    """(KEY, PART, LOC, INSTANT) of every entry the table's records give now (of `groups` when given), spelled
    as Hudi 1.1 does with `null_marked` (Index.entry_key)."""
    key = index.entry_key(F.col(index.column), F.col("_hoodie_record_key"), null_marked)
    return record_index.snapshot_rows(spark, table_uri, groups, key=key)


def changes(spark: SparkSession, table_uri: str, index: Index, tagged: DataFrame | None,
            replaced: dict[str, list[str]], upserts_known: bool, ordering: str | None) -> DataFrame | None:
    """(KEY, PART, LOC, DELETED) of the entries a tagged write adds and removes: a record's entry changes
    when its value does (and its write wins the merge: `ordering` names the event-time field), goes with
    the record, and every entry of a replaced file group goes."""
    parts = []
    if tagged is not None:
        parts.append(_record_changes(spark, table_uri, index, tagged, upserts_known, ordering))
    if replaced:
        groups = {p: set(ids) for p, ids in replaced.items()}
        gone = snapshot_rows(spark, table_uri, index, groups)
        parts.append(gone.select(KEY, PART, LOC, F.lit(True).alias(DELETED)))
    return None if not parts else parts[0] if len(parts) == 1 else parts[0].unionByName(parts[1])


def written(spark: SparkSession, table_uri: str, index: Index, stats) -> DataFrame | None:
    """The entries of the new base files of `stats` (a write that learns its file groups as it writes)."""
    paths = [posixpath.join(table_uri, s.path) for s in stats if s.path and not s.is_log]
    if not paths:
        return None
    rows = spark.read.parquet(*paths)
    return rows.select(index.entry_key(F.col(index.column), F.col("_hoodie_record_key")).alias(KEY),
                       F.col("_hoodie_partition_path").alias(PART), file_id_of(F.col("_hoodie_file_name")).alias(LOC),
                       F.lit(False).alias(DELETED)).filter(F.col(KEY).isNotNull())


# ---- how a write changes entries -----------------------------------------------------------------

def _record_changes(spark: SparkSession, table_uri: str, index: Index, tagged: DataFrame, upserts_known: bool,
                    ordering: str | None) -> DataFrame:
    rk = F.col("_hoodie_record_key")
    soft = (F.coalesce(F.col("_hoodie_is_deleted").cast("boolean"), F.lit(False))
            if "_hoodie_is_deleted" in tagged.columns else F.lit(False))
    given = set(tagged.columns)  # a delete may give keys only
    value = F.col(index.column) if index.column in given else F.lit(None).cast(index.dtype)
    incoming = tagged.select(rk, F.col("_hoodie_partition_path").alias(PART), F.col(FG).alias(LOC),
                             F.col(OP), soft.alias("_si_soft"), index.entry_key(value, rk).alias(_NEW),
                             (F.col(ordering) if ordering in given else F.lit(None)).alias(_ORD))
    matched = incoming.filter(F.col(OP).isin(UPDATE, DELETE)) if upserts_known else incoming
    keys: list[str] | None  # None: too many for point reads
    keys = [r[0] for r in matched.select("_hoodie_record_key").limit(POINT_READ_MAX_KEYS + 1).collect()]
    if len(keys) > POINT_READ_MAX_KEYS:
        keys = None
        partitions = sorted(r[0] for r in matched.select(PART).distinct().collect() if r[0] is not None)
    else:
        partitions = None
    joined = incoming.join(_current(spark, table_uri, index, partitions, keys, ordering),
                           ["_hoodie_record_key", PART, LOC], "left")
    wins = (F.lit(ordering is None) | F.col(_OORD).isNull()
            | F.coalesce(F.col(_ORD) >= F.col(_OORD), F.lit(False)))
    gone = (F.col(OP) == DELETE) | (F.col("_si_soft") & wins)
    after = (F.when(gone, F.lit(None)).when(F.col(_HAD) & ~wins, F.col(_OLD)).otherwise(F.col(_NEW)))
    rows = joined.select(PART, LOC, F.col(_OLD), after.alias(_NEW))
    changed = F.col(_OLD).isNull() | F.col(_NEW).isNull() | (F.col(_OLD) != F.col(_NEW))
    rows = rows.filter(changed)
    added = rows.filter(F.col(_NEW).isNotNull()).select(F.col(_NEW).alias(KEY), PART, LOC, F.lit(False).alias(DELETED))
    removed = rows.filter(F.col(_OLD).isNotNull()).select(F.col(_OLD).alias(KEY), PART, LOC,
                                                          F.lit(True).alias(DELETED))
    return added.unionByName(removed)


def _current(spark: SparkSession, table_uri: str, index: Index, partitions: list[str] | None,
             keys: list[str] | None, ordering: str | None) -> DataFrame:
    """The committed records of `keys` (a read the record index prunes to their file groups), or of
    `partitions`: key, partition, file group, entry key, ordering value."""
    if keys is not None:
        snap = spark.read.format("hudi-meta").options(**POINT_READ_OPTIONS).load(table_uri)
        snap = snap.filter(F.col("_hoodie_record_key").isin(sorted(set(keys))))
    else:
        snap = spark.read.format("hudi-meta").options(**READ_OPTIONS).load(table_uri)
        snap = snap.filter(F.col("_hoodie_partition_path").isin(partitions))
    rk = F.col("_hoodie_record_key")
    return snap.select(rk, F.col("_hoodie_partition_path").alias(PART),
                       file_id_of(F.col("_hoodie_file_name")).alias(LOC),
                       index.entry_key(F.col(index.column), rk).alias(_OLD), F.lit(True).alias(_HAD),
                       (F.col(ordering) if ordering else F.lit(None)).alias(_OORD))


def _text(value: Column, dtype: T.DataType) -> Column:
    return F.unix_date(value).cast("string") if isinstance(dtype, T.DateType) else value.cast("string")


def _escaped(text: Column, nul: bool = False) -> Column:
    return F.regexp_replace(text, r"([\\$\x00])" if nul else r"([\\$])", r"\\$1")

