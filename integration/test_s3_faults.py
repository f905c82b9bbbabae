"""Commits and queries on S3 through faults injected at the S3 server the tests start: transient errors,
resets, lost answers and slow answers in the middle of a commit and a query are retried through and change
nothing of the result; a commit whose completing PUT keeps failing ends in an error, readers seeing the
table as it was; and a writer killed (SIGKILL, with its JVM and Python workers) between two requests of its
commit leaves a table both readers read as before, which the next write rolls back and writes on, with no
data file of the dead write left behind."""
import json
import os
import re
import subprocess
import sys
import uuid
from pathlib import Path

import pytest

from conftest import PROJECT
from pyhudi.hudi_table import HudiTable
from pyhudi.storage import Storage
from pyhudi.table import file_names as filenames
from pyhudi.table import properties
from pyhudi.table.timeline import Timeline
from tests import s3_tables

sys.path.insert(0, str(Path(__file__).parent))
from scenario import SCHEMA, options, rows  # noqa: E402

INSTANT = r"\d{17}"


@pytest.fixture
def store(s3_store):
    s3_store.clear_faults()
    yield s3_store
    s3_store.clear_faults()


def _table(spark, table_type):
    path = f"s3a://{s3_tables.BUCKET}/crash-{uuid.uuid4().hex[:8]}"
    table = HudiTable(spark, path, options(table_type))
    table.insert(spark.createDataFrame(rows(0, 100, ts=1), SCHEMA))
    return path, table


def _state(spark, path):
    return sorted(tuple(r) for r in spark.read.format("hudi-meta").load(path).select("id", "ts", "val").collect())


def _orphans(endpoint, path):
    """Data files on S3 whose instant never completed."""
    storage, base = Storage.for_uri(path)
    done = {i.requested_time for i in Timeline.for_table(storage, base, properties.load(storage, base)).completed()}
    prefix = path.split("/", 3)[3]
    names = [k.rsplit("/", 1)[-1] for k in s3_tables.fingerprint(endpoint, prefix) if "/.hoodie/" not in k]
    parsed = [filenames.parse_base(n) if filenames.is_base(n) else filenames.parse_log(n)
              for n in names if filenames.is_base(n) or filenames.is_log(n)]
    return [n for n in parsed if n.instant not in done]


def test_transient_faults_in_a_commit_and_a_query_change_nothing(spark, store):
    path, table = _table(spark, "MERGE_ON_READ")
    prefix = re.escape(path.split("/", 3)[3])
    for action, op, after, extra in (("error", "PUT", 1, {"status": 503, "code": "SlowDown"}),
                                     ("reset", "PUT", 3, {}), ("drop_response", "PUT", 5, {}),
                                     ("delay", "HEAD", 2, {"delay_ms": 200}), ("error", "GET", 2, {"status": 500}),
                                     ("reset", "GET", 4, {})):
        store.add_fault(action, op=op, key=prefix, after=after, **extra)
    table.upsert(spark.createDataFrame(rows(50, 100, ts=2), SCHEMA))
    got = dict((i, v) for i, _, v in _state(spark, path))
    assert len(got) == 150 and all(got[f"k{i:05d}"] == f"v{i}-2" for i in range(50, 150))
    assert [r["applied"] for r in store.faults()] == [1] * 6  # every fault happened


def test_a_commit_whose_completion_keeps_failing_errs_and_readers_see_the_table_as_it_was(spark, store):
    path, table = _table(spark, "COPY_ON_WRITE")
    before = _state(spark, path)
    completed = f"{re.escape(path.split('/', 3)[3])}/.hoodie/timeline/{INSTANT}_{INSTANT}\\.commit$"
    store.add_fault("error", op="PUT", key=completed, status=403, code="AccessDenied", times=None)
    with pytest.raises(Exception, match="AccessDenied|403"):
        table.upsert(spark.createDataFrame(rows(0, 10, ts=2), SCHEMA))
    store.clear_faults()
    assert _state(spark, path) == before
    table.upsert(spark.createDataFrame(rows(0, 10, ts=3), SCHEMA))  # rolls the failed one back
    assert {v for i, _, v in _state(spark, path) if i < "k00010"} == {f"v{i}-3" for i in range(10)}
    assert _orphans(store.endpoint, path) == []


def _kill_at(store, path, table_type, op, key, first):
    """A writer process upserting keys from `first`, killed with its process group at the first request of
    `op` whose key matches `key` (the request is not handled)."""
    conf = {f"spark.hadoop.fs.s3a.bucket.{s3_tables.BUCKET}.{k}": v
            for k, v in {"endpoint": store.endpoint, **s3_tables.KEYS}.items()}
    env = {**os.environ, "CRASH_WRITER_SPARK_CONF": json.dumps(conf),
           "PYTHONPATH": os.pathsep.join([str(PROJECT), str(Path(__file__).parent)])}
    writer = subprocess.Popen([sys.executable, str(Path(__file__).parent / "crash_writer.py"), path, table_type,
                               str(first)], env=env, cwd=str(PROJECT), start_new_session=True,
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    store.add_fault("kill", op=op, key=key, pid=writer.pid, group=True)
    _, err = writer.communicate(timeout=600)
    rules = store.faults()
    store.clear_faults()
    assert writer.returncode == -9, (rules, err[-300:])


# (where the writer dies: the request it was sending, by op and key, within the table)
KILLS = {"requested": ("PUT", rf"/\.hoodie/timeline/{INSTANT}\.(commit|deltacommit)\.requested$"),
         "a data file": ("PUT", r"/region=\w+/[^/]+(\.parquet|\.log\.\d+_[\d-]+)$"),
         "metadata commit": ("PUT", rf"/\.hoodie/metadata/\.hoodie/timeline/{INSTANT}_{INSTANT}\.deltacommit$"),
         "completion": ("PUT", rf"/\.hoodie/timeline/{INSTANT}_{INSTANT}\.(commit|deltacommit)$"),
         "after completion": ("DELETE", rf"/\.hoodie/\.temp/{INSTANT}/$")}


@pytest.mark.parametrize("table_type", ["COPY_ON_WRITE", "MERGE_ON_READ"])
def test_a_writer_killed_between_two_requests_loses_nothing_committed(spark, store, table_type):
    path, table = _table(spark, table_type)
    prefix = re.escape(path.split("/", 3)[3])
    first = 0
    for point, (op, key) in KILLS.items():
        if table_type == "MERGE_ON_READ" and point in ("requested", "metadata commit"):
            continue  # the same requests as copy-on-write: once is enough for CI's time
        before = _state(spark, path)
        _kill_at(store, path, table_type, op, prefix + key, first)
        after = _state(spark, path)
        assert (after != before) if point == "after completion" else (after == before), point
        table.upsert(spark.createDataFrame(rows(first, 10, ts=900), SCHEMA))
        got = {i: v for i, _, v in _state(spark, path)}
        assert all(got[f"k{i:05d}"] == f"v{i}-900" for i in range(first, first + 10)), point
        assert _orphans(store.endpoint, path) == [], point
        first += 20
