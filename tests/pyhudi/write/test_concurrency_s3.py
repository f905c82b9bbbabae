"""The table lock on object storage (a real S3-compatible server): its holder SIGKILLed, the lock file stays
until hoodie.write.lock.filesystem.expire has passed, then the next writer breaks it and goes on."""
import os
import signal
import subprocess
import sys
import time

import pytest

from conftest import PROJECT
from pyhudi.storage import Storage
from pyhudi.write.concurrency import Concurrency, LockTimeoutError
from tests.pyhudi.test_storage import _uri_path, monkeypatch_module, s3_uri  # noqa: F401 - the S3 server fixture

HOLD_AND_DIE = """
import os, signal, sys
from pyhudi.storage import Storage
from pyhudi.write.concurrency import Concurrency
storage, base = Storage.for_uri(sys.argv[1])
held = Concurrency.of({}).table_lock(storage, base)  # kept: a dropped generator would release it
held.__enter__()
os.kill(os.getpid(), signal.SIGKILL)
"""


def test_a_dead_holders_lock_expires_on_object_storage(s3_uri):  # noqa: F811
    uri = _uri_path(s3_uri, "cc")
    died = subprocess.run([sys.executable, "-c", HOLD_AND_DIE, uri], cwd=str(PROJECT), env=dict(os.environ),
                          capture_output=True, text=True, timeout=120)
    assert died.returncode == -signal.SIGKILL, died.stderr[-2000:]
    storage, base = Storage.for_uri(uri)
    expire = {"hoodie.write.lock.filesystem.expire": "1"}
    quick = Concurrency.of({**expire, "hoodie.write.lock.wait_time_ms": "500", "hoodie.write.lock.num_retries": "0"})
    with pytest.raises(LockTimeoutError, match="is held by another writer"):
        with quick.table_lock(storage, base):
            pass
    patient = Concurrency.of({**expire, "hoodie.write.lock.wait_time_ms": "30000",
                              "hoodie.write.lock.num_retries": "3"})
    start = time.monotonic()
    with patient.table_lock(storage, base):
        waited = time.monotonic() - start
    assert 40 < waited < 100  # until a minute after the dead holder stamped it
