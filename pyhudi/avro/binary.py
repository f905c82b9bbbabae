"""Avro binary encoding primitives (zig-zag varints, length-prefixed bytes) for the places that
write Avro by hand: instant container files, delete blocks, metadata-table records."""


def zigzag(n: int) -> bytes:
    """An Avro int/long: zig-zag then base-128 varint."""
    n = (n << 1) ^ (n >> 63)
    out = bytearray()
    while n & ~0x7F:
        out.append((n & 0x7F) | 0x80)
        n >>= 7
    out.append(n)
    return bytes(out)


def avro_bytes(b: bytes) -> bytes:
    """Avro bytes (and, UTF-8 encoded, string): the length as a long, then the bytes."""
    return zigzag(len(b)) + b
