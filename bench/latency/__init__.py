"""Write-latency benchmark (python -m bench.latency): one small upsert into tables of 1k, 20k and 100k
data files after 10, 100 and 500 prior commits; pyhudi with and without its metadata table vs a
delta-rs merge of the same rows into a Delta table over the same Parquet files."""
