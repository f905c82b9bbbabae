"""Tables on the S3 server the tests start (s3_server): the bucket's S3A settings in the Spark session's Hadoop
configuration, which both halves read (the connector through S3A, pyhudi through pyhudi.object_store), and the
checks the S3 tests share."""
from __future__ import annotations

import hashlib

import boto3
from botocore.config import Config

BUCKET = "tables"
KEYS = {"path.style.access": "true", "access.key": "test", "secret.key": "test", "endpoint.region": "us-east-1"}


def configure(spark, endpoint: str, bucket: str = BUCKET) -> None:
    """The bucket's settings, per bucket as S3A takes them (fs.s3a.bucket.<bucket>.*): other buckets keep theirs."""
    conf = spark.sparkContext._jsc.hadoopConfiguration()
    for key, value in {"endpoint": endpoint, **KEYS}.items():
        conf.set(f"fs.s3a.bucket.{bucket}.{key}", value)


def client(endpoint: str):
    return boto3.client("s3", endpoint_url=endpoint, region_name="us-east-1", aws_access_key_id="test",
                        aws_secret_access_key="test", config=Config(s3={"addressing_style": "path"}))


def fingerprint(endpoint: str, prefix: str, bucket: str = BUCKET) -> dict[str, str]:
    """Every object under `prefix` with a hash of its bytes: 'the table is unchanged' compares two of them."""
    s3 = client(endpoint)
    out = {}
    for page in s3.get_paginator("list_objects_v2").paginate(Bucket=bucket, Prefix=prefix.rstrip("/") + "/"):
        for obj in page.get("Contents", []):
            body = s3.get_object(Bucket=bucket, Key=obj["Key"])["Body"].read()
            out[obj["Key"]] = hashlib.sha1(body).hexdigest()
    return out


def drop_caches(spark, path: str) -> None:
    """What a fresh session's first query finds: none of the connector's views or HFile blocks, and a new S3A
    instance for the bucket (S3A keeps what it read of an object for its streams)."""
    jvm = spark._jvm
    jvm.io.hudimeta.view.TableViews.clear()  # before the close: views hold the file system they were made with
    jvm.io.hudimeta.hfile.BlockCache.shared().clear()
    jvm.org.apache.hadoop.fs.Path(path).getFileSystem(spark._jsc.hadoopConfiguration()).close()
