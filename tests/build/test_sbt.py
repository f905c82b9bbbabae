"""build.sbt builds the connector: sbt (its launcher fetched with Maven by sbt_build, its caches in
.cache/sbt) and pyhudi.build's javac, run on one snapshot of the sources, make jars of the same classes;
sbt's test jar holds the conformance runner; and sbt leaves nothing in the user's home.

A real run: with no network, or no Maven, it fails and says why. Outputs stay in a temporary copy, never in
pyhudi/jars or build/ of the repository (which the rest of the suite uses)."""
from __future__ import annotations

import shutil
import sys
import zipfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

import sbt_build
from conftest import PROJECT

SOURCES = ("connector/src/main", "connector/src/test")


def _digest(root: Path, builder) -> str:
    return ":".join(builder.sources_digest(root / s) for s in SOURCES)


def _snapshot(target: Path, builder) -> Path:
    """A copy of what both builds read, taken while no one changed it: the sources' digest is the same
    before and after the copy, and the copy's is that digest (others edit connector/ as the suite runs)."""
    for _ in range(10):
        if target.exists():
            shutil.rmtree(target)
        before = _digest(PROJECT, builder)
        try:
            target.mkdir()
            shutil.copy2(PROJECT / "build.sbt", target / "build.sbt")
            shutil.copytree(PROJECT / "project", target / "project", ignore=shutil.ignore_patterns("target", "project"))
            for s in SOURCES:
                shutil.copytree(PROJECT / s, target / s)
            (target / "pyhudi").mkdir()
            shutil.copy2(PROJECT / "pyhudi" / "build.py", target / "pyhudi" / "build.py")
        except (OSError, shutil.Error):
            continue  # a file went away mid-copy
        if _digest(PROJECT, builder) == before == _digest(target, builder):
            return target
    pytest.fail("connector/src changed during each of 10 copies: no snapshot to build")


def _files(jar: Path) -> set[str]:
    with zipfile.ZipFile(jar) as z:
        return {n for n in z.namelist() if not n.endswith("/")}


def _classes(jar: Path) -> set[str]:
    return {n for n in _files(jar) if n.endswith(".class")}


@pytest.fixture(scope="module")
def builds(tmp_path_factory):
    """(javac's main and test jars, sbt's main and test jars, sbt's run, the home sbt was given)."""
    tmp = tmp_path_factory.mktemp("sbt")
    snapshot = _snapshot(tmp / "project", sbt_build.javac_builder(PROJECT))
    home = tmp / "home"
    home.mkdir()

    def javac():
        builder = sbt_build.javac_builder(snapshot)  # PACKAGE_DIR is the snapshot's: its jars land there
        test_jar = builder.build_tests(quiet=True)
        return builder.JAR_DIR / builder.JAR_NAME, test_jar

    def sbt():
        return sbt_build.run(["connector/package", "connector/Test/package"], project=snapshot, user_home=home)

    with ThreadPoolExecutor(2) as pool:
        javac_jars, sbt_run = pool.submit(javac), pool.submit(sbt)
        try:
            main, tests = javac_jars.result()
            ran = sbt_run.result()
        except sbt_build.SbtError as e:
            pytest.fail(f"the sbt build failed: {e}")
    print(f"sbt: launcher fetch {ran.fetch_seconds:.1f} s, sbt run {ran.sbt_seconds:.1f} s", file=sys.stderr)
    out = snapshot / "build" / "sbt"
    return main, tests, out / "hudi-meta-connector.jar", out / "hudi-meta-connector-tests.jar", ran, home


def test_sbt_jar_holds_the_classes_of_the_javac_jar(builds):
    javac_main, _, sbt_main, _, ran, _ = builds
    assert sbt_main.is_file(), ran.output[-3000:]
    javac_classes, sbt_classes = _classes(javac_main), _classes(sbt_main)
    assert "io/hudimeta/HudiException.class" in javac_classes
    assert sorted(javac_classes - sbt_classes) == [] and sorted(sbt_classes - javac_classes) == []
    # resources too (the DataSourceRegister service file), and nothing else: Spark is not packed
    assert _files(sbt_main) - sbt_classes == _files(javac_main) - javac_classes


def test_sbt_test_jar_holds_the_conformance_runner(builds):
    _, javac_tests, _, sbt_tests, ran, _ = builds
    assert sbt_tests.is_file(), ran.output[-3000:]
    assert "io/hudimeta/conformance/ConformanceCheck.class" in _classes(sbt_tests)
    assert _classes(sbt_tests) == _classes(javac_tests)


def test_sbt_compiles_against_the_installed_pyspark_and_writes_nothing_home(builds):
    *_, ran, home = builds
    jars = sbt_build.javac_builder(PROJECT).spark_jars_dir()
    assert f"the jars of {jars}" in ran.output  # build.sbt's load message
    assert sorted(str(p.relative_to(home)) for p in home.rglob("*")) == []
