"""The connector's Spark SQL functions the writer calls: hashes that must be Java's own (String.hashCode,
List.hashCode), computed in the JVM next to the data instead of a Python worker."""
from __future__ import annotations

from pyspark.sql import Column, SparkSession
from pyspark.sql import functions as F


def java_function(spark: SparkSession, name: str, java_class: str, return_type: str):
    """`java_class` as the Spark SQL function `name`, registered once per session (registering it again
    makes Spark warn on every write); returns a caller of it."""
    if not spark.catalog.functionExists(name):
        spark.udf.registerJavaFunction(name, java_class, return_type)

    def call(*cols: Column) -> Column:
        return F.call_function(name, *cols)
    return call
