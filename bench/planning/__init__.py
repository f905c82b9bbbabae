"""Query-planning benchmark (python -m bench.planning): hudi-meta with/without its metadata table vs
spark.read.parquet, delta-rs and pyiceberg over the same Parquet files, at 1k, 20k and 100k files."""
