"""Spark session wiring: put the hudi-meta connector on the classpath, run Python workers with the
driver's interpreter."""
from __future__ import annotations

from pyhudi.spark import s3
from pyhudi.spark.workers import PYTHON_CONF, python_for_workers

SQL_EXTENSIONS = "io.hudimeta.spark.sql.HudiSqlExtensions"  # UPDATE, DELETE, MERGE INTO on hudi-meta tables


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
    Defaults: master ``local[*]``, session time zone UTC, the session catalog extended by
    ``io.hudimeta.spark.HudiCatalog`` (CREATE TABLE with Hudi's table properties, SQL ``VERSION AS OF``
    / ``TIMESTAMP AS OF``, which Spark's own session catalog refuses), the SQL extensions for UPDATE,
    DELETE and MERGE INTO, and Python workers run by this process's interpreter (see
    :func:`python_for_workers`).

    Tables on S3 (``s3a://`` and ``s3://``): with ``s3_tables=True``, or when any ``spark.hadoop.fs.s3a.*``
    setting is given, Hadoop's S3A file system and its AWS SDK modules are added to ``spark.jars.packages``
    (Spark fetches them at start; see :mod:`pyhudi.spark.s3`). Its settings (endpoint, credentials,
    path-style access) are the writer's too.
    """
    from pyspark.sql import SparkSession

    conf = {"spark.master": "local[*]", "spark.sql.session.timeZone": "UTC",
            "spark.app.name": "pyhudi", "spark.sql.catalog.spark_catalog": "io.hudimeta.spark.HudiCatalog",
            "spark.sql.extensions": SQL_EXTENSIONS}
    s3_tables = spark_conf.pop("s3_tables", None)
    given = {k: str(v) for k, v in spark_conf.items()}
    if given.get("spark.sql.extensions"):  # the user's extensions run beside ours
        given["spark.sql.extensions"] = f"{SQL_EXTENSIONS},{given['spark.sql.extensions']}"
    conf.update(given)
    conf[PYTHON_CONF] = python_for_workers(conf.get(PYTHON_CONF))
    if s3_tables or (s3_tables is None and s3.wanted(conf)):
        s3.add_to(conf)
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
