"""The run's one SparkSession, and what a finished Spark query tells about the files it opened."""
from __future__ import annotations

import re

SPARK_SETTINGS = {
    "spark.master": "local[2]",
    "spark.driver.memory": "8g",
    "spark.sql.session.timeZone": "UTC",
    "spark.ui.enabled": "false",
    "spark.ui.showConsoleProgress": "false",
}


def session(settings: dict[str, str] | None = None):
    """pyhudi's session (the hudi-meta connector loaded, the write client registered)."""
    from pyhudi import spark_session

    spark = spark_session(**{**SPARK_SETTINGS, **(settings or {})})
    spark.sparkContext.setLogLevel("ERROR")
    return spark


def effective_settings(spark) -> dict[str, str]:
    """The Spark settings that shape the numbers, as the session has them."""
    conf = spark.conf
    keys = ["spark.master", "spark.driver.memory", "spark.sql.shuffle.partitions", "spark.sql.adaptive.enabled",
            "spark.sql.files.maxPartitionBytes", "spark.sql.parquet.compression.codec",
            "spark.sql.parquet.enableVectorizedReader", "spark.sql.parquet.filterPushdown"]
    out = {}
    for k in keys:
        try:
            out[k] = conf.get(k)
        except Exception:  # noqa: BLE001 - an unset key without a default
            out[k] = "(unset)"
    return out


def _children(node):
    if node.getClass().getSimpleName() == "AdaptiveSparkPlanExec":
        return [node.executedPlan()]
    seq = node.children()
    return [seq.apply(i) for i in range(seq.size())]


def _metric(node, name: str) -> int | None:
    option = node.metrics().get(name)
    return int(option.get().value()) if option.isDefined() else None


_HUDI_FILES = re.compile(r"\bfiles=(\d+)")


def files_opened(df) -> int | None:
    """Data files the executed query opened: Spark's `numFiles` metric of a Parquet file scan
    (files left after partition pruning; each one's footer is read, row groups may be skipped),
    or the file count hudi-meta reports in its scan description (base + log files planned).
    Call after the query ran. None when the plan has no such scan."""
    total, found = 0, False
    stack = [df._jdf.queryExecution().executedPlan()]
    while stack:
        node = stack.pop()
        kind = node.getClass().getSimpleName()
        if kind == "FileSourceScanExec":
            n = _metric(node, "numFiles")
            if n is not None:
                total, found = total + n, True
        elif kind == "BatchScanExec":
            m = _HUDI_FILES.search(node.scan().description())
            if m:
                total, found = total + int(m.group(1)), True
        stack.extend(_children(node))
    return total if found else None


def java_version(spark) -> str:
    system = spark._jvm.java.lang.System
    return f"{system.getProperty('java.vendor')} {system.getProperty('java.version')}"
