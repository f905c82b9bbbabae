"""Table-over-time benchmark (python -m bench.overtime): 200 upserts of 0.1% of the rows into a
merge-on-read table, with the table services on and off, against delta-rs doing the same merges (with
optimize, vacuum and checkpoints when its services are on): upsert and snapshot-scan latency every 10
commits."""
