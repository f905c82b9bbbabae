"""Planning and a small upsert on an object store, by simulation: `python -m bench.object_store run`.

The tables live on the project's S3 server (s3_server: moto behind a middleware that logs every request and
sleeps a configurable latency before serving it), and Spark reaches them through Hadoop's S3A, as it would
reach S3. Each case counts the requests it made by op and times itself at 0 ms, 5 ms (S3 Express) and 30 ms
(S3 Standard) per request: the seconds a query's planning or a small upsert would take on a store of that
latency, with the server's own work on top (reported, since moto's LIST scans every key of its bucket)."""
