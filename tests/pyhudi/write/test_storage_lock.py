"""pyhudi.write.storage_lock: Apache Hudi's storage-based lock (RFC-91) on the S3 server the tests start: Hudi's
lock object, one holder at a time among racing writers (the race asserted to have happened), a dangling lock
taken over, the lease renewed while held, and a clear refusal off an object store."""
import json
import threading
import time
import uuid

import pytest

from pyhudi.storage import Storage
from pyhudi.write import storage_lock
from pyhudi.write.storage_lock import StorageLock, StorageLockError
from tests import s3_tables


def _table(s3_store):
    storage, base = Storage.for_uri(f"s3a://{s3_tables.BUCKET}/lock-{uuid.uuid4().hex[:8]}")
    return storage, base


def _lock_object(storage, base):
    return json.loads(storage.read(f"{base}/.hoodie/.locks/table_lock.json"))


def test_the_lock_object_is_hudis_and_release_marks_it_expired(s3_store):
    storage, base = _table(s3_store)
    with StorageLock(storage, base, timeout_s=5, validity_s=60, renew_s=30) as lock:
        held = _lock_object(storage, base)
        assert list(held) == ["expired", "validUntil", "owner"]
        assert held["expired"] is False and held["owner"] == lock.owner
        assert held["validUntil"] > time.time() * 1000 + 50_000
    assert _lock_object(storage, base) == {**held, "expired": True}


def test_racing_writers_hold_the_lock_one_at_a_time(s3_store, monkeypatch):
    monkeypatch.setattr(storage_lock, "RETRY_WAIT_S", 0.05)
    storage, base = _table(s3_store)
    holds, refused = [], []
    real = StorageLock._try_acquire

    def counted(self):
        got = real(self)
        if not got:
            refused.append(self.owner)
        return got

    monkeypatch.setattr(StorageLock, "_try_acquire", counted)
    start = threading.Barrier(4)

    def writer():
        start.wait()
        with StorageLock(storage, base, timeout_s=60, validity_s=60, renew_s=30):
            began = time.monotonic()
            time.sleep(0.2)
            holds.append((began, time.monotonic()))

    threads = [threading.Thread(target=writer) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(holds) == 4 and refused  # the race happened: writers found the lock held and waited
    spans = sorted(holds)
    assert all(a[1] <= b[0] for a, b in zip(spans, spans[1:]))  # no two holds overlap


def test_a_dangling_lock_of_a_dead_writer_is_taken_over(s3_store):
    storage, base = _table(s3_store)
    stale = storage_lock.encode(False, int(time.time() * 1000) - 10_000, "a-writer-that-died")
    storage.write(f"{base}/.hoodie/.locks/table_lock.json", stale)
    with StorageLock(storage, base, timeout_s=5, validity_s=60, renew_s=30) as lock:
        assert _lock_object(storage, base)["owner"] == lock.owner


def test_a_lock_held_by_another_writer_times_out_with_its_path(s3_store):
    storage, base = _table(s3_store)
    with StorageLock(storage, base, timeout_s=5, validity_s=60, renew_s=30):
        with pytest.raises(StorageLockError, match=r"table_lock.json stayed held by another writer for 1 s"):
            with StorageLock(storage, base, timeout_s=1, validity_s=60, renew_s=30):
                pass


def test_the_holder_renews_its_lease(s3_store):
    storage, base = _table(s3_store)
    with StorageLock(storage, base, timeout_s=5, validity_s=10, renew_s=1):
        first = _lock_object(storage, base)["validUntil"]
        time.sleep(2.5)
        assert _lock_object(storage, base)["validUntil"] > first


def test_off_an_object_store_the_lock_is_refused_naming_the_one_to_use(tmp_path):
    storage, base = Storage.for_uri(str(tmp_path / "t"))
    with pytest.raises(StorageLockError, match="not on one: use .*FileSystemBasedLockProvider"):
        StorageLock(storage, base, timeout_s=1, validity_s=60, renew_s=30)
