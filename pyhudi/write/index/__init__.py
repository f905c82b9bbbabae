"""The indexes a write tags its records with (hoodie.index.type), one module each; `of` picks the write's.
Adding an index type is one module with an `Index` subclass, and its class named in TYPES (its name joins
hoodie.index.type's values in pyhudi.config.values, which test_base ties to TYPES)."""
from __future__ import annotations

from pyhudi.write.config import WriteConfig
from pyhudi.write.index.base import Index
from pyhudi.write.index.bloom import BloomIndex
from pyhudi.write.index.bucket import BucketIndex
from pyhudi.write.index.global_bloom import GlobalBloomIndex
from pyhudi.write.index.record import RecordIndex
from pyhudi.write.index.simple import GlobalSimpleIndex, SimpleIndex

TYPES: dict[str, type[Index]] = {cls.name: cls for cls in (
    SimpleIndex, GlobalSimpleIndex, BloomIndex, GlobalBloomIndex, BucketIndex, RecordIndex)}


def of(cfg: WriteConfig) -> Index:
    """The index of a write: its checks of the options run here, before anything is written."""
    return TYPES[cfg.index_type](cfg)
