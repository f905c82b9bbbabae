"""The conformance vectors (tests/conformance/*.json) through the connector's own code: the test jar's
io.hudimeta.conformance.ConformanceCheck runs every case and exits non-zero on any mismatch."""
from __future__ import annotations

import json
import os
import re
import subprocess
from pathlib import Path

HERE = Path(__file__).resolve().parent


def _java() -> str:
    """java of the JDK whose javac builds the jars."""
    from pyhudi import build

    return str(Path(build.find_javac()).with_name("java"))


def _expected_counts() -> dict[str, int]:
    docs = (json.loads(p.read_text(encoding="utf-8")) for p in sorted(HERE.glob("*.json")))
    return {doc["rule"]: len(doc["cases"]) for doc in docs}


def test_connector_passes_every_vector():
    from pyhudi import build

    test_jar = build.build_tests(quiet=True)
    classpath = os.pathsep.join([str(test_jar), str(build.build(quiet=True)), str(build.spark_jars_dir() / "*")])
    done = subprocess.run([_java(), "-cp", classpath, "io.hudimeta.conformance.ConformanceCheck", str(HERE)],
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr
    # every case ran: the per-rule counts the check reports are the files' counts
    ran = {m[1]: int(m[2]) for m in re.finditer(r"^rule (\S+): (\d+) cases$", done.stdout, re.M)}
    assert ran == _expected_counts()
    assert re.search(rf"^conformance: {sum(ran.values())} cases, 0 mismatches$", done.stdout, re.M)
