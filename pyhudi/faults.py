"""Crash points for the crash harness (integration/): a writer started with
PYHUDI_CRASH_AT=<point> kills itself with SIGKILL when it reaches that point of the protocol,
exactly as a machine failure would stop it. Unset, this costs one dictionary lookup. In-process
tests may instead hang an action on a point (`at`), e.g. to kill a server mid-write."""
from __future__ import annotations

import contextlib
import os
import signal
from typing import Callable, Iterator

POINTS = ("before_view", "after_requested", "after_inflight", "after_files", "after_partition_metadata",
          "after_metadata", "before_complete", "after_complete")


_ACTIONS: dict[str, Callable[[], None]] = {}


def crash_point(name: str) -> None:
    if os.environ.get("PYHUDI_CRASH_AT") == name:
        os.kill(os.getpid(), signal.SIGKILL)
    if name in _ACTIONS:
        _ACTIONS[name]()


@contextlib.contextmanager
def at(name: str, action: Callable[[], None]) -> Iterator[None]:
    """Runs `action` whenever this process reaches crash point `name`, within the block."""
    if name not in POINTS:
        raise ValueError(f"no crash point {name!r}; points: {', '.join(POINTS)}")
    _ACTIONS[name] = action
    try:
        yield
    finally:
        _ACTIONS.pop(name, None)
