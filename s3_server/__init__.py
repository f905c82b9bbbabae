"""A real S3-compatible server for tests and benchmarks: moto's S3 in a process of its own, behind a middleware
that logs every request, adds latency and injects faults (errors, connection resets, lost responses, delays,
the death of a writer between two requests). See docs/s3-server.md.

    python -m s3_server --port 9000 --latency-ms 30     # for a person: prints the endpoint, runs until Ctrl-C

From code: `with S3Server(latency_ms=20) as s3: s3.create_bucket("b"); ...; s3.counts()` (s3_server.client).
"""
from s3_server.client import S3Server

__all__ = ["S3Server"]
