"""The RECORD_POSITIONS header (pyhudi.log.positions): the bytes Java's Roaring64NavigableMap writes, as Apache
Hudi's LogReaderUtils.encodePositions makes them (run-optimized, portable serialization, Base64)."""
import base64

import pytest

from pyhudi.log import decode_positions, encode_positions

CASES = [[], [0], [0, 1, 2, 5, 100_000], list(range(0, 70_000, 3)), list(range(10, 5000)), [7, 2**32 + 1, 2**40]]


def _java_bytes(spark, positions) -> bytes:
    jvm = spark.sparkContext._jvm
    bitmap = jvm.org.roaringbitmap.longlong.Roaring64NavigableMap()
    for p in positions:
        bitmap.addLong(p)
    bitmap.runOptimize()
    out = jvm.java.io.ByteArrayOutputStream()
    bitmap.serializePortable(jvm.java.io.DataOutputStream(out))
    return bytes(out.toByteArray())


@pytest.mark.parametrize("positions", CASES, ids=lambda c: f"{len(c)}-positions")
def test_header_bytes_are_javas_and_read_back(spark, positions):
    text = encode_positions(positions)
    assert base64.b64decode(text) == _java_bytes(spark, positions)
    assert decode_positions(text) == sorted(positions)
