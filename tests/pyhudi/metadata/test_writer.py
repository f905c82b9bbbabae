"""The metadata-table writer through its protocol, without Spark: commits, compaction, clean,
validation, retries and rollbacks, and the set of partitions it maintains."""
import posixpath
from pathlib import Path

import pytest

from pyhudi import hfile
from pyhudi import log as lf
from pyhudi.metadata.errors import MetadataTableError
from pyhudi.metadata.keys import (
    BLOOM_FILTERS,
    COLUMN_STATS,
    FILES,
    PARTITION_STATS,
    bloom_filter_key,
    column_stats_key,
    hash_id64,
    partition_stats_key,
)
from pyhudi.metadata.schema import schema_text_without_meta_fields
from pyhudi.table import file_names as filenames
from pyhudi.table import instant_metadata as im
from pyhudi.table import properties
from tests.pyhudi.metadata.synthetic import (
    non_partitioned_mor_table,
    start_write,
    two_partition_table,
    without_instant,
)


def _check_deltacommit(t, mdt, instant, stats):
    """The MDT deltacommit of a write: one log file per touched file group, HFile data blocks at
    the data instant; column stats of the new files, partition stats over the latest slices."""
    state = mdt.state()
    assert state.completed[instant].action == "deltacommit"
    logs = [n for n, _ in state.listing("files") if f"_{instant}.log." in n]
    assert len(logs) == 1
    [block] = lf.read_blocks(t.storage.read(f"{mdt.mdt_path}/files/{logs[0]}"))
    assert block.block_type == lf.BlockType.HFILE_DATA and block.instant_time == instant
    keys = [k.decode() for k, _ in hfile.read_hfile(block.content)]
    assert keys == ["__all_partitions__", "city=b", "city=c"]
    inflight_meta = im.decode(t.storage.read(f"{state.timeline.dir}/{instant}.deltacommit.inflight"))
    assert inflight_meta["operationType"] == "UPSERT_PREPPED" and inflight_meta["extraMetadata"] == {}
    assert [s["fileId"] for s in inflight_meta["partitionToWriteStats"]["files"]] == ["", "files-0000-0"]
    assert inflight_meta["partitionToWriteStats"]["files"][1]["prevCommit"] == "00000000000000000"
    done = im.decode(t.storage.read(f"{state.timeline.dir}/{state.completed[instant].file_name()}"))
    assert im.schema_of(done) == schema_text_without_meta_fields()
    [fs] = done["partitionToWriteStats"]["files"]
    assert (fs["path"], fs["logFiles"], fs["numWrites"], fs["prevCommit"]) == (f"files/{logs[0]}", logs, 3, instant)
    new_name = posixpath.basename(stats[0].path)
    rec = mdt.read_partition(COLUMN_STATS, keys=[column_stats_key("ts", "city=b", new_name)])
    assert list(rec.values())[0].stats.value_count == 3
    ps = mdt.read_partition(PARTITION_STATS, keys=[partition_stats_key("id", "city=b")])
    ps = list(ps.values())[0].stats
    assert ps.is_tight_bound and ps.value_count == 7 and ps.min_value.value == "k0010" and ps.max_value.value == "k0032"
    blooms = mdt.read_partition(BLOOM_FILTERS)
    assert len(blooms) == 5  # one per base file
    key = bloom_filter_key("city=b", new_name)
    assert blooms[key].bloom.bloom_filter.decode() == stats[0].bloom and blooms[key].bloom.timestamp == instant


def _check_compaction(t, mdt, instant):
    """Every file group's latest slice becomes a base HFile at a new instant."""
    assert mdt.compact_if_needed(max_deltacommits=6) is None  # 5 deltacommits so far
    t.commit(lambda i: [t.write_base(i, "a", range(50, 52))], mdt=mdt)
    c = mdt.compact_if_needed(max_deltacommits=6)
    assert c is not None and c > instant
    state = mdt.state()
    assert state.completed[c].action == "commit"
    plan = im.decode(t.storage.read(f"{state.timeline.dir}/{c}.compaction.requested"), im.COMPACTION_PLAN)
    assert {op["fileId"] for op in plan["operations"]} >= {"files-0000-0", "col-stats-0000-0", "col-stats-0001-0"}
    meta = im.decode(t.storage.read(f"{state.timeline.dir}/{state.completed[c].file_name()}"))
    assert meta["compacted"] and meta["operationType"] == "COMPACT"
    for part in mdt.partitions():
        for fid, sl in state.latest(part).items():
            if sl.base is None:  # a file group that never got a record keeps its bootstrap log only (as in Hudi)
                assert [n.split("_")[1][:17] for n in sl.logs] == [sl.base_instant], (part, fid)
                assert sl.base_instant.startswith("00000000000000")
            else:
                assert sl.base.endswith(f"_{c}.hfile") and not sl.logs, (part, fid)
    assert mdt.validate() == {}


def test_commit_compact_clean_validate(tmp_path):
    t, fids = two_partition_table(tmp_path / "t")
    mdt = t.mdt()
    mdt.initialize()
    listing_before = mdt.files_listing()
    instant, stats = t.commit(lambda i: [t.write_base(i, "b", range(30, 33)), t.write_base(i, "c", range(40, 41))],
                              mdt=mdt)
    assert mdt.validate() == {}
    listing = mdt.files_listing()
    assert set(listing) == {"city=a", "city=b", "city=c"} and set(listing_before) == {"city=a", "city=b"}
    assert {posixpath.basename(s.path): s.file_size for s in stats} == {
        n: s for p in ("city=b", "city=c") for n, s in listing[p].items() if instant in n}
    _check_deltacommit(t, mdt, instant, stats)
    _check_compaction(t, mdt, instant)
    before_clean = mdt.files_listing()
    stats_before = mdt.read_partition(COLUMN_STATS)

    # a later commit lands after the compacted base; clean keeps the latest slice only
    t.commit(lambda i: [t.write_base(i, "c", range(60, 62))], mdt=mdt)
    cleaned = mdt.clean(retain=1)
    assert cleaned is not None
    state = mdt.state()
    assert state.completed[cleaned].action == "clean"
    for part in mdt.partitions():
        for slices in state.slices(part).values():
            assert len(slices) == 1
    assert mdt.validate() == {}
    after = mdt.files_listing()
    assert {p: f for p, f in after.items() if p != "city=c"} == {p: f for p, f in before_clean.items() if p != "city=c"}
    assert set(stats_before) <= set(mdt.read_partition(COLUMN_STATS))

    # a data file that vanishes from storage shows up as a difference
    victim = next(iter(after["city=a"]))
    t.storage.delete(f"{t.base}/city=a/{victim}")
    assert mdt.validate() == {"extra_files": {"city=a": [victim]}}


def test_retry_rollback_and_invisible_commits(tmp_path):
    t, _ = two_partition_table(tmp_path / "t")
    mdt = t.mdt()
    mdt.initialize()
    tl = t.timeline
    inflight, i = start_write(t)
    stats = [t.write_base(i, "a", range(70, 72))]
    mdt.commit(i, "commit", stats, {})
    # not completed on the data table yet: readers (and validate) do not see it
    assert mdt.files_listing() == without_instant(mdt.files_listing(), i)
    mdt.commit(i, "commit", stats, {})  # a retry replaces the first attempt
    assert len([n for n, _ in mdt.state().listing("files") if f"_{i}.log." in n]) == 1
    tl.complete(inflight, im.encode(im.COMMIT, im.commit_metadata({}, "UPSERT", None)))
    assert posixpath.basename(stats[0].path) in mdt.files_listing()["city=a"]
    with pytest.raises(MetadataTableError, match="completed"):
        mdt.rollback(i)
    # an MDT deltacommit whose data instant died is rolled back by the next commit
    _, i2 = start_write(t)
    mdt.commit(i2, "commit", [t.write_base(i2, "a", range(80, 81))], {})
    tl.delete_pending(tl.instants()[-1])  # the data write is rolled back
    assert mdt.rollback(i2) is True
    assert not [n for n, _ in mdt.state().listing("files") if f"_{i2}." in n]
    assert mdt.validate() == {}


def test_non_partitioned_mor_table(tmp_path):
    t, fid = non_partitioned_mor_table(tmp_path / "np")
    mdt = t.mdt()
    assert mdt.initialize() == ["00000000000000000", "00000000000000001", "00000000000000002"]
    assert properties.load(t.storage, t.base)["hoodie.table.metadata.partitions"] == "bloom_filters,column_stats,files"
    instant, stats = t.commit(lambda i: [t.write_log(i, "x", [1, 2], fid)], mdt=mdt)
    assert mdt.validate() == {}
    files = mdt.read_partition(FILES)
    assert set(files) == {"__all_partitions__", "."} and files["__all_partitions__"].live_files() == {".": 0}
    log_name = posixpath.basename(stats[0].path)
    cs = mdt.read_partition(COLUMN_STATS, keys=[column_stats_key("amount", "", log_name)])
    s = list(cs.values())[0].stats
    assert (s.min_value.value, s.max_value.value, s.value_count, s.total_size) == (1.5, 3.0, 2, 0)
    assert not mdt.read_partition(BLOOM_FILTERS, prefixes=[hash_id64(".")]).keys() - {
        bloom_filter_key("", n) for n in mdt.files_listing()[""] if filenames.is_base(n)}


def test_delete_drops_table_and_property(tmp_path):
    t, _ = two_partition_table(tmp_path / "t")
    mdt = t.mdt()
    mdt.initialize()
    mdt.delete()
    assert not t.storage.exists(mdt.mdt_path)
    assert "hoodie.table.metadata.partitions" not in properties.load(t.storage, t.base)
    assert mdt.initialize()  # and it can be built again


# ---------------------------------------------------------------- the partitions maintained


def _mdt_folders(mdt) -> list[str]:
    return sorted(p.name for p in Path(mdt.mdt_path).iterdir() if p.is_dir() and p.name != ".hoodie")


def _written_at(mdt, instant) -> list[str]:
    """The MDT partitions holding a log file of `instant`."""
    return sorted(p for p in _mdt_folders(mdt) if any(f"_{instant}.log." in n for n, _ in mdt.state().listing(p)))


def test_partitions_must_be_valid(tmp_path):
    t, _ = two_partition_table(tmp_path / "t")
    for wrong in (["column_stats"], ["files", "partition_stats"], ["files", "expr_index_x"]):
        with pytest.raises(MetadataTableError):
            t.mdt(partitions=wrong)


def test_only_the_maintained_partitions_are_built_and_written(tmp_path):
    t, _ = two_partition_table(tmp_path / "t")
    mdt = t.mdt(partitions=[BLOOM_FILTERS, FILES])
    assert mdt.initialize() == ["00000000000000000", "00000000000000001"]
    assert properties.load(t.storage, t.base)["hoodie.table.metadata.partitions"] == "bloom_filters,files"
    assert _mdt_folders(mdt) == ["bloom_filters", "files"] and mdt.partitions() == ["files", "bloom_filters"]
    instant, _ = t.commit(lambda i: [t.write_base(i, "b", range(30, 33))], mdt=mdt)
    assert _written_at(mdt, instant) == ["bloom_filters", "files"]
    assert mdt.compact() and mdt.clean(retain=1)
    assert _mdt_folders(mdt) == ["bloom_filters", "files"] and mdt.validate() == {}


def test_a_partition_no_longer_maintained_is_dropped(tmp_path):
    t, _ = two_partition_table(tmp_path / "t")
    t.mdt().initialize()
    mdt = t.mdt(partitions=[FILES, COLUMN_STATS])
    assert mdt.partitions() == ["files", "column_stats"]  # not written, not dropped yet
    assert _mdt_folders(mdt) == ["bloom_filters", "column_stats", "files", "partition_stats"]
    instant, stats = t.commit(lambda i: [t.write_base(i, "b", range(30, 33))], mdt=mdt)
    assert properties.load(t.storage, t.base)["hoodie.table.metadata.partitions"] == "column_stats,files"
    assert t.props["hoodie.table.metadata.partitions"] == "column_stats,files"  # updated in place too
    assert _mdt_folders(mdt) == ["column_stats", "files"]
    assert _written_at(mdt, instant) == ["column_stats", "files"]
    name = posixpath.basename(stats[0].path)
    assert mdt.read_partition(COLUMN_STATS, keys=[column_stats_key("ts", "city=b", name)])
    assert mdt.validate() == {} and mdt.drop_unmaintained() == []
    # a writer maintaining every partition goes on with those still there
    full = t.mdt()
    assert full.partitions() == ["files", "column_stats"]
    instant, _ = t.commit(lambda i: [t.write_base(i, "a", range(40, 42))], mdt=full)
    assert _written_at(full, instant) == ["column_stats", "files"] and full.validate() == {}
