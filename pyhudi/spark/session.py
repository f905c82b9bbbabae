"""Spark session wiring: put the hudi-meta connector on the classpath."""
from __future__ import annotations


def connector_jar() -> str:
    """Path of hudi-meta-connector.jar, rebuilt first when the connector sources changed.

    Add it to your own session with ``.config("spark.jars", connector_jar())`` or pass it
    to ``spark-submit --jars``.
    """
    from pyhudi import build  # imported lazily: `python -m pyhudi.build` must not preload it

    return str(build.build(quiet=True))


def spark_session(**spark_conf):
    """A SparkSession with the connector loaded and pyhudi's write client registered with it.

    Keyword arguments are Spark settings, passed as a dict since their keys hold dots:
    ``spark_session(**{"spark.master": "local[2]"})``.
    Defaults: master ``local[*]``, session time zone UTC, and the session catalog extended by
    ``io.hudimeta.spark.HudiCatalog`` so that SQL ``VERSION AS OF`` / ``TIMESTAMP AS OF`` work on
    hudi-meta tables (Spark's own session catalog refuses time travel).
    """
    from pyspark.sql import SparkSession

    conf = {"spark.master": "local[*]", "spark.sql.session.timeZone": "UTC",
            "spark.app.name": "pyhudi", "spark.sql.catalog.spark_catalog": "io.hudimeta.spark.HudiCatalog"}
    conf.update({k: str(v) for k, v in spark_conf.items()})
    jars = [connector_jar()]
    if conf.get("spark.jars"):
        jars.append(conf["spark.jars"])
    conf["spark.jars"] = ",".join(jars)
    builder = SparkSession.builder
    for key, value in conf.items():
        builder = builder.config(key, value)
    session = builder.getOrCreate()
    from pyhudi.spark.bridge import register

    register(session)
    return session
