"""Packaging hook: compile the hudi-meta connector jar (and the native bloom hashing) while the package is built."""
import importlib.util
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py


def _load_builder():
    spec = importlib.util.spec_from_file_location("_pyhudi_build", Path(__file__).parent / "pyhudi" / "build.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class BuildPyWithConnector(build_py):
    def run(self):
        builder = _load_builder()
        builder.build()  # into the source tree: editable installs use it in place
        builder.build_native()  # optional: without a C compiler numpy hashes bloom filters
        super().run()    # regular installs copy pyhudi/jars/*.jar as package data


setup(cmdclass={"build_py": BuildPyWithConnector})
