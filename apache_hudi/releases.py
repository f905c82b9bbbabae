"""The Apache Hudi releases the harness runs, each as its published Spark bundle.

Both bundles are built for Spark 3.5 and Scala 2.12 (hudi-spark3.5-bundle_2.12); one pyspark of that line, the
one Apache Hudi 1.2.0's build names (its pom's spark35.version), runs them both, in a virtualenv of its own,
since pyhudi itself runs on pyspark 4.
"""
from __future__ import annotations

from dataclasses import dataclass

PYSPARK = "pyspark==3.5.5"
PYARROW = "pyarrow>=14,<22"  # the worker hands results back as Arrow IPC files


@dataclass(frozen=True)
class Release:
    version: str
    table_version: int  # what this release writes by default (HoodieTableVersion.current())

    @property
    def bundle(self) -> str:
        """Maven coordinates of the Spark bundle."""
        return f"org.apache.hudi:hudi-spark3.5-bundle_2.12:{self.version}"


RELEASES = {r.version: r for r in (Release("1.2.0", 9), Release("1.0.2", 8))}
NEWEST = "1.2.0"
TABLE_VERSION_8 = "1.0.2"  # the last release writing table version 8 by default


def release(version: str) -> Release:
    try:
        return RELEASES[version]
    except KeyError:
        raise SystemExit(f"Apache Hudi {version} is not one the harness runs; choose one of "
                         f"{', '.join(RELEASES)}") from None
