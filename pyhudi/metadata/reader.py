"""Reading the metadata table as readers see it: the latest file slice of each file group, its
base HFile merged with the valid blocks of its logs (`MdtState.valid_block`), rollback command
blocks dropping the blocks they target. The writer reads through this for partition statistics,
compaction and validation; the connector has its own reader (io.hudimeta.metadata)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import AbstractSet, Callable, Iterable

from pyhudi import hfile
from pyhudi import log as lf
from pyhudi.hfile.reader import lookup
from pyhudi.metadata.base_cache import BASE_RECORDS
from pyhudi.metadata.codec import decode_record
from pyhudi.metadata.errors import damaged
from pyhudi.metadata.keys import (
    ALL_PARTITIONS_KEY,
    FILE_ID_PREFIX,
    FILES,
    file_group_id,
    file_group_index,
    files_key,
    partition_path,
)
from pyhudi.metadata.merge import combine
from pyhudi.metadata.records import MetadataRecord, deletion
from pyhudi.metadata.schema import schema_text
from pyhudi.metadata.state import MdtState
from pyhudi.table.file_slices import FileSlice


@dataclass
class SliceRead:
    """A slice's merged records (of the wanted keys) and what the reading saw, for compaction.
    `base_keys`: every key of the base file for a compaction (`read_for_rewrite`), else the
    keys read that it holds."""
    records: dict[str, MetadataRecord]
    base_keys: set[str]
    log_keys: set[str]
    log_records: int = 0
    log_blocks: int = 0
    rollback_blocks: int = 0
    untouched: list[tuple[bytes, bytes]] | None = None  # `read_for_rewrite`: base cells no log block touched


def _read_base(state: MdtState, part: str, name: str, want: Callable[[str], bool],
               keys: set[str] | None = None) -> SliceRead:
    """The base file's records `want` accepts, decoded once per process (`base_cache`). With
    `keys`, only the HFile blocks that can hold them are read, so a lookup costs the same however
    many records the base file has; without, the whole file."""
    path = f"{state.mdt_path}/{part}/{name}"
    known = BASE_RECORDS.file(state.identity(part, name))
    if keys is None and not known.complete:
        try:
            contents = hfile.parse_hfile(state.storage.read(path), path)
        except hfile.HFileFormatError as e:
            raise damaged(state.mdt_path, part, name, e) from None
        decoded, every = _decode_cells(contents, want)
        known.records.update(decoded)
        known.complete = every
        if every:
            known.raw.clear()
        BASE_RECORDS.trim()
    elif keys is not None and (missing := known.missing(keys)):
        try:
            found = lookup(lambda offset, length: state.storage.read_range(path, offset, length),
                           state.size(part, name), [k.encode("utf-8") for k in missing], whole_blocks=True)
        except hfile.HFileFormatError as e:
            raise damaged(state.mdt_path, part, name, e) from None
        _keep_blocks(known, found)
        known.records.update((k, None) for k in missing if k not in known.raw and k not in known.records)
        BASE_RECORDS.trim()
    read = SliceRead({}, set(), set())
    for key, rec in known.records.items() if keys is None else ((k, known.get(k)) for k in keys):
        if rec is not None:
            read.base_keys.add(key)
            if want(key):
                read.records[key] = rec
    return read


def _keep_blocks(known, contents) -> None:
    """A lookup's whole blocks into the cache: cells undecoded, but a key a file holds twice (HBase allows it)
    combined now."""
    schema = _schema(contents)
    by_key: dict[str, list[bytes]] = {}
    for row, value in contents.cells:
        by_key.setdefault(row.decode("utf-8"), []).append(value)
    for key, values in by_key.items():
        if len(values) > 1 and key not in known.records:
            rec = None
            for v in values:
                rec = combine(rec, decode_record(key, v, schema))
            known.records[key] = rec
    known.add_blocks({k: vs[0] for k, vs in by_key.items() if len(vs) == 1}, contents.ranges, schema)


def _decode_cells(contents, want: Callable[[str], bool]) -> tuple[dict[str, MetadataRecord], bool]:
    """The records of the cells `want` accepts, and whether it accepted them all."""
    schema = _schema(contents)
    out: dict[str, MetadataRecord] = {}
    every = True
    for row, value in contents.cells:
        key = row.decode("utf-8")
        if want(key):
            out[key] = combine(out.get(key), decode_record(key, value, schema))
        else:
            every = False
    return out, every


def _schema(contents) -> str | None:
    schema = contents.file_info.get(b"schema")
    return schema.decode("utf-8") if schema else None


def _base_for_rewrite(state: MdtState, part: str, name: str, touched: set[str], read: SliceRead) -> None:
    """Fills `read` from the whole base file: the `touched` keys decoded, the other cells kept as
    they are in `read.untouched` - all decoded when the file was written under another schema."""
    try:
        contents = hfile.parse_hfile(state.storage.read(f"{state.mdt_path}/{part}/{name}"), name)
    except hfile.HFileFormatError as e:
        raise damaged(state.mdt_path, part, name, e) from None
    schema = _schema(contents)
    keep = read.untouched if schema == schema_text() else None
    for row, value in contents.cells:
        key = row.decode("utf-8")
        read.base_keys.add(key)
        if keep and keep[-1][0] == row:  # a key twice (cells are sorted): its records are combined
            touched.add(key)
            prev = keep.pop()[1]
            read.records[key] = decode_record(key, prev, schema)
        if keep is None or key in touched:
            read.records[key] = combine(read.records.get(key), decode_record(key, value, schema))
        else:
            keep.append((row, value))


def _every(key: str) -> bool:
    return True


def _valid_blocks(state: MdtState, part: str, logs: list[str], read: SliceRead) -> list[lf.LogBlock]:
    """The data and delete blocks of the logs that count, in log order."""
    blocks: list[lf.LogBlock] = []
    for log in logs:
        try:  # a completed instant's log file (slices hold no other): any damage is the table's, never a torn write
            found = lf.read_blocks(state.storage.read(f"{state.mdt_path}/{part}/{log}"), log)
        except lf.LogFormatError as e:
            raise damaged(state.mdt_path, part, log, e) from None
        for b in found:
            read.log_blocks += 1
            if b.is_rollback():
                read.rollback_blocks += 1
                blocks = [x for x in blocks if x.instant_time != b.target_instant_time]
            elif b.block_type in (lf.BlockType.HFILE_DATA, lf.BlockType.DELETE):
                compacted = b.header.get(lf.HeaderKey.COMPACTED_BLOCK_TIMES)
                if not state.valid_block(b.instant_time, log_compacted=compacted is not None):
                    continue
                if compacted is not None:  # a log compaction's block replaces those of the instants it lists
                    replaced = set(compacted.split(","))
                    blocks = [x for x in blocks if x.instant_time not in replaced]
                blocks.append(b)
    return blocks


def _apply_block(b: lf.LogBlock, read: SliceRead, want: Callable[[str], bool], ordered: bool) -> None:
    """`ordered`: merged files records keep Java's entry order (a compaction writes them again)."""
    merged = read.records
    if b.block_type == lf.BlockType.HFILE_DATA:
        for row, value in hfile.read_hfile(b.content):
            key = row.decode("utf-8")
            read.log_records += 1
            read.log_keys.add(key)
            if want(key):
                merged[key] = combine(merged.get(key), decode_record(key, value, b.schema), ordered)
        return
    for d in b.deletes():
        read.log_records += 1
        if d.record_key is not None:
            read.log_keys.add(d.record_key)
            if want(d.record_key):
                merged[d.record_key] = deletion(d.record_key)


def read_slice(state: MdtState, part: str, sl: FileSlice, want: Callable[[str], bool],
               keys: set[str] | None = None, ordered: bool = True) -> SliceRead:
    """The records of the keys `want` accepts in one file slice, merged. `keys`, when `want`
    accepts no other keys, lets the base file be searched for them rather than read whole.
    `ordered=False`: files records' entries in any order (not Java's, which only a rewrite needs)."""
    read = _read_base(state, part, sl.base, want, keys) if sl.base else SliceRead({}, set(), set())
    for b in _valid_blocks(state, part, sl.logs, read):
        _apply_block(b, read, want, ordered)
    return read


def read_for_rewrite(state: MdtState, part: str, sl: FileSlice) -> SliceRead:
    """Every record of a slice, for a compaction: the keys its log blocks touch merged (decoded),
    the base file's other cells left as they are in `untouched` (key order) when the file was
    written under our schema. Decoding and encoding records no log touched was nearly all of a
    compaction's time."""
    read = SliceRead({}, set(), set(), untouched=[])
    blocks = _valid_blocks(state, part, sl.logs, read)
    touched = {k for b in blocks for k in _block_keys(b)}
    if sl.base:
        _base_for_rewrite(state, part, sl.base, touched, read)
    for b in blocks:
        _apply_block(b, read, _every, ordered=True)
    return read


def _block_keys(b: lf.LogBlock) -> list[str]:
    if b.block_type == lf.BlockType.HFILE_DATA:
        return [row.decode("utf-8") for row, _ in hfile.read_hfile(b.content)]
    return [d.record_key for d in b.deletes() if d.record_key is not None]


def _groups_to_read(part: str, groups: list[str], keys: set[str] | None) -> dict[str, set[str] | None]:
    """The file groups that can hold `keys`, each with those it can hold: keys are routed to file
    groups by hash (a base file is searched only for its own keys)."""
    if keys is None or part not in FILE_ID_PREFIX or groups != [file_group_id(part, i) for i in range(len(groups))]:
        return {g: keys for g in groups}
    out: dict[str, set[str]] = {}
    for k in keys:
        out.setdefault(file_group_id(part, 0 if len(groups) == 1 else file_group_index(k, len(groups))), set()).add(k)
    return dict(sorted(out.items()))


def read_partition(state: MdtState, mdt_partition: str, keys: Iterable[str] | None = None,
                   prefixes: Iterable[str] | None = None, include_deleted: bool = False) -> dict[str, MetadataRecord]:
    """Merged records of an MDT partition (all keys, or those of `keys` or starting with one of
    `prefixes`), by key; deleted records only with `include_deleted`."""
    keyset = None if keys is None else set(keys)
    prefixes = None if prefixes is None else tuple(prefixes)

    def want(k: str) -> bool:
        return (keyset is None or k in keyset) and (prefixes is None or k.startswith(prefixes))

    latest = state.latest(mdt_partition)
    out: dict[str, MetadataRecord] = {}
    for fid, group_keys in _groups_to_read(mdt_partition, sorted(latest), keyset).items():
        if fid not in latest:
            continue
        for k, r in read_slice(state, mdt_partition, latest[fid], want, group_keys, ordered=False).records.items():
            if include_deleted or r.is_present:
                out[k] = r
    return dict(sorted(out.items()))


def read_files(state: MdtState, partitions: Iterable[str] | None = None) -> dict[str, dict[str, int]]:
    """partition -> {file name: size} from the `files` partition (all partitions, or those given)."""
    keys = None if partitions is None else [files_key(p) for p in partitions]
    return {partition_path(key): rec.live_files()
            for key, rec in read_partition(state, FILES, keys=keys).items() if key != ALL_PARTITIONS_KEY}


def files_listing(state: MdtState, skip: AbstractSet[str] = frozenset()) -> dict[str, dict[str, int]]:
    """The table's partitions (those `__all_partitions__` lists) and their files, sorted; the partitions
    in `skip` left out (the cleaner's quiet ones: their files are most of a big table's)."""
    recs = read_partition(state, FILES, keys=[ALL_PARTITIONS_KEY] if skip else None)
    all_parts = recs.get(ALL_PARTITIONS_KEY)
    parts = sorted(p for p in map(partition_path, all_parts.live_files() if all_parts else {}) if p not in skip)
    if skip:  # only the other partitions' records decoded and merged
        recs = read_partition(state, FILES, keys=[files_key(p) for p in parts])
    return {p: dict(sorted(recs[files_key(p)].live_files().items())) if files_key(p) in recs else {}
            for p in parts}
