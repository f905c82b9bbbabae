"""Benchmarks of pyhudi (writer) and hudi-meta (reader) against hudi-rs, delta-rs, pyiceberg and
plain Spark Parquet.

    pip install -r bench/requirements.txt
    python -m bench run --scale small          # a few minutes
    python -m bench run --scale medium --only snapshot_scan_cow --resume

Results, a markdown report and plots go to bench/results/<scale>/. See bench/README.md.
"""
