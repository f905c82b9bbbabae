"""Apache Hudi's releases, each started once per test run in a JVM of its own (apache_hudi.process)."""
from __future__ import annotations

import pytest

from apache_hudi.process import ApacheHudi
from apache_hudi.releases import RELEASES


@pytest.fixture(scope="package")
def hudis():
    """release -> a running Apache Hudi (1.2.0 and 1.0.2), stopped after this folder's tests: two more JVMs
    stay out of the rest of the run."""
    started = {version: ApacheHudi(version).start() for version in RELEASES}
    yield started
    for hudi in started.values():
        hudi.stop()


@pytest.fixture(scope="package")
def runner(spark, hudis):
    from apache_hudi.scenarios import Runner

    return Runner(spark, hudis)
