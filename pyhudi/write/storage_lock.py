"""Apache Hudi's StorageBasedLockProvider (RFC-91, Hudi 1.0.2+): the table lock as one object on the table's own
store, `.hoodie/.locks/table_lock.json`, taken and kept with conditional writes, so writers of pyhudi and of Apache
Hudi on one S3 table exclude each other with no lock service.

The object is Hudi's StorageLockData, `{"expired": false, "validUntil": <epoch ms>, "owner": "<uuid>"}`. A writer
takes the lock when there is no object (a PUT with If-None-Match: *) or when the one there is released
(`expired`) or dangling (its `validUntil` passed, with Hudi's 500 ms allowance for clock drift): a PUT with
If-Match on the ETag it read, so of two writers only one wins. The holder renews `validUntil` every
hoodie.write.lock.storage.renew.interval.secs, and releases by writing `expired: true`, as Hudi does (a
conditional delete is not portable).
"""
from __future__ import annotations

import json
import logging
import posixpath
import threading
import time
import uuid

from pyhudi import object_store
from pyhudi.errors import HudiError
from pyhudi.storage import Storage

log = logging.getLogger(__name__)

LOCK_FILE = ".hoodie/.locks/table_lock.json"
CLOCK_DRIFT_MS = 500  # Hudi's CLOCK_DRIFT_BUFFER_MS
RETRY_WAIT_S = 1.0  # Hudi's DEFAULT_LOCK_ACQUIRE_RETRY_WAIT_TIME_IN_MILLIS


class StorageLockError(HudiError, RuntimeError):
    pass


def _now_ms() -> int:
    return int(time.time() * 1000)


def encode(expired: bool, valid_until_ms: int, owner: str) -> bytes:
    return json.dumps({"expired": expired, "validUntil": valid_until_ms, "owner": owner},
                      separators=(",", ":")).encode()


def held_by_someone(data: dict, now_ms: int) -> bool:
    """A lock not released and not dangling."""
    return not data.get("expired", False) and now_ms <= int(data.get("validUntil", 0)) + CLOCK_DRIFT_MS


class StorageLock:
    """The table lock of one writer: `with StorageLock(storage, base, timeout_s, validity_s, renew_s): ...`"""

    def __init__(self, storage: Storage, base: str, timeout_s: float, validity_s: int, renew_s: int):
        if storage.s3 is None:
            raise StorageLockError(
                "StorageBasedLockProvider keeps the lock with the conditional writes of an object store (S3); "
                f"{base} is not on one: use org.apache.hudi.client.transaction.lock.FileSystemBasedLockProvider")
        self.settings = storage.s3
        self.path = posixpath.join(base, LOCK_FILE)
        self.owner = str(uuid.uuid4())
        self.timeout_s, self.validity_ms, self.renew_s = timeout_s, validity_s * 1000, renew_s
        self._etag: str | None = None
        self._valid_until = 0
        self._stop = threading.Event()
        self._renewer: threading.Thread | None = None

    def __enter__(self) -> "StorageLock":
        deadline = time.monotonic() + self.timeout_s
        while not self._try_acquire():
            if time.monotonic() >= deadline:
                raise StorageLockError(f"the table lock {self.path} stayed held by another writer for "
                                       f"{self.timeout_s:.0f} s")
            time.sleep(RETRY_WAIT_S)
        self._renewer = threading.Thread(target=self._renew_until_released, daemon=True,
                                         name=f"pyhudi-lock-renewal-{self.owner[:8]}")
        self._renewer.start()
        return self

    def _try_acquire(self) -> bool:
        current = object_store.read_versioned(self.settings, self.path)
        etag = None
        if current is not None:
            data, etag = json.loads(current[0]), current[1]
            if held_by_someone(data, _now_ms()):
                if data.get("owner") == self.owner:  # our PUT landed though its answer was lost
                    self._etag, self._valid_until = etag, int(data["validUntil"])
                    return True
                return False
        valid_until = _now_ms() + self.validity_ms
        new = object_store.put_if_match(self.settings, self.path, encode(False, valid_until, self.owner), etag)
        if new is None:
            return False  # another writer took it between our read and our write
        self._etag, self._valid_until = new, valid_until
        return True

    def _renew_until_released(self) -> None:
        while not self._stop.wait(self.renew_s):
            valid_until = _now_ms() + self.validity_ms
            new = object_store.put_if_match(self.settings, self.path, encode(False, valid_until, self.owner),
                                            self._etag)
            if new is None:  # it expired and another writer took it: nothing of ours to keep
                log.error("pyhudi: the table lock %s was taken by another writer while %s held it", self.path,
                          self.owner)
                return
            self._etag, self._valid_until = new, valid_until

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        if self._renewer is not None:
            self._renewer.join()
        if object_store.put_if_match(self.settings, self.path, encode(True, self._valid_until, self.owner),
                                     self._etag) is None:
            log.warning("pyhudi: the table lock %s was no longer ours to release", self.path)
