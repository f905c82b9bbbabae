"""Streaming-ingest benchmark (python -m bench.streaming, issue 17): a merge-on-read table written by pyhudi
takes N commits of new keys + updates of random existing keys, with pyhudi's log-file indexing
(pyhudi.bloom.index.log.files.enable, RFC-06) on and off, Avro and Parquet log data blocks; commit latency
over the commits, the files left on disk, snapshot and read-optimized reads after the last commit."""
