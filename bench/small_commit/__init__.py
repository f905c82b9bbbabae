"""Small-commit latency: a 100-row upsert, pyhudi against delta-rs (python -m bench.small_commit)."""
