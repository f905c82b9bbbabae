"""Shared fixtures: one Spark session per test run, and the real Hudi tables of tests/fixtures."""
from __future__ import annotations

import zipfile
from pathlib import Path

import pytest

PROJECT = Path(__file__).resolve().parent
FIXTURES = PROJECT / "tests" / "fixtures"
TABLE_ZIPS = sorted((FIXTURES / "hudi-tables").glob("*.zip"))
TABLE_NAMES = [z.stem for z in TABLE_ZIPS]


@pytest.fixture(scope="session")
def fixture_tables(tmp_path_factory):
    """name -> base path of that fixture table, unzipped once per run."""
    root = tmp_path_factory.mktemp("hudi-tables")
    paths = {}
    for z in TABLE_ZIPS:
        target = root / z.stem
        zipfile.ZipFile(z).extractall(target)
        paths[z.stem] = str(next(p.parent.parent for p in target.rglob(".hoodie/hoodie.properties")
                                 if p.parent.parent.parent.name != ".hoodie"))
    return paths


@pytest.fixture(scope="session")
def spark():
    from pyhudi import build, spark_session

    # the test jar (inspectors, conformance runner) sits beside the connector jar spark_session adds; S3A's
    # jars too, for the tables of tests/connector/test_s3_tables.py on the S3 server the tests start
    session = spark_session(s3_tables=True, **{"spark.master": "local[2]", "spark.ui.enabled": "false",
                               "spark.sql.shuffle.partitions": "2",
                               "spark.driver.memory": "2g",
                               "spark.jars": str(build.build_tests(quiet=True))})
    yield session
    session.stop()


@pytest.fixture(scope="session")
def s3_server():
    """One S3-compatible server (moto's, in a process of its own, with a request log and fault hooks) per run."""
    from s3_server import S3Server

    with S3Server() as server:
        yield server


@pytest.fixture(scope="session")
def s3_store(spark, s3_server):
    """The server with its bucket `tables` set up in the shared session: tables at s3a://tables/<name>."""
    from tests import s3_tables

    s3_server.create_bucket(s3_tables.BUCKET)
    s3_tables.configure(spark, s3_server.endpoint)
    return s3_server
