"""Column statistics of data files, as the `column_stats` partition records them: extracted from
a Parquet footer (or from Arrow data for log files) into the JSON executors attach to write stats
(`column_stats_json`), parsed back into `ColumnStats`, and which columns Hudi indexes."""
from __future__ import annotations

import base64
import datetime as dt
import decimal
import json
from typing import Any, Iterable, Mapping

from pyhudi.metadata.errors import MetadataRecordError
from pyhudi.metadata.records import ColumnStats
from pyhudi.metadata.wrappers import decimal_fits, pick, wrap, wrapper_for_type

# Meta columns Hudi always indexes (a TreeMap, hence this order), then the first
# hoodie.metadata.index.column.stats.max.columns.to.index (32) supported data columns.
META_COLUMNS_TO_INDEX = ("_hoodie_commit_time", "_hoodie_partition_path", "_hoodie_record_key")
META_COLUMNS = ("_hoodie_commit_time", "_hoodie_commit_seqno", "_hoodie_record_key",
                "_hoodie_partition_path", "_hoodie_file_name", "_hoodie_operation")
DEFAULT_MAX_COLUMNS_TO_INDEX = 32
BLOOM_KEYS = (b"org.apache.hudi.bloomfilter", b"com.uber.hoodie.bloomfilter")
BLOOM_TYPE_KEY = b"hoodie_bloom_filter_type_code"


def column_stats_json(table, parquet_metadata=None) -> str:
    """Per-column statistics of one written file, as JSON for a write stat's `column_stats`:
    `{column: {"min", "max", "null_count", "value_count", "total_size",
    "total_uncompressed_size", "type"}}`.

    With `parquet_metadata` (the `pyarrow.parquet.FileMetaData` of a written base file) the
    values come from the footer statistics of the top-level columns, combined over row groups,
    as Hudi reads them: value_count counts nulls too, sizes are the column chunks' compressed and
    uncompressed sizes. Without it (log files) they are computed from the Arrow data, with sizes
    0 as Hudi records for log files. `type` is the Arrow type string of the column (of the file's
    schema when `parquet_metadata` is given; `table` may then be just a `pyarrow.Schema`).

    Value encoding: strings as is, integers/timestamps/times as the stored integer (in the
    column's own unit), dates as epoch days, floats as numbers, booleans, binary as Base64,
    decimals as decimal strings. min/max are null when unknown or when every value is null.
    Columns of nested types are left out.
    """
    import pyarrow as pa

    if isinstance(table, pa.RecordBatch):
        table = pa.Table.from_batches([table])
    schema = table if isinstance(table, pa.Schema) else table.schema
    if isinstance(table, pa.Schema) and parquet_metadata is None:
        raise MetadataRecordError("column statistics from a schema alone need the file's Parquet metadata")
    types = {f.name: f.type for f in schema}
    if parquet_metadata is not None:
        # the file's own column types (what Hudi reads back), the given ones where that fails
        try:
            types = {**types, **{f.name: f.type for f in parquet_metadata.schema.to_arrow_schema()}}
        except Exception:  # noqa: BLE001 - pyarrow cannot map every Parquet schema to Arrow
            pass
        out = _stats_from_parquet(parquet_metadata, types)
    else:
        out = {name: _stats_from_arrow(table.column(name), typ) for name, typ in types.items()
               if wrapper_for_type(str(typ)) is not None}
    return json.dumps(out, separators=(",", ":"), allow_nan=True)


def _json_value(v, typ) -> Any:
    import pyarrow as pa

    if v is None:
        return None
    if isinstance(v, (bytes, bytearray, memoryview)):
        if pa.types.is_string(typ) or pa.types.is_large_string(typ):
            return bytes(v).decode("utf-8")
        return base64.b64encode(bytes(v)).decode("ascii")
    if isinstance(v, decimal.Decimal):
        return str(v)
    if isinstance(v, dt.datetime):
        raise MetadataRecordError("timestamps are passed as integers")  # pragma: no cover
    if isinstance(v, dt.date):
        return (v - dt.date(1970, 1, 1)).days
    return v


def _stored_values(col, typ):
    """The column as the integers Parquet stores for temporal types, as is otherwise."""
    import pyarrow as pa
    import pyarrow.compute as pc

    if pa.types.is_timestamp(typ) or pa.types.is_duration(typ):
        return col.view(pa.int64())
    if pa.types.is_time(typ):
        return col.view(pa.int64() if typ.bit_width == 64 else pa.int32())
    if pa.types.is_date32(typ):
        return col.view(pa.int32())
    if pa.types.is_date64(typ):
        return pc.divide(col.view(pa.int64()), 86_400_000)
    return col


def _stats_from_arrow(col, typ) -> dict:
    import pyarrow as pa
    import pyarrow.compute as pc

    col = col.combine_chunks() if hasattr(col, "combine_chunks") else col
    if pa.types.is_dictionary(typ):
        col = col.cast(typ.value_type)
    raw = _stored_values(col, typ)
    nulls = col.null_count
    lo = hi = None
    if len(col) > nulls:
        if pa.types.is_floating(typ):
            finite = pc.filter(raw, pc.invert(pc.is_nan(raw)))
            mm = pc.min_max(finite if len(finite) > finite.null_count else raw)
        else:
            mm = pc.min_max(raw)
        lo, hi = mm["min"].as_py(), mm["max"].as_py()
    return {"min": _json_value(lo, typ), "max": _json_value(hi, typ), "null_count": nulls,
            "value_count": len(col), "total_size": 0, "total_uncompressed_size": 0, "type": str(typ)}


def _parquet_value(raw, column_md):
    """A footer min/max as Hudi's convertToNativeJavaType sees it, JSON-encoded."""
    if raw is None:
        return None
    stats = column_md.statistics
    logical = str(stats.logical_type) if stats.logical_type is not None else ""
    if logical.startswith("Decimal"):
        scale = int(logical.split("scale=")[1].rstrip(")"))
        unscaled = raw if isinstance(raw, int) else int.from_bytes(raw, "big", signed=True)
        return str(decimal.Decimal(unscaled).scaleb(-scale))
    if isinstance(raw, (bytes, bytearray)):
        if logical in ("String", "Enum", "Json") or stats.converted_type in ("UTF8", "ENUM", "JSON"):
            return bytes(raw).decode("utf-8", errors="replace")
        return base64.b64encode(bytes(raw)).decode("ascii")
    return raw  # INT32 (dates: epoch days), INT64 (timestamps in the file's unit), FLOAT, DOUBLE, BOOLEAN


def _chunk_stats(c, typ) -> dict:
    """One row group's stats of one column chunk."""
    s = c.statistics
    has = s is not None and s.has_min_max
    return {"min": _parquet_value(s.min_raw, c) if has else None,
            "max": _parquet_value(s.max_raw, c) if has else None,
            "null_count": (s.null_count if s is not None and s.has_null_count else 0),
            "value_count": c.num_values, "total_size": c.total_compressed_size,
            "total_uncompressed_size": c.total_uncompressed_size, "type": str(typ)}


def _stats_from_parquet(md, types) -> dict:
    out: dict[str, dict] = {}
    for rg_index in range(md.num_row_groups):
        rg = md.row_group(rg_index)
        for j in range(rg.num_columns):
            c = rg.column(j)
            name = c.path_in_schema
            if "." in name or name not in types or wrapper_for_type(str(types[name])) is None:
                continue
            cur = _chunk_stats(c, types[name])
            prev = out.get(name)
            out[name] = cur if prev is None else _combine_json(prev, cur)
    return out


def _combine_json(a: dict, b: dict) -> dict:
    """Two row groups' stats of one column: the smaller min, the larger max, summed counts."""
    wrapper = wrapper_for_type(a["type"])
    assert wrapper is not None  # _stats_from_parquet keeps only columns whose type has a wrapper

    def choose(x, y, smaller):
        wx, wy = wrap(x, wrapper), wrap(y, wrapper)
        return x if pick(wx, wy, smaller) is wx and wx is not None else y

    summed = ("null_count", "value_count", "total_size", "total_uncompressed_size")
    return {"min": choose(a["min"], b["min"], True), "max": choose(a["max"], b["max"], False),
            **{k: a[k] + b[k] for k in summed}, "type": a["type"]}


def parse_column_stats(file_name: str, stats: str | Mapping | None,
                       columns: Iterable[str] | None = None) -> list[ColumnStats]:
    """`ColumnStats` of a file from `column_stats_json` output (a JSON string or its parsed dict),
    restricted to `columns` (in that order) when given."""
    if stats is None:
        return []
    doc = json.loads(stats) if isinstance(stats, (str, bytes)) else stats
    names = list(doc) if columns is None else [c for c in columns if c in doc]
    out = []
    for name in names:
        s = doc[name]
        wrapper = wrapper_for_type(s.get("type", ""))
        if wrapper is None:
            continue
        out.append(ColumnStats(file_name, name, wrap(s.get("min"), wrapper), wrap(s.get("max"), wrapper),
                               int(s.get("value_count") or 0), int(s.get("null_count") or 0),
                               int(s.get("total_size") or 0), int(s.get("total_uncompressed_size") or 0)))
    return out


def read_footer(fs, path: str) -> tuple[str, str | None, str | None]:
    """(column stats JSON, bloom filter Base64, bloom type code) of a Parquet base file, from
    its footer; `fs` is a pyarrow file system."""
    import pyarrow.parquet as pq

    with fs.open_input_file(path) as f:
        md = pq.ParquetFile(f).metadata
    kv = md.metadata or {}
    blm = next((kv[k] for k in BLOOM_KEYS if kv.get(k)), None)
    btype = kv.get(BLOOM_TYPE_KEY)
    return (column_stats_json(md.schema.to_arrow_schema(), md), blm.decode("ascii") if blm else None,
            btype.decode("ascii") if btype else None)


# ---------------------------------------------------------------- columns to index


def _avro_branch(t):
    if isinstance(t, list):
        rest = [b for b in t if b != "null"]
        return rest[0] if len(rest) == 1 else None
    return t


def is_indexable_avro_type(t) -> bool:
    """`isColumnTypeSupported` for Avro records: no records, arrays, maps, enums or unions of
    several types; decimals only when decimal(30, 15) holds them. (Bytes/fixed columns are indexed,
    as for Hudi's Avro record type; Spark-record writers of later releases skip them.)"""
    t = _avro_branch(t)
    if t is None:
        return False
    if isinstance(t, dict):
        if t.get("logicalType") == "decimal":
            return decimal_fits(int(t.get("precision", 0)), int(t.get("scale", 0)))
        t = t.get("type")
        if isinstance(t, (dict, list)):
            return is_indexable_avro_type(t)
    return t in ("boolean", "int", "long", "float", "double", "string", "bytes", "fixed")


def columns_to_index(avro_schema: dict | str | None, populate_meta_fields: bool = True,
                     max_columns: int = DEFAULT_MAX_COLUMNS_TO_INDEX) -> list[str]:
    """Hudi 1.0's default column-stats column list: the three indexed meta columns, then the
    first `max_columns` supported data columns of the table schema (meta columns skipped)."""
    schema = json.loads(avro_schema) if isinstance(avro_schema, str) else avro_schema
    data = []
    if schema is not None:
        data = [f["name"] for f in schema.get("fields", [])
                if f["name"] not in META_COLUMNS and is_indexable_avro_type(f["type"])][:max_columns]
    return (list(META_COLUMNS_TO_INDEX) if populate_meta_fields else []) + data
