"""The py4j seam for writes: ``df.write.format("hudi-meta")`` calls back into this Python process.

The connector's write path (Java) does not write; it hands the DataFrame to the callback registered
here, which passes it on to :func:`pyhudi.spark.save_modes.write_dataframe`. The callback lives in the
driver's Python process and is reached over pyspark's own py4j gateway, as ``foreachBatch`` is.
"""
from __future__ import annotations

import dataclasses
import functools
import json
import logging
import sys
import warnings

from pyhudi.errors import HudiError

JAVA_INTERFACE = "io.hudimeta.spark.bridge.WriteCallback"
# starts the one line io.hudimeta.spark.bridge.CallbackErrors looks for in what py4j hands the JVM
ERROR_MARKER = "pyhudi-callback-error:"
LOG = logging.getLogger("pyhudi")


class CallbackError(HudiError):
    """How a callback's failure crosses py4j: one line, the marker and a JSON object of the error's
    kind, class and message. py4j sends the JVM the whole Python traceback; io.hudimeta.spark.bridge.CallbackErrors
    raises the message alone as a Java exception pyspark turns into a Python one."""

    def __init__(self, error: BaseException):
        cls = type(error)
        super().__init__(ERROR_MARKER + json.dumps({
            "kind": error_kind(error), "type": f"{cls.__module__}.{cls.__qualname__}", "message": str(error)}))


def error_kind(error: BaseException) -> str:
    """'argument' for bad input (pyspark raises IllegalArgumentException), 'unsupported' for what pyhudi
    does not do yet (UnsupportedOperationException), 'failure' for the rest (QueryExecutionException)."""
    if isinstance(error, NotImplementedError):
        return "unsupported"
    if isinstance(error, (ValueError, TypeError, LookupError)):
        return "argument"
    return "failure"


def _reported(method):
    """A callback method whose failure reaches the caller as one line (the traceback at DEBUG level)."""
    @functools.wraps(method)
    def call(self, *args):
        try:
            return method(self, *args)
        except Exception as e:
            LOG.debug("pyhudi: %s failed", method.__name__, exc_info=True)
            raise CallbackError(e) from None
    return call


class _ReportedElsewhere(logging.Filter):
    """Drops py4j's ERROR record of a CallbackError: the caller gets the error, the traceback is on LOG."""

    def filter(self, record: logging.LogRecord) -> bool:
        return not (record.exc_info and isinstance(record.exc_info[1], CallbackError))


for _name in ("py4j.clientserver", "py4j.java_gateway"):
    logging.getLogger(_name).addFilter(_ReportedElsewhere())


class WriteCallback:
    """Python side of io.hudimeta.spark.bridge.WriteCallback."""

    @_reported
    def write(self, jdf, path, options, mode):
        from pyspark.sql.dataframe import DataFrame

        from pyhudi.spark import save_modes

        spark = _session_for(jdf)
        # write_dataframe is looked up on every call, so a replaced client (tests) is the one used
        counts = save_modes.write_dataframe(spark, DataFrame(jdf, spark), path, dict(options), mode)
        return None if counts is None else json.dumps(dataclasses.asdict(counts))

    @_reported
    def writeBatch(self, jdf, path, options, batch_id, writer):  # noqa: N802 (the Java interface's name)
        from pyspark.sql.dataframe import DataFrame

        from pyhudi.spark import streaming

        spark = _session_for(jdf)
        streaming.write_batch(spark, DataFrame(jdf, spark), path, dict(options), int(batch_id), writer)

    @_reported
    def createTable(self, path, options, schema_json):  # noqa: N802 (the Java interface's name)
        import json

        from pyspark.sql.pandas.types import to_arrow_schema
        from pyspark.sql.types import StructType

        from pyhudi.write.client import Writer

        spark = _active_session()
        # a local relation of no rows: its checks run no Spark job (a DataFrame of Python rows would start a worker)
        empty = spark.createDataFrame(to_arrow_schema(StructType.fromJson(json.loads(schema_json))).empty_table())
        Writer(spark, path, dict(options)).create(empty)

    @_reported
    def procedure(self, name, path, args):
        import json

        from pyhudi.spark import procedures

        return json.dumps(procedures.run(_active_session(), name, path, dict(args)), default=str)

    @_reported
    def createIndex(self, path, partition, column, options):  # noqa: N802 (the Java interface's name)
        from pyhudi.services import indexing

        indexing.create(_active_session(), path, partition, dict(options), column=column or None)

    @_reported
    def dropIndex(self, path, partition):  # noqa: N802 (the Java interface's name)
        from pyhudi.services import indexing

        indexing.drop(path, partition)

    class Java:
        implements = [JAVA_INTERFACE]


_CALLBACK = WriteCallback()


def _session_for(jdf):
    """The Python SparkSession over the JVM session that owns `jdf` (reused when it is the active one)."""
    from pyspark import SparkContext
    from pyspark.sql import SparkSession

    jsession = jdf.sparkSession()
    active = SparkSession.getActiveSession()
    if active is not None and active._jsparkSession.equals(jsession):
        return active
    sc = SparkContext._active_spark_context
    assert sc is not None  # jdf comes from the JVM of this driver's SparkContext
    return SparkSession(sc, jsession)


def _active_session():
    """The Python session of a call from the JVM that passes no DataFrame (a callback thread of its own)."""
    from pyspark.sql import SparkSession

    spark = SparkSession.getActiveSession() or SparkSession._instantiatedSession
    if spark is None:
        raise RuntimeError("pyhudi: the JVM called back into a Python process with no SparkSession")
    return spark


def _write_clients(spark):
    """The JVM's io.hudimeta.spark.bridge.WriteClients, or a clear error when the connector is not loaded."""
    from py4j.protocol import Py4JError

    if getattr(spark, "_jvm", None) is None:
        raise TypeError("pyhudi: writes through format('hudi-meta') need a classic SparkSession (with a "
                        "py4j gateway to the driver JVM); Spark Connect sessions are not supported")
    clients = spark._jvm.io.hudimeta.spark.bridge.WriteClients
    try:
        clients.isRegistered()
    except Py4JError as e:
        raise RuntimeError("pyhudi: the hudi-meta connector is not on this SparkSession's classpath; create "
                           "the session with pyhudi.spark_session() or add "
                           ".config('spark.jars', pyhudi.connector_jar()) to your builder") from e
    return clients


def register(spark=None) -> None:
    """Let `spark`'s driver JVM hand ``df.write.format("hudi-meta")`` to pyhudi's write client.

    ``import pyhudi`` and :func:`pyhudi.spark_session` do this already; call it for a session built
    after ``import pyhudi`` by your own ``SparkSession.builder``. Without an argument: the active session.
    Unless ``spark.pyspark.python`` or ``PYSPARK_PYTHON`` names one, Python work is then run by the
    driver's interpreter (Spark's default, ``python3`` from PATH, may lack pyarrow).
    """
    from pyspark.java_gateway import ensure_callback_server_started
    from pyspark.sql import SparkSession

    spark = spark if spark is not None else SparkSession.getActiveSession()
    if spark is None:
        raise RuntimeError("pyhudi.register: no active SparkSession; pass one: pyhudi.register(spark)")
    from pyhudi.spark.s3 import map_s3_scheme
    from pyhudi.spark.workers import use_driver_python

    clients = _write_clients(spark)
    ensure_callback_server_started(spark.sparkContext._gateway)
    clients.register(_CALLBACK)
    use_driver_python(spark)
    map_s3_scheme(spark)


def unregister(spark=None) -> None:
    """Undo :func:`register` (writes then fail with a message naming pyhudi)."""
    from pyspark.sql import SparkSession

    spark = spark if spark is not None else SparkSession.getActiveSession()
    if spark is not None:
        _write_clients(spark).unregister()


def register_with_active_session() -> None:
    """On ``import pyhudi``: register with the active session, if pyspark already made one."""
    if "pyspark.sql.session" not in sys.modules:
        return  # pyspark not loaded, so there is no session yet (and importing it here would be slow)
    from pyspark.sql import SparkSession

    spark = SparkSession.getActiveSession()
    if spark is None or getattr(spark, "_jvm", None) is None:
        return  # none yet, or Spark Connect: nothing in this process to register with
    try:
        register(spark)
    except Exception as e:  # importing must not fail; the warning says what writes will lack
        warnings.warn(f"pyhudi: the write client is not registered with the active SparkSession: {e}",
                      stacklevel=2)
