"""Crash points for the crash harness (integration/): a writer started with
PYHUDI_CRASH_AT=<point> kills itself with SIGKILL when it reaches that point of the protocol,
exactly as a machine failure would stop it. Unset, this costs one dictionary lookup."""
from __future__ import annotations

import os
import signal

POINTS = ("after_requested", "after_inflight", "after_files", "after_partition_metadata", "after_metadata",
          "before_complete", "after_complete")


def crash_point(name: str) -> None:
    if os.environ.get("PYHUDI_CRASH_AT") == name:
        os.kill(os.getpid(), signal.SIGKILL)
