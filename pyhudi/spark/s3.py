"""Hadoop's S3A file system for the connector's reads: hadoop-aws at the Hadoop version of the installed pyspark
and the parts of the AWS SDK it uses, added as Spark users add them (`spark.jars.packages`, resolved by Spark at
session start from the repositories its Ivy is set up with), and `s3://` mapped to S3A as on EMR.

Hadoop 3.4+ depends on the AWS SDK's `bundle` (about 650 MB with every AWS service); S3A uses only S3's, STS's and
the transfer manager's modules (about 19 MB), so the bundle is left out for the Hadoop versions whose SDK we
know. Libraries Spark already ships (netty, Apache's HTTP client, codecs, logging) are left out too.
"""
from __future__ import annotations

from pathlib import Path

S3A = "org.apache.hadoop.fs.s3a.S3AFileSystem"
S3A_CONTEXT = "org.apache.hadoop.fs.s3a.S3A"  # the AbstractFileSystem of FileContext users
# aws-java-sdk-v2.version of each Hadoop release's hadoop-project pom
SDK_OF_HADOOP = {"3.4.0": "2.23.19", "3.4.1": "2.24.6", "3.4.2": "2.29.52", "3.5.0": "2.35.4"}
SDK_MODULES = ("s3", "s3-transfer-manager", "sts")
SPARK_SHIPS = ("io.netty:*", "org.apache.httpcomponents:*", "commons-codec:commons-codec",
               "commons-logging:commons-logging", "org.slf4j:*")


def hadoop_version() -> str | None:
    """The Hadoop version of the installed pyspark, read off its hadoop-client-api jar."""
    from pyhudi.build import spark_jars_dir

    jar = next(iter(sorted(Path(spark_jars_dir()).glob("hadoop-client-api-*.jar"))), None)
    return jar.stem[len("hadoop-client-api-"):] if jar else None


def packages(hadoop: str | None = None) -> tuple[list[str], list[str]]:
    """(spark.jars.packages, spark.jars.excludes) for S3A at Hadoop version `hadoop` (the installed one)."""
    hadoop = hadoop or hadoop_version()
    if hadoop is None:
        raise RuntimeError("cannot tell the Hadoop version of the installed pyspark (no hadoop-client-api jar "
                           "among its jars): add org.apache.hadoop:hadoop-aws:<that version> to spark.jars.packages")
    sdk = SDK_OF_HADOOP.get(hadoop)
    if sdk is None:  # a release we have not seen: its whole SDK bundle, as hadoop-aws declares it
        return [f"org.apache.hadoop:hadoop-aws:{hadoop}"], list(SPARK_SHIPS)
    modules = [f"software.amazon.awssdk:{m}:{sdk}" for m in SDK_MODULES]
    return [f"org.apache.hadoop:hadoop-aws:{hadoop}", *modules], ["software.amazon.awssdk:bundle", *SPARK_SHIPS]


def wanted(conf: dict[str, str]) -> bool:
    """A session asks for S3 when it sets any of Hadoop's S3A settings."""
    return any(k.startswith(("spark.hadoop.fs.s3a.", "spark.hadoop.fs.s3.")) for k in conf)


def add_to(conf: dict[str, str]) -> None:
    """S3A's jars joined to the session settings `conf` (the user's own packages kept), and s3:// mapped to S3A
    unless the user mapped it."""
    add, exclude = packages()
    for key, values in (("spark.jars.packages", add), ("spark.jars.excludes", exclude)):
        given = [v for v in conf.get(key, "").split(",") if v]
        conf[key] = ",".join(given + [v for v in values if v not in given])
    conf.setdefault("spark.hadoop.fs.s3.impl", S3A)
    conf.setdefault("spark.hadoop.fs.AbstractFileSystem.s3.impl", S3A_CONTEXT)


def map_s3_scheme(spark) -> None:
    """For a session built elsewhere: `s3://` paths read through S3A unless the session maps them already (EMR's
    own file system, say)."""
    conf = spark.sparkContext._jsc.hadoopConfiguration()
    conf.setIfUnset("fs.s3.impl", S3A)
    conf.setIfUnset("fs.AbstractFileSystem.s3.impl", S3A_CONTEXT)
