"""Concurrent writers on one table: commits per minute and conflict rate for 1, 2 and 4 writer processes
(`python -m bench.concurrency run`); the writer process (`worker`) is also the race test's
(integration/test_race.py)."""
