"""The store side: buckets and their S3A settings, uploads, the server's memory, dropping a JVM's caches
for a cold plan, and the request log summarised.

Every table has a bucket of its own: the server (moto) answers a LIST by scanning every key of the bucket,
so a table's planning must not pay for another table's objects. S3 returns at most 1,000 keys per LIST
whatever max-keys asks; moto returns what is asked and S3A asks for 5,000 (fs.s3a.paging.maximum), so each
bucket sets fs.s3a.paging.maximum=1000: the pages, and so the LIST requests, are those S3 would serve."""
from __future__ import annotations

import collections
import os
import threading
import time
from concurrent.futures import ThreadPoolExecutor

UPLOAD_THREADS = 32
BUCKET_KEYS = {"path.style.access": "true", "access.key": "bench", "secret.key": "bench",
               "endpoint.region": "us-east-1", "paging.maximum": "1000"}
TABLE_DIR = "table"


def bucket_name(prefix: str, *parts: str) -> str:
    return "-".join((prefix,) + parts).lower().replace(".", "p").replace("_", "-")[:63]


def table_uri(bucket: str) -> str:
    return f"s3a://{bucket}/{TABLE_DIR}"


def configure(spark, endpoint: str, bucket: str) -> None:
    """The bucket's S3A settings (per bucket, fs.s3a.bucket.<b>.*), which the connector and pyhudi's writer
    both read from the session's Hadoop configuration."""
    conf = spark.sparkContext._jsc.hadoopConfiguration()
    for key, value in {"endpoint": endpoint, **BUCKET_KEYS}.items():
        conf.set(f"fs.s3a.bucket.{bucket}.{key}", value)


def _client(endpoint: str):
    import boto3
    from botocore.config import Config

    return boto3.client("s3", endpoint_url=endpoint, region_name="us-east-1", aws_access_key_id="bench",
                        aws_secret_access_key="bench",
                        config=Config(s3={"addressing_style": "path"}, max_pool_connections=UPLOAD_THREADS * 2,
                                      retries={"max_attempts": 5, "mode": "standard"}))


def upload(endpoint: str, bucket: str, files: list[tuple[str, str]]) -> dict:
    """PUTs every (local file, key) under `table/` of `bucket` with boto3 from UPLOAD_THREADS threads
    (multipart above 8 MB, as boto3 does); objects, bytes, seconds."""
    local = threading.local()

    def put(item: tuple[str, str]) -> int:
        client = getattr(local, "client", None) or _client(endpoint)
        local.client = client
        path, key = item
        client.upload_file(path, bucket, f"{TABLE_DIR}/{key}")
        return os.path.getsize(path)

    t0 = time.perf_counter()
    with ThreadPoolExecutor(UPLOAD_THREADS) as pool:
        sizes = list(pool.map(put, files, chunksize=64))
    return {"objects": len(files), "bytes": sum(sizes), "seconds": round(time.perf_counter() - t0, 1),
            "threads": UPLOAD_THREADS}


def list_cost(endpoint: str, bucket: str, prefix: str, rounds: int = 5) -> dict:
    """The server's own time for one LIST (one page) of `prefix` at latency 0: what moto spends scanning the
    bucket's keys, which every LIST of this bucket pays on top of the simulated latency."""
    client = _client(endpoint)
    samples = []
    for _ in range(rounds):
        t0 = time.perf_counter()
        client.list_objects_v2(Bucket=bucket, Prefix=f"{TABLE_DIR}/{prefix}", Delimiter="/", MaxKeys=1000)
        samples.append(time.perf_counter() - t0)
    return {"prefix": prefix, "median_ms": round(sorted(samples)[len(samples) // 2] * 1000, 1)}


def server_rss_mib(server) -> float | None:
    """Resident memory of the server's process (moto keeps every object in memory). The harness names no
    pid, so this reads its Popen; None when that is not there."""
    proc = getattr(server, "_process", None)
    try:
        with open(f"/proc/{proc.pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return round(int(line.split()[1]) / 1024, 1)
    except (OSError, AttributeError):
        return None
    return None


# ---------------------------------------------------------------- cold plans


def drop_caches(spark, uri: str) -> list[str]:
    """What a first plan in a fresh JVM would find: none of the connector's caches (synced table views, HFile
    blocks, parsed commit metadata) and a new S3A file system instance for the bucket (no connections, no
    stream caches). Returns the caches dropped; one the connector no longer has is skipped (and missing from
    the list, which results.json keeps)."""
    jvm, dropped = spark._jvm, []
    for name, drop in (("TableViews", lambda: jvm.io.hudimeta.view.TableViews.clear()),
                       ("BlockCache", lambda: jvm.io.hudimeta.hfile.BlockCache.shared().clear()),
                       ("Timeline.PARSED", lambda: _static_map(jvm, "io.hudimeta.table.Timeline", "PARSED").clear())):
        try:
            drop()
            dropped.append(name)
        except Exception:  # noqa: BLE001 - the connector changed: the check of equal requests per run tells
            pass
    path = jvm.org.apache.hadoop.fs.Path(uri)
    path.getFileSystem(spark._jsc.hadoopConfiguration()).close()  # closed: dropped from Hadoop's cache too
    dropped.append("S3AFileSystem")
    return dropped


def _static_map(jvm, cls: str, field: str):
    loader = jvm.java.lang.Thread.currentThread().getContextClassLoader()
    f = jvm.java.lang.Class.forName(cls, True, loader).getDeclaredField(field)
    f.setAccessible(True)
    return f.get(None)


# ---------------------------------------------------------------- the request log


def area(entry: dict) -> str:
    """Where a request went: `timeline` (.hoodie/ outside the metadata table), `metadata` (the metadata
    table), `data` (anything else: data folders, the table root, the bucket)."""
    where = entry.get("key") or entry.get("prefix") or ""
    rest = where.split("/", 1)[1] if where.startswith(f"{TABLE_DIR}/") else ""
    if rest.startswith(".hoodie/metadata"):
        return "metadata"
    if rest.startswith(".hoodie"):
        return "timeline"
    return "data"


def summarise(log: list[dict]) -> dict:
    """Requests by op, by area (see `area`) and by area and op, and the total."""
    return {"total": len(log), "by_op": dict(collections.Counter(e["op"] for e in log)),
            "by_area": dict(collections.Counter(area(e) for e in log)),
            "by_area_op": dict(collections.Counter(f"{area(e)}:{e['op']}" for e in log)),
            "errors": sum(1 for e in log if (e.get("status") or 0) >= 400 and e["op"] != "HEAD")}


def compact(log: list[dict]) -> list[list]:
    """The log as [op, key or LIST prefix, range, status] rows, in the order served."""
    return [[e["op"], e.get("key") if e["op"] != "LIST" else f"{e.get('prefix') or ''} (LIST)",
             e.get("range"), e.get("status")] for e in log]


def signature(log: list[dict]) -> list[tuple]:
    """The requests of a run, order aside, with instant times blanked: equal for runs that made the same
    requests of the same objects."""
    import re

    times = re.compile(r"\d{17}")
    return sorted((e["op"], times.sub("T", e.get("key") or ""), e.get("prefix") or "", e.get("range") or "")
                  for e in log)
