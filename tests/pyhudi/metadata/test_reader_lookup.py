"""Reads of given keys (partition statistics at every write) seek in the base HFiles: the records
a full read gives, reading the blocks that can hold the keys rather than the whole file; records
once decoded are not read again (base_cache), unless the file changed."""
from __future__ import annotations

import json
import time
import uuid

import pytest

from pyhudi import hfile
from pyhudi.hfile.cell import parse_cells
from pyhudi.metadata import contents
from pyhudi.metadata.base_cache import BASE_RECORDS
from pyhudi.metadata.keys import COLUMN_STATS, FILES, column_stats_key, column_stats_prefix, files_key
from pyhudi.metadata.reader import files_listing, read_files, read_for_rewrite, read_partition, read_slice
from pyhudi.metadata.state import MdtState
from pyhudi.storage import Storage
from pyhudi.table import file_names as filenames
from tests.pyhudi.metadata.synthetic import SyntheticTable

PARTITIONS, FILES_PER_PARTITION = 40, 25


class CountingStorage(Storage):
    """Counts the bytes read from base HFiles, whole and by range."""

    def __init__(self, storage: Storage):
        super().__init__(storage.fs, storage.local, storage.uri)
        self.whole = self.ranged = 0

    def read(self, path):
        data = super().read(path)
        if path.endswith(".hfile"):
            self.whole += len(data)
        return data

    def read_range(self, path, offset, length):
        data = super().read_range(path, offset, length)
        self.ranged += len(data)
        return data


def _stats(i: int) -> str:
    return json.dumps({
        "id": {"min": f"k{i:05d}", "max": f"k{i + 9:05d}", "null_count": 0, "value_count": 10, "total_size": 100,
               "total_uncompressed_size": 120, "type": "string"},
        "ts": {"min": i, "max": i + 5, "null_count": 0, "value_count": 10, "total_size": 80,
               "total_uncompressed_size": 90, "type": "int64"}})


@pytest.fixture(scope="module")
def table(tmp_path_factory):
    """1,000 files' column stats in base HFiles of 4 KiB blocks (no data files: the listing
    brings the stats), then a write whose stats go to log files."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(contents, "HFILE_BLOCK_SIZE", 4096)
        t = SyntheticTable(tmp_path_factory.mktemp("lookup") / "t")
        instant, _ = t.commit(lambda i: [])
        listing = {f"city=c{p:02d}": [(str(filenames.BaseFileName(str(uuid.UUID(int=p * 100 + f)) + "-0", "0-1-0",
                                                                   instant)), 1000, _stats(p * 100 + f))
                                      for f in range(FILES_PER_PARTITION)]
                   for p in range(PARTITIONS)}
        mdt = t.mdt(partitions=["files", "column_stats"])
        mdt.initialize(listing=listing)
        _, stats = t.commit(lambda i: [t.write_base(i, "c03", range(5))], mdt)
    return t, mdt, listing, stats[0]


@pytest.fixture(autouse=True)
def no_cached_records():
    BASE_RECORDS.clear()  # every test counts the bytes its own reads take


def _state(mdt) -> tuple[MdtState, CountingStorage]:
    state = mdt.state()
    state.storage = CountingStorage(mdt.storage)
    return state, state.storage


def _base_bytes(state) -> int:
    return sum(e.size for e in state.storage.list(f"{state.mdt_path}/{COLUMN_STATS}") if e.name.endswith(".hfile"))


def test_keyed_reads_give_the_full_reads_records_from_fewer_bytes(table):
    _, mdt, listing, written = table
    state, counting = _state(mdt)
    everything = read_partition(state, COLUMN_STATS)
    assert counting.whole == _base_bytes(state) > 50_000 and counting.ranged == 0
    assert read_partition(state, COLUMN_STATS) == everything and counting.whole == _base_bytes(state)  # not again
    names = [name for name, _, _ in listing["city=c03"][:5]] + [written.path.split("/")[-1], "absent.parquet"]
    keys = [column_stats_key(c, "city=c03", n) for n in names for c in ("id", "ts", "amount")]
    counting.whole = 0
    BASE_RECORDS.clear()
    found = read_partition(state, COLUMN_STATS, keys=keys)
    assert found == {k: everything[k] for k in keys if k in everything}
    assert len(found) == 5 * 2 + 3  # the listed files have no `amount` stats; the written one (in a log) has
    assert counting.whole == 0 and 0 < counting.ranged < _base_bytes(state) / 4
    counting.ranged = 0  # the same keys again, in the next operation: decoded already, nothing read
    assert read_partition(_state(mdt)[0], COLUMN_STATS, keys=keys) == found
    assert counting.ranged == 0


def _blocks(state) -> list[list[str]]:
    """The keys of every data block of the column_stats base files."""
    out = []
    for e in state.storage.list(f"{state.mdt_path}/{COLUMN_STATS}"):
        if e.name.endswith(".hfile"):
            data = state.storage.read(f"{state.mdt_path}/{COLUMN_STATS}/{e.name}")
            for block in hfile.parse_hfile(data).data_blocks():
                out.append([k.decode() for k, _ in parse_cells(block.payload, True, False)])
    return out


def test_keys_inside_the_blocks_a_lookup_read_are_answered_without_reading(table):
    """A partition's keys read once, keys absent from the base file between them (the column stats of files
    added to it later) and its other keys in the same blocks need no read; a key elsewhere does. (A key
    that starts a block may end the one before: it is looked up.)"""
    _, mdt, listing, _ = table
    everything = read_partition(mdt.state(), COLUMN_STATS)
    BASE_RECORDS.clear()
    state, counting = _state(mdt)
    blocks = _blocks(state)
    names = [name for name, _, _ in listing["city=c20"]]
    first = [column_stats_key(c, "city=c20", n) for n in names[::2] for c in ("id", "ts")]
    assert read_partition(state, COLUMN_STATS, keys=first) == {k: everything[k] for k in first}
    assert counting.ranged > 0
    counting.ranged = 0
    absent = [k + "0" for k in first if k not in {b[-1] for b in blocks}]  # after k, before the next key of its block
    read = {k for b in blocks if set(b) & set(first) for k in b[1:]}  # the blocks that lookup read, but their firsts
    others = [k for k in (column_stats_key(c, "city=c20", n) for n in names[1::2] for c in ("id", "ts")) if k in read]
    assert len(absent) > 10 and len(others) > 10
    assert read_partition(state, COLUMN_STATS, keys=absent + others) == {k: everything[k] for k in others}
    assert counting.ranged == 0
    elsewhere = [column_stats_key("ts", f"city=c{p}", listing[f"city=c{p}"][0][0]) for p in range(30, 40)]
    assert read_partition(state, COLUMN_STATS, keys=elsewhere) == {k: everything[k] for k in elsewhere}
    assert counting.ranged > 0


def test_a_rebuilt_metadata_table_is_read_again(tmp_path):
    """A rebuild writes base files of the same names, here of the same sizes too: the records
    decoded from the first ones must not be given for the second."""
    t = SyntheticTable(tmp_path / "t")
    instant, _ = t.commit(lambda i: [])
    name = str(filenames.BaseFileName(str(uuid.UUID(int=1)) + "-0", "0-1-0", instant))
    mdt = t.mdt(partitions=["files"])
    mdt.initialize(listing={"city=a": [(name, 1000, _stats(1))]})
    assert files_listing(mdt.state()) == {"city=a": {name: 1000}}
    mdt.delete()
    time.sleep(0.05)  # file times are coarser than a nanosecond
    mdt.initialize(listing={"city=a": [(name, 2000, _stats(1))]})
    assert files_listing(mdt.state()) == {"city=a": {name: 2000}}


def test_a_key_a_prefix_filtered_out_is_still_there_for_the_next_read(table):
    _, mdt, listing, _ = table
    state, _ = _state(mdt)
    keys = [column_stats_key("ts", p, listing[p][0][0]) for p in ("city=c01", "city=c02")]
    assert list(read_partition(state, COLUMN_STATS, keys=keys, prefixes=[column_stats_prefix("ts", "city=c01")])) \
        == keys[:1]
    assert list(read_partition(state, COLUMN_STATS, keys=keys[1:])) == keys[1:]


def test_a_key_twice_in_a_base_file_is_merged_by_a_compaction(tmp_path):
    """HBase allows equal rows; a compaction copying cells undecoded must still merge them."""
    t = SyntheticTable(tmp_path / "t")
    instant, _ = t.commit(lambda i: [])
    names = [str(filenames.BaseFileName(str(uuid.UUID(int=i)) + "-0", "0-1-0", instant)) for i in range(3)]
    mdt = t.mdt(partitions=["files"])
    mdt.initialize(listing={"city=a": [(n, 1000, _stats(1)) for n in names[:2]],
                            "city=b": [(names[2], 1000, _stats(1))]})
    state = mdt.state()
    [sl] = state.latest(FILES).values()
    path = f"{mdt.mdt_path}/{FILES}/{sl.base}"
    cells = hfile.parse_hfile(mdt.storage.read(path)).cells
    a = files_key("city=a").encode()
    doubled = [c for c in cells for _ in range(2 if c[0] == a else 1)]
    mdt.storage.write(path, contents.base_hfile_of_cells(doubled, mdt.compression))
    rewrite = read_for_rewrite(mdt.state(), FILES, sl)
    assert files_key("city=a") in rewrite.records and a not in [row for row, _ in rewrite.untouched]
    assert len(rewrite.untouched) == len(cells) - 1


def test_every_key_alone_and_all_keys_together(table):
    _, mdt, _, _ = table
    state, _ = _state(mdt)
    everything = read_partition(state, COLUMN_STATS, include_deleted=True)
    keys = sorted(everything)
    for k in keys[::37] + [keys[0], keys[-1], "", "~", keys[10][:-1], keys[10] + "0"]:
        assert read_partition(state, COLUMN_STATS, keys=[k]) == ({k: everything[k]} if k in everything else {}), k
    assert read_partition(state, COLUMN_STATS, keys=keys, include_deleted=True) == everything


def test_keys_with_prefixes(table):
    _, mdt, listing, _ = table
    state, _ = _state(mdt)
    everything = read_partition(state, COLUMN_STATS)
    keys = [column_stats_key(c, p, n) for p in ("city=c01", "city=c02") for n, _, _ in listing[p][:3]
            for c in ("id", "ts")]
    prefix = column_stats_prefix("ts", "city=c02")
    assert read_partition(state, COLUMN_STATS, keys=keys, prefixes=[prefix]) == \
        {k: everything[k] for k in keys if k.startswith(prefix)}


def test_files_partition_by_key(table):
    _, mdt, _, _ = table
    state, counting = _state(mdt)
    listing = files_listing(state)
    counting.whole = counting.ranged = 0
    wanted = {p: listing[p] for p in ("city=c03", "city=c39")}
    assert read_files(state, ["city=c03", "city=c39", "city=nope"]) == wanted
    assert counting.whole == counting.ranged == 0  # the full read decoded them
    BASE_RECORDS.clear()
    assert read_files(state, ["city=c03", "city=c39", "city=nope"]) == wanted
    assert counting.whole == 0 and counting.ranged > 0
    assert len(read_partition(state, FILES)) == PARTITIONS + 1


def test_a_keyed_slice_read_knows_only_the_base_keys_it_found(table):
    """Compaction and validation read whole slices (no key set): all base keys; a keyed read
    only the keys asked for that the base file holds."""
    _, mdt, listing, _ = table
    state, _ = _state(mdt)
    [sl] = [s[-1] for s in state.slices(COLUMN_STATS).values() if s[-1].base][:1]
    whole = read_slice(state, COLUMN_STATS, sl, lambda k: True)
    some = sorted(whole.base_keys)[5:40:3]
    wanted = set(some) | {"absent"}
    keyed = read_slice(state, COLUMN_STATS, sl, wanted.__contains__, wanted)
    assert keyed.base_keys == set(some)
    assert keyed.records == {k: whole.records[k] for k in some}
    assert len(whole.base_keys) > 400
