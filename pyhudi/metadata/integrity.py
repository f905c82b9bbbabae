"""Whether the metadata table's files are whole: each file of a partition's latest slices is at least as long as
the completed metadata-table instant that wrote it recorded (its write stat's fileSizeInBytes; the largest, where
instants appended to one log file, as table version 6 does). A file cut short at a block boundary still parses;
this is what tells it from a whole one, from a listing and the timeline alone, without reading the files. It reads
the commit metadata of every instant that wrote a latest slice's file, so the validator runs it, not each write
(a write stays at a bounded number of reads however old the table; pyhudi's view and lookups refuse a block they
cannot parse). Files missing altogether are not seen here (a listing cannot tell them from those a clean deleted)."""
from __future__ import annotations

import posixpath
from dataclasses import dataclass
from typing import Iterable

from pyhudi.metadata.state import MdtState
from pyhudi.table import instant_metadata as im
from pyhudi.table.file_slices import file_id_and_instant


@dataclass(frozen=True)
class Damaged:
    partition: str
    file: str
    size: int  # on storage
    written: int  # what its instant recorded
    instant: str

    def __str__(self) -> str:
        return (f"{self.partition}/{self.file} is {self.size} bytes, but metadata-table instant {self.instant} "
                f"wrote {self.written}")


def damaged(state: MdtState, partitions: Iterable[str]) -> list[Damaged]:
    """The files of the latest slices of `partitions` shorter than their instant wrote them."""
    latest = {part: state.latest(part) for part in partitions}
    names = {(part, n) for part, slices in latest.items() for s in slices.values() for n in s.data_files()}
    if not names:
        return []
    oldest = min(_instant(n) for _, n in names)
    recorded: dict[str, tuple[int, str]] = {}
    for inst in state.completed.values():
        if inst.requested_time < oldest:
            continue  # wrote none of these files
        for _, stat in im.write_stats(im.decode(state.timeline.read(inst))):
            path, size = stat.get("path") or "", int(stat.get("fileSizeInBytes") or 0)
            if size > recorded.get(path, (0, ""))[0]:
                recorded[path] = (size, inst.requested_time)
    out = []
    for part, name in sorted(names):
        size, (written, instant) = state.size(part, name), recorded.get(posixpath.join(part, name), (0, ""))
        if size < written:
            out.append(Damaged(part, name, size, written, instant))
    return out


def _instant(name: str) -> str:
    found = file_id_and_instant(name)
    assert found is not None  # slices hold base and log files only
    return found[1]
