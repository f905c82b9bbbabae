"""The indexes a write tags its records with (hoodie.index.type), one module each; `of` picks the write's.
Adding an index type is one module of this package with an `Index` subclass naming its type, and that name
among hoodie.index.type's values (pyhudi.config.values.INDEX_TYPES, which test_base ties to TYPES): the
registry below finds every module's classes itself."""
from __future__ import annotations

import importlib
import pkgutil

from pyhudi.write.config import WriteConfig
from pyhudi.write.index.base import Index


def _every_index() -> dict[str, type[Index]]:
    """Index subclasses of every module of this package, by their hoodie.index.type name."""
    for module in pkgutil.iter_modules(__path__):
        importlib.import_module(f"{__name__}.{module.name}")
    found, todo = {}, list(Index.__subclasses__())
    while todo:
        cls = todo.pop()
        todo.extend(cls.__subclasses__())
        if cls.__module__.startswith(f"{__name__}.") and cls.name:
            found[cls.name] = cls
    return found


TYPES: dict[str, type[Index]] = _every_index()


def of(cfg: WriteConfig) -> Index:
    """The index of a write: its checks of the options run here, before anything is written."""
    return TYPES[cfg.index_type](cfg)
