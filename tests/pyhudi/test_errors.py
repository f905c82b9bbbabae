"""Every error pyhudi raises on purpose is a HudiError (and still the builtin it refines)."""
import importlib
import inspect
import pkgutil

import pyhudi
from pyhudi.errors import HudiError


def _modules():
    for info in pkgutil.walk_packages(pyhudi.__path__, "pyhudi."):
        if not info.name.endswith(".__main__") and info.name not in ("pyhudi.build", "pyhudi.demo"):  # they run
            yield importlib.import_module(info.name)


def test_every_pyhudi_exception_derives_from_hudi_error():
    found = {obj for module in _modules() for _, obj in inspect.getmembers(module, inspect.isclass)
             if issubclass(obj, BaseException) and obj.__module__.startswith("pyhudi.")}
    assert len(found) >= 10  # the walk reached the packages
    assert sorted(c.__qualname__ for c in found if not issubclass(c, HudiError)) == []


def test_errors_keep_the_builtin_they_refine():
    from pyhudi.config import OptionError
    from pyhudi.storage import StorageError

    assert issubclass(OptionError, ValueError) and issubclass(StorageError, OSError)
