"""MDT compaction: merging reproduces the base HFiles Hudi's compaction wrote, and compaction
around a data write in flight keeps Hudi's order."""
import posixpath

from pyhudi.metadata import MetadataWriter
from pyhudi.metadata.compaction import _merged_cells
from pyhudi.metadata.contents import base_hfile, base_hfile_of_cells
from pyhudi.metadata.reader import read_for_rewrite, read_slice
from pyhudi.storage import Storage
from pyhudi.table import instant_metadata as im
from pyhudi.table import properties
from tests.pyhudi.metadata.synthetic import V8_MDT, start_write, two_partition_table


def test_compaction_merge_reproduces_hudi_base_files(fixture_tables):
    """Merging the slices Hudi's MDT compaction read (base HFile + logs, Hudi's payload rules and
    map orders) gives exactly the base HFiles it wrote, for every partition kind."""
    storage, base = Storage.for_uri(fixture_tables[V8_MDT])
    writer = MetadataWriter(storage, base, properties.load(storage, base))
    state = writer.state()
    checked = copied = 0
    for part in ("files", "column_stats", "partition_stats", "record_index", "secondary_index_rider_idx"):
        for fid, slices in state.slices(part).items():
            if len(slices) < 2 or not slices[-1].base:
                continue
            read = read_slice(state, part, slices[-2], lambda k: True)
            written = [r for _, r in sorted(read.records.items(), key=lambda kv: kv[0].encode()) if not r.deleted]
            hudis = storage.read(f"{writer.mdt_path}/{part}/{slices[-1].base}")
            assert base_hfile(written, slices[-1].base, writer.compression) == hudis, (part, fid)
            # the compaction's path: cells no log touched copied undecoded, only their file name rewritten
            rewrite = read_for_rewrite(state, part, slices[-2])
            copied += len(rewrite.untouched)
            merged = _merged_cells(rewrite, slices[-1].base)
            assert base_hfile_of_cells(merged, writer.compression) == hudis, (part, fid)
            checked += 1
    assert checked == 17 and copied > 0


def test_compaction_around_a_write_in_flight(tmp_path):
    """Hudi compacts the MDT inside a write, before that write's MDT deltacommit: the deltacommit
    (requested before the compaction) completes after it and belongs to the compacted slice. Once
    a deltacommit exists whose data instant is still pending, compaction waits."""
    t, _ = two_partition_table(tmp_path / "t")
    mdt = t.mdt()
    mdt.initialize()
    tl = t.timeline
    inflight, i = start_write(t)
    stats = [t.write_base(i, "a", range(100, 103))]
    c = mdt.compact()
    assert c is not None and c > i
    mdt.commit(i, "commit", stats, {})
    assert mdt.compact() is None  # i is pending on the data table and has an MDT deltacommit
    tl.complete(inflight, im.encode(im.COMMIT, im.commit_metadata({}, "UPSERT", None)))
    state = mdt.state()
    [files_slice] = state.latest("files").values()
    assert files_slice.base_instant == c and [n.split("_")[1][:17] for n in files_slice.logs] == [i]
    assert posixpath.basename(stats[0].path) in mdt.files_listing()["city=a"]
    assert mdt.validate() == {}
    assert mdt.compact() is not None
