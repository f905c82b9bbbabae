"""The records a data instant yields are the ones Hudi writes, and commits of deleted files and
dropped partitions reach every MDT partition."""
from pathlib import Path

import pyarrow.parquet as pq

from pyhudi import hfile
from pyhudi import log as lf
from pyhudi.metadata import MetadataWriter
from pyhudi.metadata.codec import encode_record
from pyhudi.metadata.keys import (
    BLOOM_FILTERS,
    COLUMN_STATS,
    PARTITION_STATS,
    column_stats_prefix,
    hash_id64,
    partition_stats_key,
)
from pyhudi.metadata.partition_stats import partition_stats
from pyhudi.metadata.schema import schema_text
from pyhudi.metadata.stats import column_stats_json, columns_to_index
from pyhudi.storage import Storage
from pyhudi.table import instant_metadata as im
from pyhudi.table import properties
from pyhudi.table.write_stat import WriteStat
from tests.pyhudi.metadata.synthetic import V8_MDT, two_partition_table


def _block_cells(mdt_dir: Path, part: str, instant: str) -> dict[str, bytes]:
    out = {}
    for log in mdt_dir.joinpath(part).glob(f".*_{instant}.log.*"):
        for b in lf.read_blocks(log.read_bytes()):
            if b.block_type == lf.BlockType.HFILE_DATA:
                out.update((k.decode(), v) for k, v in hfile.read_hfile(b.content))
    return out


def _write_stats(base: Path, meta: dict, with_footer_stats: bool) -> list[WriteStat]:
    stats = []
    for p, s in im.write_stats(meta):
        col_stats = None
        if with_footer_stats:  # base files only: stats from their footers
            md = pq.ParquetFile(base / s["path"]).metadata
            col_stats = column_stats_json(md.schema.to_arrow_schema(), md)
        stats.append(WriteStat(partition=p, file_id=s["fileId"], path=s["path"], file_size=s["fileSizeInBytes"],
                               is_log=bool(s.get("logFiles")), num_writes=s["numWrites"], column_stats=col_stats))
    return stats


def _check_first_commit_stats(mdt_dir: Path, instant: str, meta: dict, records) -> None:
    """Column and partition statistics of the fixture's first commit, as Hudi wrote them."""
    mine = {r.key: encode_record(r) for r in records[COLUMN_STATS]}
    assert mine == _block_cells(mdt_dir, "column_stats", instant)
    cols = columns_to_index(im.schema_of(meta))
    per_partition = {}
    for r in records[COLUMN_STATS]:
        by_file = per_partition.setdefault(r.key[12:24], {})  # the partition's hash id
        by_file.setdefault(r.stats.file_name, {})[r.stats.column_name] = r.stats
    partitions = {hash_id64(p): p for p in ("city=chennai", "city=san_francisco", "city=sao_paulo")}
    pstats = [r for h, per_file in per_partition.items() for r in partition_stats(partitions[h], cols, per_file)]
    assert {r.key: encode_record(r) for r in pstats} == _block_cells(mdt_dir, "partition_stats", instant)


def test_commit_records_reproduce_hudi_log_blocks(fixture_tables):
    """The records `commit` derives from a data instant's write stats are the ones Hudi wrote for
    it: the `files` log block of every data commit of the fixture, byte for byte (HFile included),
    and the column and partition statistics of its first commit, from the Parquet footers."""
    base = Path(fixture_tables[V8_MDT])
    mdt_dir = base / ".hoodie" / "metadata"
    storage, b = Storage.for_uri(str(base))
    props = {**properties.load(storage, b), "hoodie.table.metadata.partitions": "column_stats,files"}
    writer = MetadataWriter(storage, b, props)
    state = writer.state()
    commits = [i for i in writer.data_timeline().completed() if i.action in ("commit", "deltacommit")]
    assert len(commits) == 7
    for inst in commits:
        meta = im.decode(writer.data_timeline().read(inst))
        first = inst.requested_time == commits[0].requested_time
        records, deletes = writer.instant_records(state, inst.requested_time, inst.action,
                                                  _write_stats(base, meta, first), {}, None,
                                                  schema=im.schema_of(meta))
        assert deletes == {"files": [], "column_stats": []}
        files = sorted(records["files"], key=lambda r: r.key.encode())
        cells = [(r.key.encode(), encode_record(r)) for r in files]
        [log] = mdt_dir.joinpath("files").glob(f".files-0000-0_{inst.requested_time}.log.*")
        [block] = lf.read_blocks(log.read_bytes())
        assert hfile.write_hfile(cells, file_info={"schema": schema_text()}) == block.content, inst
        if first:
            _check_first_commit_stats(mdt_dir, inst.requested_time, meta, records)


def test_clean_deletes_and_dropped_partitions(tmp_path):
    t, fids = two_partition_table(tmp_path / "t")
    mdt = t.mdt()
    mdt.initialize()
    a_files = mdt.files_listing()["city=a"]
    old = sorted(a_files)[0]
    t.storage.delete(f"{t.base}/city=a/{old}")
    for n in mdt.files_listing()["city=b"]:
        t.storage.delete(f"{t.base}/city=b/{n}")
    t.storage.delete(f"{t.base}/city=b")

    tl = t.timeline
    req = tl.create_requested("clean")
    inflight = tl.transition_to_inflight(req, b"")
    mdt.commit(req.requested_time, "clean", [], deleted_files={"city=a": [old]}, deleted_partitions=["city=b"])
    tl.complete(inflight, b"")
    assert mdt.validate() == {}
    listing = mdt.files_listing()
    assert set(listing) == {"city=a"} and old not in listing["city=a"]
    cs = mdt.read_partition(COLUMN_STATS, prefixes=[column_stats_prefix("ts", "city=a")])
    assert old not in {r.stats.file_name for r in cs.values()}
    assert not mdt.read_partition(PARTITION_STATS, keys=[partition_stats_key("ts", "city=b")])
    assert not any(k.startswith(hash_id64("city=b")) for k in mdt.read_partition(BLOOM_FILTERS))
    # the dropped partition's files record went to a delete block
    files_log = [n for n, _ in mdt.state().listing("files") if f"_{req.requested_time}.log." in n]
    blocks = lf.read_blocks(t.storage.read(f"{mdt.mdt_path}/files/{files_log[0]}"))
    assert [b.block_type for b in blocks] == [lf.BlockType.HFILE_DATA, lf.BlockType.DELETE]
    assert [(d.record_key, d.partition_path) for d in blocks[1].deletes()] == [("city=b", "files")]


def test_a_file_without_stats_takes_the_partitions_ranges_away(tmp_path):
    """A log file committed without column stats (a catch-up takes log files from the commit metadata alone)
    may hold any value: the partition's earlier ranges must not prune it (a stale record would)."""
    from dataclasses import replace as with_

    from tests.pyhudi.metadata.synthetic import SyntheticTable
    t = SyntheticTable(tmp_path / "t", table_type="MERGE_ON_READ")
    mdt = t.mdt()
    mdt.initialize()
    _, [base] = t.commit(lambda i: [t.write_base(i, "a", range(5))], mdt)
    key = partition_stats_key("amount", "city=a")
    before = mdt.read_partition(PARTITION_STATS, keys=[key])[key].stats
    assert before.max_value.value == 6.0 and not before.is_deleted
    t.commit(lambda i: [with_(t.write_log(i, "a", [900], base.file_id), column_stats=None)], mdt)
    assert not mdt.read_partition(PARTITION_STATS, keys=[key])  # deleted: no range left to prune by
    t.commit(lambda i: [t.write_base(i, "a", range(3))], mdt)  # a new file group, every live file with stats
    assert not mdt.read_partition(PARTITION_STATS, keys=[key])  # the log file is still live
    assert mdt.validate() == {}
