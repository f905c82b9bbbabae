"""The connector's Spark SQL functions the writer calls: hashes that must be Java's own (String.hashCode,
List.hashCode), computed in the JVM next to the data instead of a Python worker; and the driver's calls into
the connector, its damaged-metadata-table error made pyhudi's own."""
from __future__ import annotations

from typing import Any, Callable

from py4j.protocol import Py4JJavaError
from pyspark.sql import Column, SparkSession
from pyspark.sql import functions as F

from pyhudi.metadata.errors import MetadataDamagedError

# what the connector raises for a damaged metadata table
DAMAGED = ("io.hudimeta.table.CorruptTableException", "io.hudimeta.metadata.MetadataDamage")


def driver_call(method: Callable[..., Any], *args: Any) -> Any:
    """`method(*args)` on the connector; a damaged metadata table raises MetadataDamagedError with the
    connector's message (it names the file and `pyhudi metadata repair`), not a py4j trace."""
    try:
        return method(*args)
    except Py4JJavaError as e:
        cause = e.java_exception
        while cause is not None:
            if cause.getClass().getName() in DAMAGED:
                raise MetadataDamagedError(cause.getMessage()) from None
            cause = cause.getCause()
        raise


def java_function(spark: SparkSession, name: str, java_class: str, return_type: str):
    """`java_class` as the Spark SQL function `name`, registered once per session (registering it again
    makes Spark warn on every write); returns a caller of it."""
    if not spark.catalog.functionExists(name):
        spark.udf.registerJavaFunction(name, java_class, return_type)

    def call(*cols: Column) -> Column:
        return F.call_function(name, *cols)
    return call
