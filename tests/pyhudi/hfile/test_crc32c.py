"""CRC32C: known answers, and the numpy path against the byte-at-a-time loop."""
from __future__ import annotations

import random

from pyhudi.hfile import crc32c as crc32c_module
from pyhudi.hfile.crc32c import crc32c


def test_crc32c_known_answers_and_vectorised_path():
    assert crc32c(b"") == 0
    assert crc32c(b"123456789") == 0xE3069283  # the standard CRC-32C check value
    assert crc32c(bytes(32)) == 0x8A9136AA  # RFC 3720 B.4: 32 bytes of zeros
    assert crc32c(b"\xff" * 32) == 0x62A8AB43  # RFC 3720 B.4: 32 bytes of 0xFF
    rng = random.Random(7)
    for n in (511, 512, 513, 1000, 4096, 16383, 16384, 16385, 70000):
        data = rng.randbytes(n)
        assert crc32c(data) == crc32c_module._crc32c_small(data), n
