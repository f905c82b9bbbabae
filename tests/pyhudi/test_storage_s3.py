"""pyhudi.storage on S3 as a real store behaves: faults injected at the S3 server the tests start (500, 503
SlowDown, connection resets, lost responses, slow answers) are retried through with back-off, and a fault that
does not pass ends in an error with nothing written. The commit point, the conditional PUT, is never fooled by
a retry: a PUT whose answer was lost finds its own object, not someone else's."""
import uuid

import pytest

from pyhudi.storage import AlreadyExists, Storage, StorageError
from tests import s3_tables


@pytest.fixture
def store(s3_store):
    s3_store.clear_faults()
    yield s3_store
    s3_store.clear_faults()


def _storage(name="f"):
    storage, path = Storage.for_uri(f"s3a://{s3_tables.BUCKET}/faults-{uuid.uuid4().hex[:8]}")
    return storage, f"{path}/{name}"


def _ops(store, key):
    return [(r["op"], r["fault"]) for r in store.requests() if r["key"] == key.split("/", 1)[1]]


@pytest.mark.parametrize("status", [500, 503])
def test_a_transient_error_is_retried_through(store, status):
    storage, path = _storage()
    store.reset_log()
    store.add_fault("error", op="PUT", key=path, status=status, times=2)
    storage.write(path, b"payload")
    assert storage.read(path) == b"payload"
    assert _ops(store, path)[:3] == [("PUT", "error"), ("PUT", "error"), ("PUT", None)]


def test_resets_and_slow_answers_are_retried_or_waited_for(store):
    storage, path = _storage()
    storage.write(path, b"0123456789")
    store.add_fault("reset", op="GET", key=path, times=1)
    store.add_fault("delay", op="GET", key=path, delay_ms=300, times=1)
    assert storage.read_range(path, 2, 4) == b"2345"
    assert storage.read(path) == b"0123456789"
    assert [f for op, f in _ops(store, path) if op == "GET"][:3] == ["reset", "delay", None]


def test_an_error_that_persists_fails_the_write_and_writes_nothing(spark, store):
    store.create_bucket("one-retry")  # fs.s3a.attempts.maximum of its own: the test waits for one retry, not five
    s3_tables.configure(spark, store.endpoint, "one-retry")
    spark.sparkContext._jsc.hadoopConfiguration().set("fs.s3a.bucket.one-retry.attempts.maximum", "1")
    storage, path = Storage.for_uri("s3a://one-retry/t/f")
    store.add_fault("error", op="PUT", key=path, status=503, times=None)
    with pytest.raises(StorageError, match="after 2 attempts: .*SLOW_DOWN.*fs.s3a.attempts.maximum"):
        storage.write(path, b"never")
    store.clear_faults()
    assert not storage.exists(path)


def test_a_conditional_put_whose_answer_was_lost_is_ours(store):
    storage, path = _storage("00000000000000001_00000000000000002.commit")
    store.reset_log()
    store.add_fault("drop_response", op="PUT", key=path, times=1)
    storage.create_if_absent(path, b"mine")  # the SDK retries, meets 412 on its own object: ours
    assert storage.read(path) == b"mine"
    puts = [f for op, f in _ops(store, path) if op == "PUT"]
    assert puts == ["drop_response", None]


def test_a_conditional_put_retried_onto_another_writers_object_is_refused(store):
    storage, path = _storage("lock")
    storage.create_if_absent(path, b"the other writer's")
    store.reset_log()
    store.add_fault("error", op="PUT", key=path, status=503, times=1)  # retried: then 412 on an object not ours
    with pytest.raises(AlreadyExists):
        storage.create_if_absent(path, b"mine")
    assert storage.read(path) == b"the other writer's"
    assert [f for op, f in _ops(store, path) if op == "PUT"] == ["error", None]
