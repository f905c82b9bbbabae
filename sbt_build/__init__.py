"""Runs the repository's build.sbt with nothing installed by hand: the sbt launcher is fetched with Maven
(`org.scala-sbt:sbt-launch`, the version project/build.properties pins), as apache_hudi fetches Apache Hudi's
bundles, and every cache sbt keeps (its boot folder, coursier's downloads, its global base, the ivy home)
lands under one folder: `.cache/sbt` in the repository, ignored by git (`PYHUDI_SBT_CACHE` moves it).
Nothing is written to the user's home but Maven's own local repository, which holds the launcher.

The connector is compiled against the installed pyspark's jars, the classpath `python -m pyhudi.build` gives
javac (PYHUDI_SPARK_JARS, which build.sbt reads). Proxies named in the environment (https_proxy, http_proxy,
no_proxy) are handed to sbt's JVM; SBT_OPTS is added last, so a `-Dsbt.repository.config=FILE` there (a
mirror, say) wins over the repositories file made here, which names Maven Central alone.

    python -m sbt_build connector/package connector/Test/package
"""
from __future__ import annotations

import importlib.util
import os
import shlex
import subprocess
import sys
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from urllib.parse import urlsplit

REPOSITORY = Path(__file__).resolve().parent.parent
TIMEOUT = 1800  # seconds for one sbt run: a cold cache downloads ~160 MB
# the launcher's predefined names, no host: the local ivy repository and Maven Central
REPOSITORIES = "[repositories]\n  local\n  maven-central\n"


class SbtError(RuntimeError):
    pass


def cache_dir() -> Path:
    return Path(os.environ.get("PYHUDI_SBT_CACHE") or REPOSITORY / ".cache" / "sbt")


def sbt_version(project: Path = REPOSITORY) -> str:
    """sbt.version of project/build.properties: the sbt the build runs on, and the launcher fetched."""
    props = project / "project" / "build.properties"
    for line in props.read_text(encoding="utf-8").splitlines():
        key, _, value = line.partition("=")
        if key.strip() == "sbt.version" and value.strip():
            return value.strip()
    raise SbtError(f"{props} names no sbt.version")


def javac_builder(project: Path = REPOSITORY) -> ModuleType:
    """project's pyhudi/build.py, loaded alone (as setup.py does): javac's side of the build, and where it
    finds the JDK and Spark's jars."""
    path = project / "pyhudi" / "build.py"
    spec = importlib.util.spec_from_file_location(f"_pyhudi_build_{abs(hash(str(path)))}", path)
    if spec is None or spec.loader is None:
        raise SbtError(f"cannot load {path}")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def launcher_jar(version: str | None = None) -> Path:
    """sbt-launch-<version>.jar in the cache, copied out of Maven's local repository on first use."""
    version = version or sbt_version()
    builder = javac_builder()
    try:
        return builder.maven_copy(f"org.scala-sbt:sbt-launch:{version}", cache_dir() / "launcher", "the sbt launcher")
    except builder.BuildError as e:
        raise SbtError(str(e)) from None


def proxy_flags(env: Mapping[str, str] = os.environ) -> list[str]:
    """JVM flags for the proxies the environment names (Java reads none of these variables itself)."""
    flags = []
    for scheme in ("https", "http"):
        url = env.get(f"{scheme}_proxy") or env.get(f"{scheme.upper()}_PROXY")
        parts = urlsplit(url if url and "://" in url else f"http://{url}") if url else None
        if parts and parts.hostname:
            flags += [f"-D{scheme}.proxyHost={parts.hostname}", f"-D{scheme}.proxyPort={parts.port or 80}"]
    hosts = [h.strip() for h in (env.get("no_proxy") or env.get("NO_PROXY") or "").split(",") if h.strip()]
    if flags and hosts:  # Java's form: a|*.b (https reads http.nonProxyHosts too)
        flags.append("-Dhttp.nonProxyHosts=" + "|".join("*" + h if h.startswith(".") else h for h in hosts))
    return flags


def command(args: list[str], project: Path = REPOSITORY, user_home: Path | None = None) -> list[str]:
    """The java command line that runs sbt ARGS on PROJECT in batch mode with every cache under cache_dir()."""
    cache = cache_dir()
    cache.mkdir(parents=True, exist_ok=True)
    repositories = cache / "repositories"
    if not repositories.exists() or repositories.read_text() != REPOSITORIES:
        repositories.write_text(REPOSITORIES)
    java = str(Path(javac_builder().find_javac()).with_name("java"))
    flags = [
        "-Xmx2g", "-Xss4m",
        f"-Dsbt.boot.directory={cache / 'boot'}",
        f"-Dsbt.global.base={cache / 'global'}",
        f"-Dsbt.ivy.home={cache / 'ivy2'}",
        f"-Dsbt.coursier.home={cache / 'coursier'}",
        f"-Dsbt.repository.config={repositories}",
        f"-Djna.tmpdir={cache / 'jna'}",
        "-Dsbt.ci=true", "-Dsbt.supershell=false", "-Dsbt.color=false", "-Dsbt.log.noformat=true",
        *proxy_flags(),
    ]
    if user_home is not None:
        flags.append(f"-Duser.home={user_home}")
    flags += shlex.split(os.environ.get("SBT_OPTS", ""))
    return [java, *flags, "-jar", str(launcher_jar(sbt_version(project))), *args]


@dataclass
class Run:
    output: str
    fetch_seconds: float  # fetching the launcher (0 when cached)
    sbt_seconds: float  # the sbt run: its own resolution, loading the build, compiling


def run(args: list[str], project: Path = REPOSITORY, user_home: Path | None = None, capture: bool = True,
        timeout: float = TIMEOUT) -> Run:
    """sbt ARGS in PROJECT (a folder with build.sbt); SbtError with the log's tail when it fails."""
    start = time.monotonic()
    argv = command(args, project, user_home)
    fetched = time.monotonic()
    env = dict(os.environ)
    env.setdefault("PYHUDI_SPARK_JARS", str(javac_builder().spark_jars_dir()))
    env["COURSIER_CACHE"] = str(cache_dir() / "coursier" / "cache")  # where sbt.coursier.home puts it
    try:
        done = subprocess.run(argv, cwd=project, env=env, stdin=subprocess.DEVNULL, timeout=timeout, text=True,
                              stdout=subprocess.PIPE if capture else None,
                              stderr=subprocess.STDOUT if capture else None)
    except subprocess.TimeoutExpired as e:
        raise SbtError(f"sbt {' '.join(args)} did not finish in {timeout:.0f} s") from e
    output = done.stdout or ""
    if done.returncode != 0:
        raise SbtError(f"sbt {' '.join(args)} failed (exit {done.returncode}) in {project}:\n" + _tail(output, 40))
    return Run(output, fetched - start, time.monotonic() - fetched)


def _tail(text: str, lines: int = 15) -> str:
    return "\n".join(text.strip().splitlines()[-lines:])


def main(argv: list[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv) or ["connector/package", "connector/Test/package"]
    try:
        done = run(args, capture=False)
    except SbtError as e:
        print(f"sbt_build: {e}", file=sys.stderr)
        return 1
    print(f"sbt_build: launcher {done.fetch_seconds:.0f} s, sbt {done.sbt_seconds:.0f} s "
          f"(caches in {cache_dir()})", file=sys.stderr)
    return 0
