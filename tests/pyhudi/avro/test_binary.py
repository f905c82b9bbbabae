import pytest

from pyhudi.avro import binary as B


@pytest.mark.parametrize("n,encoded", [(0, b"\x00"), (-1, b"\x01"), (1, b"\x02"), (-64, b"\x7f"),
                                       (64, b"\x80\x01"), (2**63 - 1, b"\xfe" + b"\xff" * 8 + b"\x01")])
def test_zigzag_long_round_trip(n, encoded):
    assert B.zigzag(n) == encoded
    r = B.AvroReader(encoded)
    assert r.long() == n and r.pos == len(encoded)


def test_bytes_and_strings():
    assert B.avro_bytes(b"ab") == b"\x04ab"
    assert B.string("é") == b"\x04\xc3\xa9"
    assert B.optional_string(None) == b"\x00"
    assert B.optional_string("k") == b"\x02\x02k"
    r = B.AvroReader(B.avro_bytes(b"ab") + B.optional_string(None) + B.optional_string("é"))
    assert (r.bytes_(), r.optional_string(), r.optional_string()) == (b"ab", None, "é")


@pytest.mark.parametrize("n,encoded", [(0, b"\x00"), (127, b"\x7f"), (128, b"\x00\x80"), (-1, b"\xff"),
                                       (-128, b"\x80"), (-129, b"\xff\x7f")])
def test_twos_complement_is_minimal_like_java(n, encoded):
    assert B.twos_complement(n) == encoded
    assert int.from_bytes(encoded, "big", signed=True) == n


def test_reader_raises_the_callers_error():
    class Bad(ValueError):
        pass

    with pytest.raises(Bad, match="payload truncated"):
        B.AvroReader(b"\x80", "payload", Bad).long()
    with pytest.raises(Bad, match="payload truncated"):
        B.AvroReader(b"\x06ab", "payload", Bad).bytes_()
    with pytest.raises(Bad, match="bad union branch 2"):
        B.AvroReader(b"\x04", "payload", Bad).optional_string()
    with pytest.raises(ValueError, match="Avro data truncated"):
        B.AvroReader(b"").raw(1)
