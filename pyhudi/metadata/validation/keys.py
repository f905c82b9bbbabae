"""`record_index` and the secondary indexes against the table's records (HoodieMetadataTableValidator's
validateRecordIndex, by count and by content): every record's key at its file group, each secondary-index
entry (value and key) of every record whose value is not null; no entry for a record the table lacks."""
from __future__ import annotations

from typing import Iterable, Mapping

from pyhudi.metadata.record_index import location_of
from pyhudi.metadata.records import MetadataRecord
from pyhudi.metadata.validation.difference import Difference

Rows = Iterable[tuple[str, str, str]]  # (key or entry key, data partition, file id) of each record


def check_record_index(partition: str, records: Mapping[str, MetadataRecord], rows: Rows) -> list[Difference]:
    where: dict[str, set[tuple[str, str]]] = {}
    for key, data_partition, file_id in rows:
        where.setdefault(key, set()).add((data_partition, file_id))
    out = []
    if len(records) != len(where):
        out.append(Difference(partition, "", "number of keys", len(records), len(where)))
    for key, places in sorted(where.items()):
        rec = records.get(key)
        found = location_of(rec) if rec is not None else None
        if found is None:
            out.append(Difference(partition, key, "key not in the index", None, _places(places)))
        elif (found[0], found[1]) not in places:
            out.append(Difference(partition, key, "location", f"{found[0]}/{found[1]}", _places(places)))
    out += [Difference(partition, key, "key of no record", _located(records[key]), None)
            for key in sorted(set(records) - set(where))]
    return out


def check_secondary_index(partition: str, records: Mapping[str, MetadataRecord], rows: Rows) -> list[Difference]:
    entries = {key for key, _, _ in rows}
    out = []
    if len(records) != len(entries):
        out.append(Difference(partition, "", "number of entries", len(records), len(entries)))
    out += [Difference(partition, key, "entry not in the index", None, "a record holds it")
            for key in sorted(entries - set(records))]
    out += [Difference(partition, key, "entry of no record", "present", None)
            for key in sorted(set(records) - entries)]
    return out


def _places(places: set[tuple[str, str]]) -> str:
    return ", ".join(f"{p}/{f}" for p, f in sorted(places))


def _located(rec: MetadataRecord) -> str | None:
    found = location_of(rec)
    return None if found is None else f"{found[0]}/{found[1]}"
