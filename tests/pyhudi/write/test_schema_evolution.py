"""Which changes of the input's columns a write accepts (the writes themselves: test_hudi_table)."""
import pytest

from pyhudi.write.schema_evolution import IncompatibleSchemaError, evolve


def _schema(*fields):
    return {"type": "record", "name": "t", "fields": [{"name": n, "type": t} for n, t in fields]}


MICROS = {"type": "long", "logicalType": "timestamp-micros"}
TABLE = _schema(("id", "string"), ("n", ["null", "long"]), ("at", ["null", MICROS]))


def test_new_nullable_columns_are_added_after_the_tables():
    out = evolve(TABLE, _schema(("extra", ["null", "double"]), ("id", "string")))
    assert [f["name"] for f in out["fields"]] == ["id", "n", "at", "extra"]
    assert evolve(TABLE, _schema(("id", "string"))) == TABLE  # a column the input lacks stays


def test_the_input_may_be_narrower_than_the_table():
    assert evolve(TABLE, _schema(("n", ["null", "int"]))) == TABLE


@pytest.mark.parametrize("incoming, match", [
    (_schema(("extra", "double")), "new column extra must be nullable"),
    (_schema(("n", ["null", "string"])), "column n is long in the table but string in the input"),
    (_schema(("at", ["null", "long"])), "column at is timestamp-micros in the table but long"),
])
def test_incompatible_changes_are_named(incoming, match):
    with pytest.raises(IncompatibleSchemaError, match=match):
        evolve(TABLE, incoming)
