"""Several writers on one S3 table with optimistic concurrency control, under Apache Hudi's storage-based lock
(RFC-91: the lock object on the table's own bucket) and under pyhudi's lock file: writers of different file
groups both commit; writers of the same file groups, made to overlap (the first one's completing PUT is held at
the S3 server until the second has started), end with one commit and one conflict naming the other."""
import re
import threading
import uuid

import pytest

from pyhudi.hudi_table import HudiTable
from pyhudi.write.concurrency import HudiConflictError
from tests import s3_tables

SCHEMA = "id string, ts long, region string, val string"
LOCKS = "org.apache.hudi.client.transaction.lock."


def _options(provider):
    return {"hoodie.table.name": "occ", "hoodie.datasource.write.recordkey.field": "id",
            "hoodie.datasource.write.precombine.field": "ts", "hoodie.datasource.write.partitionpath.field": "region",
            "hoodie.write.concurrency.mode": "OPTIMISTIC_CONCURRENCY_CONTROL",
            "hoodie.write.lock.provider": LOCKS + provider}


def _rows(region, first, n, val):
    return [(f"{region}-{i:03d}", 2, region, val) for i in range(first, first + n)]


def _together(spark, path, provider, batches, store):
    """Each batch written by a thread of its own, started together; the first completing PUT held 4 s."""
    completed = rf"{re.escape(path.split('/', 3)[3])}/\.hoodie/timeline/\d{{17}}_\d{{17}}\.commit$"
    store.add_fault("delay", op="PUT", key=completed, delay_ms=4000, times=1)
    outcome = {}
    start = threading.Barrier(len(batches))

    def write(name, rows):
        table = HudiTable(spark, path, _options(provider))
        start.wait()
        try:
            outcome[name] = table.upsert(spark.createDataFrame(rows, SCHEMA))
        except HudiConflictError as e:
            outcome[name] = e

    threads = [threading.Thread(target=write, args=item) for item in batches.items()]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    store.clear_faults()
    return outcome


@pytest.mark.parametrize("provider", ["StorageBasedLockProvider", "FileSystemBasedLockProvider"])
def test_writers_on_s3_commit_apart_and_conflict_together(spark, s3_store, provider):
    path = f"s3a://{s3_tables.BUCKET}/occ-{uuid.uuid4().hex[:8]}"
    first = HudiTable(spark, path, _options(provider))
    first.insert(spark.createDataFrame(_rows("eu", 0, 20, "v0") + _rows("us", 0, 20, "v0"), SCHEMA))
    apart = _together(spark, path, provider, {"eu": _rows("eu", 0, 5, "eu1"), "us": _rows("us", 0, 5, "us1")},
                      s3_store)
    assert all(isinstance(v, str) for v in apart.values()), apart  # different file groups: both commit
    same = _together(spark, path, provider, {"a": _rows("eu", 0, 5, "a"), "b": _rows("eu", 5, 5, "b")}, s3_store)
    conflicts = [v for v in same.values() if isinstance(v, HudiConflictError)]
    commits = [v for v in same.values() if isinstance(v, str)]
    assert len(conflicts) == 1 and len(commits) == 1, same  # the race happened, and one lost it
    assert commits[0] in str(conflicts[0])  # the loser names the write it lost to
    vals = {r["id"]: r["val"] for r in spark.read.format("hudi-meta").load(path).collect()}
    winner = next(k for k, v in same.items() if isinstance(v, str))
    assert {vals[f"eu-{i:03d}"] for i in (range(5) if winner == "a" else range(5, 10))} == {winner}
    assert vals["us-000"] == "us1" and len(vals) == 40
