"""The table schema after a write: the table's current schema, the input's, and which changes
of the input's columns a write accepts."""
from __future__ import annotations

from pyhudi.avro import schema as avro_schema
from pyhudi.errors import HudiError
from pyhudi.storage import Storage
from pyhudi.table import instant_metadata as im
from pyhudi.table import properties
from pyhudi.table.timeline import Timeline

# (input type, table type): an input column of the first type is read as the second (Avro's promotions)
_WIDER = {("int", "long"), ("int", "float"), ("int", "double"), ("long", "float"), ("long", "double"),
          ("float", "double"), ("string", "bytes"), ("bytes", "string")}


class IncompatibleSchemaError(HudiError, ValueError):
    pass


def current_schema(storage: Storage, base: str, props: dict[str, str]) -> dict:
    """The table's Avro create schema: the latest completed write's, else the one it was created with."""
    timeline = Timeline.for_table(storage, base, props)
    for inst in reversed(timeline.completed(("commit", "deltacommit", "replacecommit"))):
        schema = im.schema_of(im.decode(timeline.read(inst)))
        if schema:
            return avro_schema.parse(schema)
    return avro_schema.parse(props[properties.CREATE_SCHEMA])


def input_schema(df, table_name: str) -> dict:
    """The Avro create schema of a DataFrame's data columns (meta columns other than
    _hoodie_is_deleted left out)."""
    from pyspark.sql.pandas.types import to_arrow_schema
    from pyspark.sql.types import StructType

    # the fields picked from the (cached) schema: a select would have Spark analyse the plan again
    data = StructType([f for f in df.schema.fields
                       if not f.name.startswith("_hoodie_") or f.name == "_hoodie_is_deleted"])
    return avro_schema.arrow_to_avro(to_arrow_schema(data, timezone="UTC"), table_name, avro_schema.CREATE)


def _branch(t):
    """The non-null branch of a nullable union, and whether it was nullable."""
    if isinstance(t, list):
        rest = [b for b in t if b != "null"]
        return (rest[0] if len(rest) == 1 else t), "null" in t
    return t, False


def required_columns(schema: dict | None) -> list[str]:
    """The data columns of an Avro create schema that may not hold a null (no null branch)."""
    fields = (schema or {}).get("fields", [])
    return [f["name"] for f in fields if not f["name"].startswith("_hoodie_") and not _branch(f["type"])[1]]


def _type_name(t) -> str:
    t, _ = _branch(t)
    if isinstance(t, dict):
        return t.get("logicalType") or t["type"]
    return t


def evolve(current: dict, incoming: dict) -> dict:
    """The table schema after writing `incoming`: new nullable columns are added; a column may
    not change type (except Avro-compatible widening of the input to the table's type) and a
    new column must be nullable. Anything else fails before a file is written."""
    by_name = {f["name"]: f for f in current["fields"]}
    out = [dict(f) for f in current["fields"]]
    for f in incoming["fields"]:
        old = by_name.get(f["name"])
        if old is None:
            if not _branch(f["type"])[1]:
                raise IncompatibleSchemaError(
                    f"new column {f['name']} must be nullable: older records have no value for it")
            out.append(f)
            continue
        a, b = _type_name(old["type"]), _type_name(f["type"])
        if a != b and (b, a) not in _WIDER:
            raise IncompatibleSchemaError(
                f"column {f['name']} is {a} in the table but {b} in the input; this change is not "
                "compatible (cast the column to the table's type, or write a new table)")
    return {**current, "fields": out}
