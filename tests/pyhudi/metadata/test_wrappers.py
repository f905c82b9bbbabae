"""Min/max value wrappers: which one a column type gets, and Java's order of values."""
import pytest

from pyhudi.metadata.wrappers import (
    BOOLEAN,
    BYTES,
    DATE,
    DECIMAL,
    DOUBLE,
    FLOAT,
    INT,
    LONG,
    STRING,
    compare,
    extreme,
    pick,
    wrap,
    wrapper_for_type,
    wrapper_names,
)


def test_wrapper_names_and_column_types():
    assert wrapper_names()[:8] == ("BooleanWrapper", "IntWrapper", "LongWrapper", "FloatWrapper",
                                   "DoubleWrapper", "BytesWrapper", "StringWrapper", "DateWrapper")
    cases = {"string": STRING, "large_string": STRING, "int32": INT, "int16": INT,
             "int64": LONG, "timestamp[us, tz=UTC]": LONG, "float": FLOAT, "double": DOUBLE,
             "bool": BOOLEAN, "binary": BYTES, "decimal128(10, 2)": DECIMAL, "date32[day]": DATE,
             "list<item: string>": None, "struct<a: int32>": None}
    assert {t: wrapper_for_type(t) for t in cases} == cases


def test_java_order():
    # Java String.compareTo order for strings (UTF-16 units), signed bytes for ByteBuffer
    assert compare(wrap("\uffff", STRING), wrap("\U0001F600", STRING)) == 1
    assert compare(wrap(b"\x80", BYTES), wrap(b"\x01", BYTES)) == -1


@pytest.mark.parametrize("values", [
    [wrap(3, LONG), None, wrap(-1, LONG), wrap(7, LONG), wrap(-1, LONG)],
    [wrap("b", STRING), wrap("\U0001F600", STRING), wrap("\uffff", STRING), wrap("a", STRING)],  # UTF-16 order
    [wrap(0.0, DOUBLE), wrap(-0.0, DOUBLE), wrap(float("nan"), DOUBLE), wrap(-2.5, DOUBLE)],
    [wrap(1, LONG), wrap("x", STRING), wrap(0, LONG)],  # mixed kinds: the fold's rule
    [wrap("b", STRING), wrap("a", STRING), wrap("c", STRING), wrap("B", STRING)],  # ASCII: Python's own order
    [wrap(2, DATE), wrap(-3, DATE), wrap(9, DATE)],
    [wrap(True, BOOLEAN), wrap(False, BOOLEAN)],
    [None, None],
])
def test_extreme_is_pick_folded(values):
    for smaller in (True, False):
        folded = None
        for v in values:
            folded = pick(folded, v, smaller)
        got = extreme(values, smaller)
        assert repr(got) == repr(folded)  # repr: NaN == NaN, -0.0 apart from 0.0
