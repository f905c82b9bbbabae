"""Versions of every system under test and facts about the machine, for the report."""
from __future__ import annotations

import os
import platform
import subprocess
import sys
from importlib import metadata

from bench.systems import SYSTEMS

PACKAGES = ["pyhudi", "pyspark", "hudi", "deltalake", "pyiceberg", "pyarrow", "numpy", "sqlalchemy",
            "matplotlib", "rich"]


def _version(dist: str) -> str | None:
    try:
        return metadata.version(dist)
    except metadata.PackageNotFoundError:
        return None


_COMMIT: list = []


def pyhudi_commit() -> str | None:
    """The project's commit (+ "+local changes" when pyhudi/ or connector/ differ from it), read once
    per process: the code a run imported."""
    if not _COMMIT:
        _COMMIT.append(_git_commit())
    return _COMMIT[0]


def _git_commit() -> str | None:
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    try:
        out = subprocess.run(["git", "-C", here, "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                             timeout=10)
        dirty = subprocess.run(["git", "-C", here, "status", "--porcelain", "--", "pyhudi", "connector"],
                               capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.SubprocessError):
        return None
    if out.returncode != 0:
        return None
    return out.stdout.strip() + ("+local changes" if dirty.stdout.strip() else "")


def _cpu_model() -> str:
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def _memory_gib() -> float | None:
    try:
        return round(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2 ** 30, 1)
    except (ValueError, OSError, AttributeError):
        return None


def collect(java: str | None = None) -> dict:
    versions = {p: _version(p) for p in PACKAGES}
    systems = {name: {"package": s.package, "version": versions.get(s.package) or _version(s.package),
                      "installed": s.available(), "what": s.what} for name, s in SYSTEMS.items()}
    return {
        "python": sys.version.split()[0],
        "platform": platform.platform(),
        "cpu": _cpu_model(),
        "cores": os.cpu_count(),
        "memory_gib": _memory_gib(),
        "java": java,
        "pyhudi_commit": pyhudi_commit(),
        "packages": versions,
        "systems": systems,
    }
