"""What an S3 request is, read off its WSGI environ: its op (LIST, HEAD, GET, PUT, POST, DELETE), bucket and key.
Path-style addressing only (`http://host:port/bucket/key`)."""
from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import parse_qsl

OPS = ("LIST", "HEAD", "GET", "PUT", "POST", "DELETE")

# a GET on a bucket naming one of these reads the bucket's configuration: it lists nothing
BUCKET_SUBRESOURCES = frozenset({
    "accelerate", "acl", "analytics", "cors", "encryption", "intelligent-tiering", "inventory", "lifecycle",
    "location", "logging", "metrics", "notification", "object-lock", "ownershipControls", "policy",
    "policyStatus", "publicAccessBlock", "replication", "requestPayment", "tagging", "versioning", "website",
})


@dataclass(frozen=True)
class S3Request:
    op: str
    method: str
    bucket: str | None
    key: str | None
    range: str | None
    prefix: str | None = None  # a LIST's `prefix`: the folder it lists

    @property
    def target(self) -> str:
        """"bucket/key", what a fault rule's `key` pattern is searched in."""
        return f"{self.bucket or ''}/{self.key or ''}"

    def as_log(self) -> dict:
        return {"op": self.op, "method": self.method, "bucket": self.bucket, "key": self.key, "range": self.range,
                "prefix": self.prefix}


def _path(environ: dict) -> str:
    # PEP 3333 carries the decoded path as latin-1 code points of its UTF-8 bytes
    raw = environ.get("PATH_INFO", "")
    try:
        return raw.encode("latin-1").decode("utf-8")
    except UnicodeError:
        return raw


def bucket_and_key(path: str) -> tuple[str | None, str | None]:
    bucket, _, key = path.lstrip("/").partition("/")
    return bucket or None, key or None


def op_of(method: str, bucket: str | None, key: str | None, query: str) -> str:
    if method != "GET":
        return method
    if key is not None:
        return "GET"
    if bucket is None:
        return "LIST"  # ListBuckets
    names = {name for name, _ in parse_qsl(query, keep_blank_values=True)}
    return "GET" if names & BUCKET_SUBRESOURCES else "LIST"


def classify(environ: dict) -> S3Request:
    method = environ.get("REQUEST_METHOD", "GET").upper()
    bucket, key = bucket_and_key(_path(environ))
    query = environ.get("QUERY_STRING", "")
    op = op_of(method, bucket, key, query)
    prefix = dict(parse_qsl(query, keep_blank_values=True)).get("prefix", "") if op == "LIST" else None
    return S3Request(op, method, bucket, key, environ.get("HTTP_RANGE"), prefix)
