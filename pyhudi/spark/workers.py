"""Which interpreter Spark's Python workers run: the driver's own, unless the user chose one."""
from __future__ import annotations

import logging
import os
import sys

PYTHON_CONF = "spark.pyspark.python"
log = logging.getLogger(__name__)


def python_for_workers(configured: str | None = None) -> str:
    """The interpreter Spark's Python workers run: ``spark.pyspark.python`` or ``PYSPARK_PYTHON`` when
    the user set one, else this process's own. Spark's default is ``python3`` from PATH, which for a
    job started with a virtualenv's interpreter (not activated) lacks the venv's packages, and the
    write then fails on executors with "No module named pyarrow". PySpark reads only the environment
    variable when it starts a context from Python, so the choice is exported there too."""
    chosen = configured or os.environ.get("PYSPARK_PYTHON") or sys.executable
    os.environ.setdefault("PYSPARK_PYTHON", chosen)
    return chosen


def use_driver_python(spark) -> None:
    """For a session built elsewhere: Python work created from now on runs the driver's interpreter
    unless the user chose one (``spark.pyspark.python`` / ``PYSPARK_PYTHON``)."""
    sc = spark.sparkContext
    if os.environ.get("PYSPARK_PYTHON") or sc.getConf().get(PYTHON_CONF):
        return
    if sc.pythonExec != sys.executable:
        log.info("pyhudi: Spark's Python workers run %s (was %s); set %s to choose another",
                 sys.executable, sc.pythonExec, PYTHON_CONF)
        sc.pythonExec = sys.executable
