"""Brings an Apache Hudi release up on this machine: its Spark bundle from Maven, and a virtualenv with the
pyspark that runs it. Everything lands under one cache folder (`.cache/apache-hudi` in the repository, ignored
by git; `PYHUDI_APACHE_HUDI_CACHE` moves it), made once and reused.
"""
from __future__ import annotations

import os
import subprocess
import sys
import venv
from pathlib import Path

from apache_hudi.releases import PYARROW, PYSPARK, Release

REPOSITORY = Path(__file__).resolve().parent.parent


def cache_dir() -> Path:
    return Path(os.environ.get("PYHUDI_APACHE_HUDI_CACHE") or REPOSITORY / ".cache" / "apache-hudi")


def bundle_jar(release: Release) -> Path:
    """The release's Spark bundle, copied out of Maven's local repository into the cache."""
    from pyhudi.build import BuildError, maven_copy

    _, artifact, version = release.bundle.split(":")
    if not (cache_dir() / "jars" / f"{artifact}-{version}.jar").exists():
        print(f"apache_hudi: fetching {release.bundle}", file=sys.stderr, flush=True)
    try:
        return maven_copy(release.bundle, cache_dir() / "jars", "Apache Hudi's bundle")
    except BuildError as e:
        raise SystemExit(f"apache_hudi: {e}") from None


def python() -> Path:
    """The interpreter of the harness's virtualenv (pyspark 3.5 and pyarrow), made on first use."""
    home = cache_dir() / "venv"
    exe = home / "bin" / "python"
    marker = home / "installed.txt"
    wanted = f"{PYSPARK} {PYARROW}\n"
    if exe.exists() and marker.exists() and marker.read_text() == wanted:
        return exe
    venv.EnvBuilder(with_pip=True, clear=True).create(home)
    _run([str(exe), "-m", "pip", "install", "--quiet", PYSPARK, PYARROW], f"installing {PYSPARK} for Apache Hudi")
    marker.write_text(wanted)
    return exe


def _run(argv: list[str], what: str) -> None:
    print(f"apache_hudi: {what}", file=sys.stderr, flush=True)
    done = subprocess.run(argv, capture_output=True, text=True)
    if done.returncode != 0:
        tail = "\n".join((done.stdout + done.stderr).strip().splitlines()[-15:])
        raise SystemExit(f"apache_hudi: {what} failed (exit {done.returncode}):\n{tail}")
