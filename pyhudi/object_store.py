"""S3 for the writer, configured as Hadoop's S3A is: one URI (`s3a://bucket/table`, or `s3://` as on EMR) and one
set of `fs.s3a.*` settings serve both halves, the connector (Hadoop's S3AFileSystem) and pyhudi (pyarrow's S3 file
system, and boto3 for the conditional PUT pyarrow lacks).

The settings are read, first found wins, from:
1. the Hadoop configuration of this process's Spark session (the driver): `spark.hadoop.fs.s3a.*` at start, or
   `hadoopConfiguration().set(...)` later. They are handed on to Spark's Python workers in the environment Spark
   gives every Python function (`SparkContext.environment`, as `spark.executorEnv.*` does);
2. `PYHUDI_S3A_CONF`, that hand-off, in a worker;
3. `core-site.xml` in `$HADOOP_CONF_DIR` (the CLI, as Hudi's CLI reads it).
A setting none of them gives falls to AWS's own chain (AWS_* variables, ~/.aws, the instance's role).
"""
from __future__ import annotations

import functools
import json
import os
import sys
import urllib.parse
import xml.etree.ElementTree as ET
from collections.abc import Mapping
from dataclasses import dataclass

import pyarrow.fs as pafs

SCHEMES = ("s3", "s3a")
ENV = "PYHUDI_S3A_CONF"
# the S3A keys pyhudi honours, each also read per bucket as fs.s3a.bucket.<bucket>.<key> (S3A's override)
KEYS = ("endpoint", "endpoint.region", "access.key", "secret.key", "session.token", "path.style.access",
        "connection.ssl.enabled", "attempts.maximum", "aws.credentials.provider")
ANONYMOUS = "org.apache.hadoop.fs.s3a.AnonymousAWSCredentialsProvider"
DEFAULT_ATTEMPTS = 5  # fs.s3a.attempts.maximum's default: retries of a request on a transient error


@dataclass(frozen=True)
class S3Settings:
    """How to reach one bucket."""
    endpoint: str | None = None  # host[:port]; None: AWS's endpoint for the region
    scheme: str = "https"
    region: str | None = None
    access_key: str | None = None
    secret_key: str | None = None
    session_token: str | None = None
    path_style: bool = False
    attempts: int = DEFAULT_ATTEMPTS
    anonymous: bool = False

    @classmethod
    def of(cls, conf: Mapping[str, str], bucket: str) -> "S3Settings":
        """The settings of `bucket` from Hadoop's `fs.s3a.*` keys."""
        def get(key: str) -> str | None:
            value = conf.get(f"fs.s3a.bucket.{bucket}.{key}") or conf.get(f"fs.s3a.{key}")
            return value.strip() if value and value.strip() else None

        ssl = (get("connection.ssl.enabled") or "true").lower() != "false"
        scheme, endpoint = _endpoint(get("endpoint"), "https" if ssl else "http")
        return cls(endpoint=endpoint, scheme=scheme, region=get("endpoint.region") or _env_region(),
                   access_key=get("access.key"), secret_key=get("secret.key"), session_token=get("session.token"),
                   path_style=(get("path.style.access") or "false").lower() == "true",
                   attempts=int(get("attempts.maximum") or DEFAULT_ATTEMPTS),
                   anonymous=ANONYMOUS in (get("aws.credentials.provider") or ""))

    @classmethod
    def of_query(cls, query: str) -> "S3Settings":
        """pyarrow's own URI form, `s3://bucket/key?endpoint_override=host:port&scheme=http&region=r`."""
        q = dict(urllib.parse.parse_qsl(query))
        scheme, endpoint = _endpoint(q.get("endpoint_override"), q.get("scheme", "https"))
        return cls(endpoint=endpoint, scheme=scheme, region=q.get("region") or _env_region(), path_style=True)

    @property
    def endpoint_url(self) -> str | None:
        return f"{self.scheme}://{self.endpoint}" if self.endpoint else None


def _endpoint(value: str | None, scheme: str) -> tuple[str, str | None]:
    """(scheme, host[:port]) of fs.s3a.endpoint, which may or may not carry its scheme; AWS's own endpoints are
    left to the SDK, which picks the region's."""
    if not value:
        return scheme, None
    if "://" in value:
        parts = urllib.parse.urlsplit(value)
        scheme, value = parts.scheme, parts.netloc
    if value.endswith(".amazonaws.com"):
        return scheme, None
    return scheme, value


def _env_region() -> str | None:
    return os.environ.get("AWS_REGION") or os.environ.get("AWS_DEFAULT_REGION")


def split(uri: str) -> tuple[str, str, str]:
    """(bucket, `bucket/key` path within the file system, query) of an s3:// or s3a:// URI."""
    parts = urllib.parse.urlsplit(uri)
    if not parts.netloc:
        raise ValueError(f"{uri} names no bucket: write s3a://<bucket>/<path>")
    return parts.netloc, f"{parts.netloc}{parts.path}".rstrip("/"), parts.query


def settings_for(uri: str) -> tuple[S3Settings, str]:
    """The settings that reach the bucket of `uri`, and the path within it."""
    bucket, path, query = split(uri)
    return (S3Settings.of_query(query) if query else S3Settings.of(hadoop_conf(), bucket)), path


# ---- where the settings come from ----------------------------------------------------------------

def hadoop_conf() -> dict[str, str]:
    """The fs.s3a.* settings this process has (see the module's docstring for the order)."""
    sc = _driver_context()
    if sc is not None:
        conf = _spark_conf(sc)
        sc.environment[ENV] = json.dumps(conf)  # Python workers of the jobs made from now on get them
        return conf
    if os.environ.get(ENV):
        return json.loads(os.environ[ENV])
    return _core_site(os.environ.get("HADOOP_CONF_DIR"))


def _driver_context():
    """This process's SparkContext when it is a Spark driver (a worker has none); pyspark is not imported for it."""
    if "pyspark" not in sys.modules:
        return None
    from pyspark import SparkContext

    return SparkContext._active_spark_context


def _ours(key: str) -> bool:
    rest = key[len("fs.s3a."):]
    if rest.startswith("bucket."):
        rest = rest.split(".", 2)[-1] if rest.count(".") >= 2 else ""
    return rest in KEYS


def _spark_conf(sc) -> dict[str, str]:
    found = sc._jsc.hadoopConfiguration().getValByRegex(r"^fs\.s3a\.")
    return {str(k): str(v) for k, v in dict(found).items() if _ours(str(k))}


def _core_site(conf_dir: str | None) -> dict[str, str]:
    path = os.path.join(conf_dir, "core-site.xml") if conf_dir else None
    if not path or not os.path.isfile(path):
        return {}
    conf = {}
    for prop in ET.parse(path).getroot().iter("property"):
        name, value = prop.findtext("name"), prop.findtext("value")
        if name and value is not None and name.startswith("fs.s3a.") and _ours(name):
            conf[name] = value
    return conf


# ---- clients -------------------------------------------------------------------------------------

@functools.lru_cache(maxsize=16)
def filesystem(s: S3Settings) -> pafs.S3FileSystem:
    """pyarrow's S3 file system for these settings (one per settings, so its connections are reused); it retries
    transient errors (500, 503 SlowDown, resets) with exponential back-off, as S3 asks."""
    return pafs.S3FileSystem(
        access_key=s.access_key, secret_key=s.secret_key, session_token=s.session_token, anonymous=s.anonymous,
        region=s.region or "us-east-1", scheme=s.scheme, endpoint_override=s.endpoint,
        force_virtual_addressing=bool(s.endpoint) and not s.path_style,
        allow_delayed_open=True,  # a file is sent when closed: one PutObject for a small one, no multipart upload
        retry_strategy=pafs.AwsStandardS3RetryStrategy(max_attempts=s.attempts + 1))


@functools.lru_cache(maxsize=16)
def client(s: S3Settings):
    """boto3's S3 client for these settings, with the standard retry mode (exponential back-off with jitter)."""
    try:
        import boto3
        from botocore import UNSIGNED
        from botocore.config import Config
    except ImportError as e:
        raise ImportError("commits on S3 need boto3 for S3's conditional PUT (If-None-Match), which pyarrow "
                          "does not offer: pip install boto3") from e
    config = Config(retries={"mode": "standard", "total_max_attempts": s.attempts + 1},
                    s3={"addressing_style": "path" if s.path_style else "virtual"},
                    signature_version=UNSIGNED if s.anonymous else None)
    return boto3.client("s3", endpoint_url=s.endpoint_url, region_name=s.region or "us-east-1",
                        aws_access_key_id=s.access_key, aws_secret_access_key=s.secret_key,
                        aws_session_token=s.session_token, config=config)


def put_if_absent(s: S3Settings, path: str, data: bytes) -> bool:
    """PutObject with `If-None-Match: *`; False when an object is already there. A PUT whose response was lost
    and that the SDK retried meets its own object: it is ours when its bytes are ours."""
    c = client(s)
    bucket, _, key = path.partition("/")
    try:
        c.put_object(Bucket=bucket, Key=key, Body=data, IfNoneMatch="*")
        return True
    except c.exceptions.ClientError as e:
        if not _precondition_failed(e):
            raise
        if e.response.get("ResponseMetadata", {}).get("RetryAttempts", 0) > 0:
            return c.get_object(Bucket=bucket, Key=key)["Body"].read() == data
        return False


def _precondition_failed(e) -> bool:
    code = e.response.get("Error", {}).get("Code")
    return code in ("PreconditionFailed", "ConditionalRequestConflict") or \
        e.response.get("ResponseMetadata", {}).get("HTTPStatusCode") in (409, 412)


def read_versioned(s: S3Settings, path: str) -> tuple[bytes, str] | None:
    """The object's bytes and ETag (what a conditional overwrite names), or None when there is none."""
    c = client(s)
    bucket, _, key = path.partition("/")
    try:
        got = c.get_object(Bucket=bucket, Key=key)
    except c.exceptions.NoSuchKey:
        return None
    return got["Body"].read(), got["ETag"]


def put_if_match(s: S3Settings, path: str, data: bytes, etag: str | None) -> str | None:
    """Writes `data` if the object is still the version `etag` names (None: if there is no object); the new
    ETag, or None when another writer got there first (S3 decides atomically: the compare-and-swap RFC-91's lock
    is built on)."""
    c = client(s)
    bucket, _, key = path.partition("/")
    condition = {"IfMatch": etag} if etag else {"IfNoneMatch": "*"}
    try:
        return c.put_object(Bucket=bucket, Key=key, Body=data, **condition)["ETag"]
    except c.exceptions.ClientError as e:
        if _precondition_failed(e):
            return None
        raise
