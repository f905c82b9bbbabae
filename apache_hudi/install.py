"""Brings an Apache Hudi release up on this machine: its Spark bundle from Maven, and a virtualenv with the
pyspark that runs it. Everything lands under one cache folder (`.cache/apache-hudi` in the repository, ignored
by git; `PYHUDI_APACHE_HUDI_CACHE` moves it), made once and reused.
"""
from __future__ import annotations

import os
import shutil
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
    group, artifact, version = release.bundle.split(":")
    jar = cache_dir() / "jars" / f"{artifact}-{version}.jar"
    if jar.exists():
        return jar
    if shutil.which("mvn") is None:
        raise SystemExit("Maven (mvn) is needed to fetch Apache Hudi's bundle; install it, or place "
                         f"{jar.name} in {jar.parent}")
    jar.parent.mkdir(parents=True, exist_ok=True)
    _run(["mvn", "-q", "-B", "dependency:copy", f"-Dartifact={release.bundle}",
          f"-DoutputDirectory={jar.parent}", "-Dmdep.overWriteIfNewer=true"],
         f"fetching {release.bundle}")
    if not jar.exists():
        raise SystemExit(f"Maven reported success but {jar} is not there")
    return jar


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
