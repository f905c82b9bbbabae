"""The RECORD_POSITIONS log block header: the base-file row positions of a block's records, as Apache
Hudi 1.x writes them (LogReaderUtils.encodePositions): a 64-bit roaring bitmap (run-optimized, the
portable serialization Java's Roaring64NavigableMap and CRoaring share) in standard Base64. The block's
records are in position order, so the i-th record sits at the bitmap's i-th position."""
from __future__ import annotations

import base64
from typing import Iterable

from pyroaring import BitMap64


def encode_positions(positions: Iterable[int]) -> str:
    bitmap = BitMap64(positions)
    bitmap.run_optimize()
    return base64.b64encode(bitmap.serialize()).decode("ascii")


def decode_positions(text: str) -> list[int]:
    return list(BitMap64.deserialize(base64.b64decode(text)))
