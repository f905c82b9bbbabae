"""Avro binary primitives (zig-zag varints, length-prefixed bytes, optional strings, decimal
bytes) for the places that write Avro by hand: instant container files, delete blocks,
metadata-table records; and a reader of the same for the places that read it by hand."""
from __future__ import annotations


def varint(value: int) -> bytes:
    """Base-128 varint, low groups first (Avro's and protobuf's); a negative value is taken as its
    64-bit two's complement (10 bytes), as Java writes it."""
    value &= (1 << 64) - 1
    out = bytearray()
    while value > 0x7F:
        out.append((value & 0x7F) | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


MAX_VARINT_BYTES = 10  # a 64-bit value; longer runs of continuation bytes are corrupt


def read_varint(buf: bytes, pos: int) -> tuple[int, int]:
    """The unsigned varint at `pos` and the position after it; EOFError when `buf` ends inside it,
    OverflowError when it runs past 10 bytes (no 64-bit value does)."""
    shift = result = 0
    for _ in range(MAX_VARINT_BYTES):
        if pos >= len(buf):
            raise EOFError("varint truncated")
        b = buf[pos]
        pos += 1
        result |= (b & 0x7F) << shift
        if b < 0x80:
            return result, pos
        shift += 7
    raise OverflowError(f"varint longer than {MAX_VARINT_BYTES} bytes at offset {pos - MAX_VARINT_BYTES}")


def zigzag(n: int) -> bytes:
    """An Avro int/long: zig-zag then base-128 varint."""
    return varint((n << 1) ^ (n >> 63))


def avro_bytes(b: bytes) -> bytes:
    """Avro bytes (and, UTF-8 encoded, string): the length as a long, then the bytes."""
    return zigzag(len(b)) + b


def string(s: str) -> bytes:
    return avro_bytes(s.encode("utf-8"))


def optional_string(s: str | None) -> bytes:
    """A ["null", "string"] union: branch 0 for None, else branch 1 and the string."""
    return b"\x00" if s is None else b"\x02" + string(s)


def twos_complement(n: int) -> bytes:
    """The unscaled value of an Avro decimal: minimal big-endian two's complement, as Java's
    BigInteger.toByteArray() gives it."""
    return n.to_bytes(((n if n >= 0 else ~n).bit_length() // 8) + 1, "big", signed=True)


class AvroReader:
    """Reads Avro binary front to back. Malformed input raises `error`, so that callers keep
    their own format error; `what` names the data in the truncation message."""

    def __init__(self, data: bytes, what: str = "Avro data", error: type[Exception] = ValueError):
        self.data, self.pos, self.what, self.error = data, 0, what, error

    def long(self) -> int:
        """An Avro int/long: base-128 varint, then zig-zag decoded."""
        try:
            result, self.pos = read_varint(self.data, self.pos)
        except EOFError:
            raise self.error(f"{self.what} truncated") from None
        except OverflowError as e:
            raise self.error(f"{self.what}: {e}") from None
        return (result >> 1) ^ -(result & 1)

    def raw(self, n: int) -> bytes:
        if n < 0 or self.pos + n > len(self.data):
            raise self.error(f"{self.what} truncated")
        chunk = self.data[self.pos: self.pos + n]
        self.pos += n
        return chunk

    def bytes_(self) -> bytes:
        return self.raw(self.long())

    def string(self) -> str:
        at = self.pos
        try:
            return self.bytes_().decode("utf-8")
        except UnicodeDecodeError:
            raise self.error(f"{self.what}: string at offset {at} is not UTF-8") from None

    def optional_string(self) -> str | None:
        branch = self.long()
        if branch not in (0, 1):
            raise self.error(f"bad union branch {branch} for a [null, string] field")
        return None if branch == 0 else self.string()
