"""Offline build of the hudi-meta connector jar, and of pyhudi's native bloom-filter hashing.

The connector (connector/src/main/java) is compiled with the JDK's javac against the jars of the
installed pyspark, then packed with its resources into pyhudi/jars/hudi-meta-connector.jar. No
build tool and no artifact repository is involved, so it works on machines that only reach PyPI.
pyhudi/native/bloom.c is compiled by the C compiler (CC, else cc or gcc on PATH) into
pyhudi/native/libhudi_bloom.so; without a compiler that step is skipped with a note, and bloom
filters are hashed with numpy (the same bits, about 4x slower).

Run by hand:  python -m pyhudi.build [--force]
"""
from __future__ import annotations

import argparse
import hashlib
import os
import re
import shutil
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

JAR_NAME = "hudi-meta-connector.jar"
PACKAGE_DIR = Path(__file__).resolve().parent
JAR_DIR = PACKAGE_DIR / "jars"
STAMP_NAME = JAR_NAME + ".sha256"
TEST_JAR_NAME = "hudi-meta-connector-tests.jar"
TEST_JAR_DIR = PACKAGE_DIR.parent / "build" / "test-jars"
MIN_JDK = 17


class BuildError(RuntimeError):
    # not a HudiError: setup.py loads this file alone, before pyhudi (and what it imports) is installed
    pass


def source_root() -> Path | None:
    """connector/ beside the package in a source checkout; None in an installed wheel."""
    root = PACKAGE_DIR.parent / "connector" / "src" / "main"
    return root if (root / "java").is_dir() else None


def spark_jars_dir() -> Path:
    override = os.environ.get("PYHUDI_SPARK_JARS")
    if override:
        return Path(override)
    try:
        import pyspark
    except ImportError as e:
        raise BuildError("pyspark is not installed: the connector is compiled against its jars "
                         "(pip install 'pyspark>=4.0,<5')") from e
    return Path(pyspark.__file__).resolve().parent / "jars"


def find_javac() -> str:
    """javac of a JDK 17+, from JAVA_HOME or PATH; a clear error otherwise."""
    candidates = []
    if os.environ.get("JAVA_HOME"):
        candidates.append(str(Path(os.environ["JAVA_HOME"]) / "bin" / "javac"))
    found = shutil.which("javac")
    if found:
        candidates.append(found)
    for javac in candidates:
        version = _javac_major(javac)
        if version is not None and version >= MIN_JDK:
            return javac
    raise BuildError(f"no JDK {MIN_JDK}+ found (looked at JAVA_HOME and PATH for javac: "
                     f"{candidates or 'none'}); install a JDK {MIN_JDK} or newer "
                     "(e.g. the openjdk-17-jdk-headless package) and set JAVA_HOME")


def _javac_major(javac: str) -> int | None:
    try:
        out = subprocess.run([javac, "-version"], capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        return None
    m = re.search(r"javac (\d+)", out.stdout + out.stderr)
    return int(m.group(1)) if m else None


def _source_files(root: Path) -> list[Path]:
    return sorted(p for p in root.rglob("*") if p.is_file())


def sources_digest(root: Path) -> str:
    h = hashlib.sha256()
    for p in _source_files(root):
        h.update(str(p.relative_to(root)).encode())
        h.update(p.read_bytes())
    return h.hexdigest()


def is_stale(root: Path, jar_dir: Path = JAR_DIR) -> bool:
    stamp = jar_dir / STAMP_NAME
    if not (jar_dir / JAR_NAME).exists() or not stamp.exists():
        return True
    return stamp.read_text().strip() != sources_digest(root)


def build(jar_dir: Path = JAR_DIR, force: bool = False, quiet: bool = False) -> Path:
    root = source_root()
    jar = jar_dir / JAR_NAME
    if root is None:
        if jar.exists():
            return jar
        raise BuildError(f"{jar} is missing and no connector sources are available to build it")
    return _compile(root, jar, [], force, quiet)


def build_tests(jar_dir: Path = TEST_JAR_DIR, force: bool = False, quiet: bool = False) -> Path:
    """The test jar: connector/src/test/java (inspectors, conformance runner) against the main jar.

    Not part of the package: the tests put it on their session's classpath beside the main jar.
    """
    main_jar = build(force=force, quiet=quiet)
    root = PACKAGE_DIR.parent / "connector" / "src" / "test"
    if not (root / "java").is_dir():
        raise BuildError(f"{root / 'java'} is missing: the test jar is built from a source checkout")
    return _compile(root, jar_dir / TEST_JAR_NAME, [main_jar], force, quiet)


def _compile(root: Path, jar: Path, classpath: list[Path], force: bool, quiet: bool) -> Path:
    """javac of root/java (+ root/resources) into jar, unless the sha256 stamp beside it is current."""
    stamp = jar.with_name(jar.name + ".sha256")
    # the stamp names the sources as they were when compiling began: an edit made during the
    # compile leaves the jar stale, and the next call rebuilds it; a test jar's stamp also names
    # the main jar it was compiled against
    digest = sources_digest(root) + "".join(":" + p.with_name(p.name + ".sha256").read_text().strip()
                                            for p in classpath if p.with_name(p.name + ".sha256").exists())
    if not force and jar.exists() and stamp.exists() and stamp.read_text().strip() == digest:
        return jar
    javac = find_javac()
    cp = os.pathsep.join([str(spark_jars_dir() / "*"), *map(str, classpath)])
    java_files = [str(p) for p in (root / "java").rglob("*.java")]
    with tempfile.TemporaryDirectory(prefix="hudi-meta-build-") as tmp:
        classes = Path(tmp) / "classes"
        classes.mkdir()
        argfile = Path(tmp) / "sources.txt"
        argfile.write_text("\n".join(java_files))
        cmd = [javac, "--release", str(MIN_JDK), "-nowarn", "-encoding", "UTF-8",
               "-cp", cp, "-d", str(classes), f"@{argfile}"]
        if not quiet:
            print(f"pyhudi: compiling {len(java_files)} sources of {root} with {javac}", file=sys.stderr)
        done = subprocess.run(cmd, capture_output=True, text=True)
        if done.returncode != 0:
            raise BuildError("javac failed:\n" + done.stdout + done.stderr)
        jar.parent.mkdir(parents=True, exist_ok=True)
        _pack(jar, classes, root / "resources")
    stamp.write_text(digest)
    return jar


def _pack(jar: Path, classes: Path, resources: Path) -> None:
    tmp_jar = jar.with_suffix(".jar.tmp")
    with zipfile.ZipFile(tmp_jar, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("META-INF/MANIFEST.MF", "Manifest-Version: 1.0\nCreated-By: pyhudi.build\n\n")
        for base in (classes, resources):
            if base.is_dir():
                for p in sorted(base.rglob("*")):
                    if p.is_file():
                        z.write(p, str(p.relative_to(base)))
    os.replace(tmp_jar, jar)


NATIVE_DIR = PACKAGE_DIR / "native"
NATIVE_LIB = NATIVE_DIR / "libhudi_bloom.so"


def build_native(force: bool = False, quiet: bool = False) -> Path | None:
    """pyhudi/native/libhudi_bloom.so from bloom.c unless its stamp is current; None (and a note)
    when there is no C compiler or it fails: the numpy path stands in."""
    source = NATIVE_DIR / "bloom.c"
    stamp = NATIVE_LIB.with_name(NATIVE_LIB.name + ".sha256")
    digest = hashlib.sha256(source.read_bytes()).hexdigest()
    if not force and NATIVE_LIB.exists() and stamp.exists() and stamp.read_text().strip() == digest:
        return NATIVE_LIB
    cc = os.environ.get("CC") or shutil.which("cc") or shutil.which("gcc")
    if not cc:
        print("pyhudi: no C compiler (CC, cc, gcc): bloom filters are hashed with numpy", file=sys.stderr)
        return None
    tmp = NATIVE_LIB.with_suffix(".so.tmp")
    done = subprocess.run([cc, "-O3", "-shared", "-fPIC", "-o", str(tmp), str(source)],
                          capture_output=True, text=True)
    if done.returncode != 0:
        print(f"pyhudi: {cc} could not compile {source} (bloom filters are hashed with numpy):\n"
              + done.stdout + done.stderr, file=sys.stderr)
        return None
    os.replace(tmp, NATIVE_LIB)
    stamp.write_text(digest)
    if not quiet:
        print(f"pyhudi: compiled {NATIVE_LIB.name} with {cc}", file=sys.stderr)
    return NATIVE_LIB


def maven_copy(artifact: str, out_dir: Path, what: str) -> Path:
    """`group:artifact:version`'s jar in `out_dir`, copied there by Maven (`dependency:copy`, from the
    repositories Maven is set up with) on first use: how the tools beside the build (the sbt launcher, Apache
    Hudi's bundles) get JVM artifacts without committing any. `what` names it in errors."""
    _, name, version = artifact.split(":")[:3]
    jar = out_dir / f"{name}-{version}.jar"
    if jar.exists():
        return jar
    if shutil.which("mvn") is None:
        raise BuildError(f"Maven (mvn) is needed to fetch {what}; install it, or place {jar.name} in {out_dir}")
    out_dir.mkdir(parents=True, exist_ok=True)
    command = ["mvn", "-q", "-B", "dependency:copy", f"-Dartifact={artifact}", f"-DoutputDirectory={out_dir}",
               "-Dmdep.overWriteIfNewer=true"]
    done = subprocess.run(command, capture_output=True, text=True, stdin=subprocess.DEVNULL, cwd=out_dir)
    if done.returncode != 0 or not jar.exists():
        tail = "\n".join((done.stdout + done.stderr).strip().splitlines()[-15:])
        raise BuildError(f"could not fetch {what} ({artifact}) with Maven (exit {done.returncode}; Maven Central, or "
                         f"the mirror of ~/.m2/settings.xml, must be reachable):\n{tail}")
    return jar


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="Build the hudi-meta connector jar offline with javac, and the "
                                 "native bloom-filter hashing with the C compiler.")
    ap.add_argument("--force", action="store_true", help="rebuild even when the sources are unchanged")
    ap.add_argument("--tests", action="store_true", help="also build the test jar (connector/src/test/java)")
    args = ap.parse_args(argv)
    try:
        print(build(force=args.force))
        print(build_native(force=args.force) or "no native library: numpy hashes bloom filters")
        if args.tests:
            print(build_tests(force=args.force))
    except BuildError as e:
        print(f"pyhudi.build: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
