"""What a data file itself says: a base file's statistics and bloom filter from its Parquet footer, a log
file's statistics from the records of its data blocks (as the writer computes them when it writes the file,
and as Apache Hudi's HoodieTableMetadataUtil reads log files to build column stats). The metadata table's
builds from a listing take them from here, and the validator checks the partitions against them."""
from __future__ import annotations

import io
import posixpath

import pyarrow as pa
import pyarrow.parquet as pq

from pyhudi.avro.schema import avro_to_arrow
from pyhudi.log import read_log_file
from pyhudi.log.block import BlockType, LogBlock
from pyhudi.metadata.context import MdtContext
from pyhudi.metadata.records import ColumnStats
from pyhudi.metadata.stats import column_stats_json, parse_column_stats
from pyhudi.table import file_names


def column_stats(ctx: MdtContext, partition: str, name: str, cols: list[str] | None,
                 stats: str | None = None) -> dict[str, ColumnStats]:
    """column -> the statistics of file `name` of data `partition` (`stats`: its column_stats_json when known;
    {} for a log file with no records and a base file that is not Parquet)."""
    stats = stats if stats is not None else column_stats_json_of(ctx, partition, name)
    # parse_column_stats names every column, so the check on column_name drops none
    return {s.column_name: s for s in parse_column_stats(name, stats, cols) if s.column_name is not None}


def column_stats_json_of(ctx: MdtContext, partition: str, name: str) -> str | None:
    if file_names.is_log(name):
        rows = log_records(ctx, partition, name)
        return column_stats_json(rows) if rows is not None else None
    return ctx.footer(partition, name)[0] if name.endswith(".parquet") else None


def bloom_filter(ctx: MdtContext, partition: str, name: str) -> tuple[str | None, str | None]:
    """(Base64 filter, type code) a base file's footer holds."""
    _, b64, btype = ctx.footer(partition, name)
    return b64, btype


def log_records(ctx: MdtContext, partition: str, name: str) -> pa.Table | None:
    """Every record of the data blocks of a log file, meta columns included; None when it has none."""
    path = posixpath.join(ctx.base_path, partition, name)
    tables = [t for b in read_log_file(path, ctx.storage.fs) if (t := _block_rows(b)) is not None]
    if not tables:
        return None
    return pa.concat_tables(tables, promote_options="default")


def _block_rows(block: LogBlock) -> pa.Table | None:
    if block.block_type == BlockType.PARQUET_DATA:
        return pq.read_table(io.BytesIO(block.content))
    if block.block_type == BlockType.AVRO_DATA:
        assert block.schema is not None  # records() refuses a block without one
        return pa.Table.from_pylist(block.records(), schema=avro_to_arrow(block.schema))
    return None
