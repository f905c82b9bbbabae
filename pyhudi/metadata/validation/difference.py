"""One disagreement between the metadata table and the data it describes."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Difference:
    partition: str  # the metadata partition
    where: str  # the data file (partition/name), data partition, or key it is about
    what: str  # what differs: "min of price", "location", "file not in the metadata table", "unreadable", ...
    metadata: Any = None  # what the metadata table holds (None: nothing)
    actual: Any = None  # what the data holds (None: nothing)

    def __str__(self) -> str:
        return f"{self.partition}: {self.where or '(table)'}: {self.what}: metadata table {self.metadata!r}, " \
               f"data {self.actual!r}"
