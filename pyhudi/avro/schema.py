"""Table schemas as Hudi stores them: Avro schema JSON, converted to and from Arrow schemas.

Hudi keeps two renderings of the same schema, both produced by Spark's Avro schema converter
with record name `<table>_record` and namespace `hoodie.<table>`:

* "create" style (`hoodie.table.create.schema`): Spark's converter verbatim. A nullable type is
  the union `[type, "null"]`; no defaults.
* "writer" style (commit metadata `schema`, log-block SCHEMA header, `parquet.avro.schema`):
  every nullable union is `["null", type]` and nullable record fields get `"default": null`.
  Written records carry the five `_hoodie_*` meta fields in front (`with_meta_fields`).

Naming, as Spark does it: a nested struct becomes a record named after its field, in namespace
`<enclosing namespace>.<enclosing record name>`; a decimal becomes a `fixed` named `fixed` in
namespace `<that namespace>.<field name>`, of the minimal byte size for its precision; arrays
and maps pass their field's name down to their element type.

Schemas are handled as JSON-compatible dicts whose key order is the one Java's
`Schema.toString()` prints; `to_json` renders them compactly, byte-identical to Hudi's text.
"""
from __future__ import annotations

import functools
import json
import re
import struct
from typing import Any

import fastavro
import pyarrow as pa
from fastavro.schema import SchemaParseException

from pyhudi.errors import HudiError

META_FIELDS = ("_hoodie_commit_time", "_hoodie_commit_seqno", "_hoodie_record_key",
               "_hoodie_partition_path", "_hoodie_file_name")
OPERATION_FIELD = "_hoodie_operation"
CREATE, WRITER = "create", "writer"

_INVALID_FIRST = re.compile(r"[^A-Za-z_]")
_INVALID_CHARS = re.compile(r"[^A-Za-z0-9_]")
_PRIMITIVES = {"null", "boolean", "int", "long", "float", "double", "bytes", "string"}


class AvroSchemaError(HudiError, ValueError):
    pass


# ---------------------------------------------------------------- names and rendering


def sanitize_name(name: str) -> str:
    """Hudi's Avro-name sanitizer: invalid characters become `__`."""
    if name and _INVALID_FIRST.match(name[0]):
        name = "__" + name[1:]
    return _INVALID_CHARS.sub("__", name)


def record_name(table_name: str) -> tuple[str, str]:
    """(record name, namespace) of a table's schema: `<t>_record`, `hoodie.<t>`."""
    t = sanitize_name(table_name)
    return f"{t}_record", f"hoodie.{t}"


def to_json(schema: dict | list | str) -> str:
    """Compact JSON text as Java prints it (no spaces, non-ASCII kept as is)."""
    if isinstance(schema, str):
        schema = parse(schema)
    return json.dumps(schema, separators=(",", ":"), ensure_ascii=False)


@functools.lru_cache(maxsize=64)
def compiled(text: str):
    """fastavro's parsed form of a schema's JSON text, cached: block and instant codecs ask per call."""
    return fastavro.parse_schema(json.loads(text))


# What fastavro (and json) raise on schema text or Avro bytes that do not decode: readers of
# untrusted bytes turn these into their own format error. UnicodeDecodeError and JSONDecodeError
# are ValueErrors; fastavro's SchemaParseException derives from Exception only.
DECODE_ERRORS = (ValueError, TypeError, KeyError, IndexError, EOFError, OverflowError, RecursionError,
                 AttributeError, struct.error, SchemaParseException)


def parse(schema: str | dict) -> dict:
    if isinstance(schema, dict):
        return schema
    try:
        return json.loads(schema)
    except json.JSONDecodeError as e:
        raise AvroSchemaError(f"schema is not valid JSON: {e}") from None


def _named(kind: str, name: str, space: str, outer_space: str | None) -> dict:
    """Head of a named type; the namespace is omitted when it equals the enclosing one."""
    head = {"type": kind, "name": name}
    if space != outer_space:
        head["namespace"] = space
    return head


# ---------------------------------------------------------------- Arrow -> Avro


def arrow_to_avro(schema: pa.Schema, table_name: str, style: str = WRITER) -> dict:
    """Avro schema of a table with these (data) columns, in Hudi's create or writer style."""
    name, space = record_name(table_name)
    created = _record(list(schema), name, space, None)
    if style == CREATE:
        return created
    if style == WRITER:
        return to_writer_style(created)
    raise AvroSchemaError(f"unknown schema style {style!r}; valid: {CREATE}, {WRITER}")


def _record(fields: list[pa.Field], name: str, space: str, outer_space: str | None) -> dict:
    child_space = f"{space}.{name}" if space else name
    out = _named("record", name, space, outer_space)
    out["fields"] = [{"name": f.name, "type": _type(f.type, f.nullable, f.name, child_space, space)}
                     for f in fields]
    return out


def _type(t: pa.DataType, nullable: bool, name: str, space: str, outer_space: str | None):
    """Spark's toAvroType: `name`/`space` are the would-be name and namespace of a named type."""
    if pa.types.is_null(t):
        return "null"  # Spark never wraps NullType in a union
    base = _non_null_type(t, name, space, outer_space)
    return [base, "null"] if nullable else base


def _non_null_type(t: pa.DataType, name: str, space: str, outer_space: str | None):
    if pa.types.is_dictionary(t):
        return _non_null_type(t.value_type, name, space, outer_space)
    simple = _simple_type(t)
    if simple is not None:
        return simple
    if pa.types.is_decimal(t):
        if t.precision > 38:
            raise AvroSchemaError(f"decimal({t.precision},{t.scale}) of {name!r}: precision above 38")
        head = _named("fixed", "fixed", f"{space}.{name}" if space else name, outer_space)
        return {**head, "size": decimal_size(t.precision), "logicalType": "decimal",
                "precision": t.precision, "scale": t.scale}
    if pa.types.is_struct(t):
        return _record([t.field(i) for i in range(t.num_fields)], name, space, outer_space)
    if pa.types.is_map(t):
        if not (pa.types.is_string(t.key_type) or pa.types.is_large_string(t.key_type)):
            raise AvroSchemaError(f"map {name!r} has {t.key_type} keys; Avro maps need string keys")
        item = t.item_field
        return {"type": "map", "values": _type(item.type, item.nullable, name, space, outer_space)}
    if isinstance(t, (pa.ListType, pa.LargeListType, pa.FixedSizeListType)) or _is_list_view(t):
        v = t.value_field
        return {"type": "array", "items": _type(v.type, v.nullable, name, space, outer_space)}
    raise AvroSchemaError(f"column {name!r}: Arrow type {t} has no Hudi/Spark Avro equivalent")


def _is_list_view(t: pa.DataType) -> bool:
    return hasattr(pa.types, "is_list_view") and (pa.types.is_list_view(t) or pa.types.is_large_list_view(t))


def _simple_type(t: pa.DataType):
    if pa.types.is_boolean(t):
        return "boolean"
    if pa.types.is_int8(t) or pa.types.is_int16(t) or pa.types.is_int32(t):
        return "int"  # Spark's Byte/Short/Integer types are all Avro int
    if pa.types.is_int64(t):
        return "long"
    if pa.types.is_float32(t):
        return "float"
    if pa.types.is_float64(t):
        return "double"
    if pa.types.is_string(t) or pa.types.is_large_string(t) or _is_view(t, "string"):
        return "string"
    if (pa.types.is_binary(t) or pa.types.is_large_binary(t) or pa.types.is_fixed_size_binary(t)
            or _is_view(t, "binary")):
        return "bytes"
    if pa.types.is_date(t):
        return {"type": "int", "logicalType": "date"}
    if pa.types.is_timestamp(t):
        # Spark: TimestampType (zoned) -> timestamp-micros; TimestampNTZType -> local-timestamp-micros
        logical = "timestamp-micros" if t.tz is not None else "local-timestamp-micros"
        return {"type": "long", "logicalType": logical}
    return None


def _is_view(t: pa.DataType, kind: str) -> bool:
    check = getattr(pa.types, f"is_{kind}_view", None)
    return bool(check and check(t))


def decimal_size(precision: int) -> int:
    """Fewest bytes whose two's complement holds every unscaled value of this precision."""
    size = 1
    while 2 ** (8 * size - 1) - 1 < 10 ** precision - 1:
        size += 1
    return size


# ---------------------------------------------------------------- create style -> writer style


def to_writer_style(schema: str | dict) -> dict:
    """Hudi's writer rendering: nullable unions null-first, nullable fields default null."""
    return _writer(parse(schema))


def _writer(s):
    if isinstance(s, list):
        rest = [_writer(x) for x in s if x != "null"]
        return ["null", *rest] if len(rest) < len(s) else rest
    if not isinstance(s, dict):
        return s
    kind = s.get("type")
    if kind == "record":
        out = {k: v for k, v in s.items() if k != "fields"}
        out["fields"] = [_writer_field(f) for f in s["fields"]]
        return out
    if kind == "array":
        return {**s, "items": _writer(s["items"])}
    if kind == "map":
        return {**s, "values": _writer(s["values"])}
    return s


def _writer_field(f: dict) -> dict:
    t = _writer(f["type"])
    out = {"name": f["name"], "type": t}
    if "doc" in f:
        out["doc"] = f["doc"]
    if isinstance(t, list) and t and t[0] == "null":
        out["default"] = None
    elif "default" in f:
        out["default"] = f["default"]
    for k, v in f.items():
        if k not in out and k != "default":
            out[k] = v
    return out


# ---------------------------------------------------------------- meta fields


def meta_field(name: str) -> dict:
    return {"name": name, "type": ["null", "string"], "doc": "", "default": None}


def with_meta_fields(schema: str | dict, with_operation: bool = False) -> dict:
    """Prepend the `_hoodie_*` fields (and `_hoodie_operation` if asked) like Hudi's writer."""
    s = parse(schema)
    names = list(META_FIELDS) + ([OPERATION_FIELD] if with_operation else [])
    rest = [f for f in s["fields"] if f["name"] not in names]
    out = {k: v for k, v in s.items() if k != "fields"}
    out["fields"] = [meta_field(n) for n in names] + rest
    return out


def without_meta_fields(schema: str | dict) -> dict:
    s = parse(schema)
    skip = set(META_FIELDS) | {OPERATION_FIELD}
    out = {k: v for k, v in s.items() if k != "fields"}
    out["fields"] = [f for f in s["fields"] if f["name"] not in skip]
    return out


# ---------------------------------------------------------------- Avro -> Arrow


def avro_to_arrow(schema: str | dict) -> pa.Schema:
    """Arrow schema for records of this Avro record schema (what our Parquet files hold)."""
    s = parse(schema)
    if not isinstance(s, dict) or s.get("type") != "record":
        raise AvroSchemaError("top-level Avro schema must be a record")
    names: dict[str, Any] = {}
    t = _arrow(s, s.get("namespace"), names, "<root>")
    return pa.schema(list(t))


def full_name(s: dict) -> str:
    """A named schema's full name, as a later reference to it must give it."""
    return _full_name(s, None)[0]


def _full_name(s: dict, space: str | None) -> tuple[str, str | None]:
    name = s["name"]
    if "." in name:
        return name, name.rsplit(".", 1)[0]
    ns = s.get("namespace", space) or None
    return (f"{ns}.{name}" if ns else name), ns


def _arrow(s, space: str | None, names: dict, where: str) -> pa.DataType:
    if isinstance(s, list):
        t, _ = _arrow_union(s, space, names, where)
        return t
    if isinstance(s, str):
        if s in _PRIMITIVES:
            return _arrow_primitive(s, None, {}, where)
        full = s if "." in s or not space else f"{space}.{s}"
        found = names.get(full, names.get(s))
        if found is None:
            raise AvroSchemaError(f"{where}: unknown named type {s!r}")
        return found
    kind = s.get("type")
    if isinstance(kind, (dict, list)):
        return _arrow(kind, space, names, where)
    if kind == "record" or kind == "error":
        full, ns = _full_name(s, space)
        fields = []
        for f in s["fields"]:
            t, nullable = _element(f["type"], ns, names, f"{where}.{f['name']}")
            fields.append(pa.field(f["name"], t, nullable=nullable or pa.types.is_null(t)))
        t = pa.struct(fields)
        names[full] = t
        return t
    if kind == "enum":
        names[_full_name(s, space)[0]] = pa.string()
        return pa.string()
    if kind == "fixed":
        if s.get("logicalType") == "decimal":
            t = _decimal(s)
        else:
            t = pa.binary(s["size"])
        names[_full_name(s, space)[0]] = t
        return t
    if kind == "array":
        t, nullable = _element(s["items"], space, names, where)
        return pa.list_(pa.field("element", t, nullable=nullable))
    if kind == "map":
        t, nullable = _element(s["values"], space, names, where)
        return pa.map_(pa.string(), pa.field("value", t, nullable=nullable))
    if kind in _PRIMITIVES:
        return _arrow_primitive(kind, s.get("logicalType"), s, where)
    raise AvroSchemaError(f"{where}: unsupported Avro schema {json.dumps(s)[:200]}")


def _element(s, space, names, where) -> tuple[pa.DataType, bool]:
    if isinstance(s, list):
        return _arrow_union(s, space, names, where)
    return _arrow(s, space, names, where), False


def _arrow_union(branches: list, space, names, where) -> tuple[pa.DataType, bool]:
    rest = [b for b in branches if b != "null"]
    if len(rest) != 1:
        if not rest:
            return pa.null(), True
        raise AvroSchemaError(f"{where}: only [null, T] unions are supported, got {json.dumps(branches)[:200]}")
    return _arrow(rest[0], space, names, where), len(rest) < len(branches)


def _decimal(s: dict) -> pa.DataType:
    p, sc = s["precision"], s.get("scale", 0)
    return pa.decimal128(p, sc) if p <= 38 else pa.decimal256(p, sc)


def _arrow_primitive(kind: str, logical: str | None, s: dict, where: str) -> pa.DataType:
    if kind == "int":
        return {"date": pa.date32(), "time-millis": pa.time32("ms")}.get(logical or "", pa.int32())
    if kind == "long":
        return {"timestamp-micros": pa.timestamp("us", tz="UTC"),
                "timestamp-millis": pa.timestamp("ms", tz="UTC"),
                "local-timestamp-micros": pa.timestamp("us"),
                "local-timestamp-millis": pa.timestamp("ms"),
                "time-micros": pa.time64("us")}.get(logical or "", pa.int64())
    if kind == "bytes":
        return _decimal(s) if logical == "decimal" else pa.binary()
    return {"null": pa.null(), "boolean": pa.bool_(), "float": pa.float32(), "double": pa.float64(),
            "string": pa.string()}[kind]
