"""One S3 server per test module (starting one takes a moment), cleaned between tests: no fault rule, an empty
request log and no latency. Clients talk to it as the writer's would: boto3 path-style, and pyarrow's S3."""
from __future__ import annotations

import boto3
import pytest
from botocore.config import Config

from s3_server import S3Server

BUCKET = "bkt"


@pytest.fixture(scope="module")
def server():
    with S3Server() as started:
        started.create_bucket(BUCKET)
        yield started


@pytest.fixture
def s3(server):
    server.clear_faults()
    server.set_latency(0)
    server.reset_log()
    yield server
    server.clear_faults()


@pytest.fixture(scope="module")
def bucket(server) -> str:
    return BUCKET


def boto3_client(endpoint: str, attempts: int | None):
    """attempts=None: boto3's standard retries (3 attempts); 1: no retry, every fault reaches the caller."""
    retries = {"mode": "standard"} if attempts is None else {"mode": "standard", "total_max_attempts": attempts}
    return boto3.client("s3", endpoint_url=endpoint, region_name="us-east-1", aws_access_key_id="test",
                        aws_secret_access_key="test", config=Config(s3={"addressing_style": "path"}, retries=retries))


@pytest.fixture(scope="module")
def client(server):
    return boto3_client(server.endpoint, attempts=1)


@pytest.fixture(scope="module")
def retrying_client(server):
    return boto3_client(server.endpoint, attempts=None)


@pytest.fixture(scope="module")
def arrow(server):
    from pyarrow import fs

    return fs.S3FileSystem(endpoint_override=f"127.0.0.1:{server.port}", scheme="http", access_key="test",
                           secret_key="test", region="us-east-1")


@pytest.fixture(scope="module")
def exists(client):
    """exists(key): whether the object is in the bucket (a HEAD, logged like any request)."""
    def check(key: str) -> bool:
        try:
            client.head_object(Bucket=BUCKET, Key=key)
            return True
        except client.exceptions.ClientError as e:
            if e.response["Error"]["Code"] in ("404", "NoSuchKey"):
                return False
            raise
    return check
