"""pyhudi: Apache Hudi (table version 8) tables from PySpark.

The writer lives here in Python; reads go through the hudi-meta Spark DataSource V2 connector,
whose jar ships inside this package (see :func:`connector_jar`). ``df.write.format("hudi-meta")``
reaches the writer through a py4j callback: importing pyhudi registers it with the active
SparkSession, :func:`spark_session` with the session it makes, and :func:`register` with any other.
"""
from pyhudi.hudi_table import HudiTable
from pyhudi.spark.bridge import register, register_with_active_session
from pyhudi.spark.session import connector_jar, spark_session

__all__ = ["HudiTable", "connector_jar", "register", "spark_session"]
__version__ = "0.1.0"

register_with_active_session()
