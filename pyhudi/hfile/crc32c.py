"""CRC32C (Castagnoli), the checksum HBase puts after every HFile block (ChecksumType.CRC32C).

Short inputs run a byte-table loop; longer ones fold 256-byte spans at once with numpy and combine
the per-span CRCs pairwise, which keeps checksumming megabyte blocks fast in pure Python.
"""
from __future__ import annotations

import numpy as np

_POLY = 0x82F63B78  # reflected form of 0x1EDC6F41
_SPAN = 256  # bytes folded per vectorised step


def _make_byte_table() -> np.ndarray:
    t = np.arange(256, dtype=np.uint32)
    for _ in range(8):
        t = np.where(t & 1, (t >> 1) ^ np.uint32(_POLY), t >> 1).astype(np.uint32)
    return t


_T0 = _make_byte_table()
_T0_LIST = [int(v) for v in _T0]


def _make_position_table() -> np.ndarray:
    """Row i: contribution of a byte at position i of a 256-byte span (zero initial state)."""
    rows = [_T0]
    for _ in range(_SPAN - 1):
        prev = rows[-1]
        rows.append((prev >> 8) ^ _T0[prev & 0xFF])
    return np.stack(rows[::-1])


_POSITION = _make_position_table()
_COLUMNS = np.arange(_SPAN)
_SHIFT_TABLES: list[np.ndarray] = []  # [level] -> (4, 256): state after 256 * 2**level zero bytes


def _apply_zero_bytes(state: np.ndarray, count: int) -> np.ndarray:
    for _ in range(count):
        state = (state >> 8) ^ _T0[state & 0xFF]
    return state


def _apply_shift(table: np.ndarray, state: np.ndarray) -> np.ndarray:
    return (table[0][state & 0xFF] ^ table[1][(state >> 8) & 0xFF]
            ^ table[2][(state >> 16) & 0xFF] ^ table[3][state >> 24])


def _shift_table(level: int) -> np.ndarray:
    """The register is linear in its 4 bytes, so advancing it by n zero bytes is 4 lookups."""
    while len(_SHIFT_TABLES) <= level:
        basis = (np.arange(256, dtype=np.uint32)[None, :] << (8 * np.arange(4, dtype=np.uint32))[:, None])
        if not _SHIFT_TABLES:
            _SHIFT_TABLES.append(_apply_zero_bytes(basis, _SPAN))
        else:
            last = _SHIFT_TABLES[-1]
            _SHIFT_TABLES.append(_apply_shift(last, _apply_shift(last, basis)))
    return _SHIFT_TABLES[level]


def _crc32c_small(data: bytes, crc: int = 0) -> int:
    """The plain table-driven CRC32C; also the reference the vectorised path is tested against."""
    crc ^= 0xFFFFFFFF
    table = _T0_LIST
    for b in data:
        crc = (crc >> 8) ^ table[(crc ^ b) & 0xFF]
    return crc ^ 0xFFFFFFFF


def crc32c(data: bytes | bytearray | memoryview) -> int:
    """CRC32C of data. Spans of 256 bytes are folded with numpy and the per-span CRCs combined
    pairwise; leading zero bytes do not change a zero-initialised CRC, so the input is
    zero-padded in front to whole spans."""
    n = len(data)
    if n < 2 * _SPAN:
        return _crc32c_small(bytes(data))
    padded = np.zeros(-(-n // _SPAN) * _SPAN, dtype=np.uint8)
    padded[len(padded) - n:] = np.frombuffer(data, dtype=np.uint8)
    # The all-ones initial register equals XOR-ing 0xFF into the first four message bytes.
    padded[len(padded) - n:len(padded) - n + 4] ^= 0xFF
    spans = np.bitwise_xor.reduce(_POSITION[_COLUMNS, padded.reshape(-1, _SPAN)], axis=1)
    level = 0
    while len(spans) > 1:
        if len(spans) % 2:
            spans = np.concatenate([np.zeros(1, dtype=np.uint32), spans])
        spans = _apply_shift(_shift_table(level), spans[0::2]) ^ spans[1::2]
        level += 1
    return int(spans[0]) ^ 0xFFFFFFFF
