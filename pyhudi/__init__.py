"""pyhudi: Apache Hudi (table version 8) tables from PySpark.

The writer lives here in Python; reads go through the hudi-meta Spark DataSource V2 connector,
whose jar ships inside this package (see :func:`connector_jar`).
"""
from pyhudi.session import connector_jar, spark_session

__all__ = ["connector_jar", "spark_session"]
__version__ = "0.1.0"
