"""column_stats, bloom_filters and partition_stats added to a metadata table that has `files`: by the
indexing action while a writer goes on (cleans, replaces and deletes included), and by a write that enables
them. Either way the partitions end as a metadata table built from scratch holds them, and reads prune by
them correctly."""
import shutil

import pytest

from pyhudi import faults
from pyhudi.cli import main as cli
from pyhudi.hudi_table import HudiTable
from pyhudi.metadata import MetadataWriter, from_listing
from pyhudi.metadata.keys import BLOOM_FILTERS, COLUMN_STATS, FILES, PARTITION_STATS
from pyhudi.services import indexing
from pyhudi.storage import Storage
from pyhudi.table import properties
from tests.pyhudi.services.test_indexing import _timeline
from tests.pyhudi.write.test_record_index import _partitions, _rows

OPTS = {"hoodie.table.name": "cs", "hoodie.datasource.write.recordkey.field": "id",
        "hoodie.datasource.write.precombine.field": "ts", "hoodie.datasource.write.partitionpath.field": "region",
        "hoodie.clean.automatic": "false", "hoodie.archive.automatic": "false", "hoodie.compact.inline": "false",
        "hoodie.metadata.index.column.stats.enable": "false"}
ENABLED = {**OPTS, "hoodie.metadata.index.column.stats.enable": "true",
           "hoodie.metadata.index.bloom.filter.enable": "true"}  # partition stats too, by default
PARTS = (COLUMN_STATS, BLOOM_FILTERS, PARTITION_STATS)


def _writer(path: str) -> MetadataWriter:
    storage, base = Storage.for_uri(path)
    return MetadataWriter(storage, base, properties.load(storage, base), partitions=(FILES, *PARTS))


def _contents(path: str) -> dict[str, dict]:
    """Each partition's live records; bloom filters by their bits (their instant is the write's)."""
    mdt = _writer(path)
    out = {}
    for part in PARTS:
        recs = {k: r for k, r in mdt.read_partition(part).items() if r.is_present}
        out[part] = {k: (r.bloom.bloom_filter if r.bloom else r.stats) for k, r in recs.items()}
    return out


def _from_scratch(path: str, tmp_path) -> dict[str, dict]:
    """The same partitions of a copy of the table whose metadata table is built again from a listing."""
    copy = str(tmp_path / "scratch")
    shutil.copytree(path, copy)
    mdt = _writer(copy)
    mdt.delete()
    mdt.initialize()
    return _contents(copy)


def _pruned_read_is_right(t, spark, predicate: str) -> None:
    full = t.read(**{"hoodie.enable.data.skipping": "false"}).filter(predicate)
    pruned = t.read(**{"hoodie.enable.data.skipping": "true"}).filter(predicate)
    assert sorted(map(tuple, pruned.collect())) == sorted(map(tuple, full.collect()))


@pytest.mark.parametrize("table_type", ["COPY_ON_WRITE", "MERGE_ON_READ"])
def test_built_by_the_indexing_action_while_a_writer_goes_on(spark, tmp_path, table_type):
    path = str(tmp_path / table_type)
    t = HudiTable(spark, path, {**OPTS, "hoodie.datasource.write.table.type": table_type})
    t.insert(_rows(spark, range(30), 1))
    t.upsert(_rows(spark, range(0, 30, 3), 2))
    writes, started, writer, round_ = [], [], {}, []

    def meanwhile():  # between the snapshot build and the hand-over (the writes pass this crash point too)
        if started:
            return
        started.append(True)
        writes.append(t.upsert(_rows(spark, range(25, 40), 3), writer))  # new files, or new logs
        writes.append(t.delete(_rows(spark, range(0, 4), 4), writer))
        writes.append(t.compact() if table_type == "MERGE_ON_READ" else None)  # new bases; older slices to clean
        writes.append(t.clean({"hoodie.cleaner.policy": "KEEP_LATEST_FILE_VERSIONS",
                               "hoodie.cleaner.fileversions.retained": "1"}))  # files gone
        writes.append(t.insert_overwrite(_rows(spark, range(100, 104), 5, region="us"), writer))  # groups replaced
        if PARTITION_STATS in round_:  # a partition dropped: its groups replaced, its files kept
            writes.append(t.delete_partition(["apac"], writer))
    no_partition_stats = {**ENABLED, "hoodie.metadata.index.partition.stats.enable": "false"}
    for part, options in ((COLUMN_STATS, OPTS), (BLOOM_FILTERS, no_partition_stats), (PARTITION_STATS, ENABLED)):
        started.clear()
        writer.clear()
        writer.update(options)
        round_[:] = [part]
        if part == PARTITION_STATS:
            writes.append(t.upsert(_rows(spark, range(200, 204), 7, region="apac"), no_partition_stats))
        with faults.at("after_files", meanwhile):
            if part != PARTITION_STATS:
                assert indexing.create(spark, path, part).is_completed
            else:  # the last one through the CLI
                assert cli(["index", "create", "--type", "partition_stats", path]) == 0
        assert part in _partitions(path)
    assert len(writes) == 17 and None not in (writes[3], writes[8], writes[14], writes[16])  # cleans, the drop
    assert [p for p in _partitions(path) if p in PARTS] == list(PARTS)
    assert len([p for p in _timeline(path, "indexing") if p.name.count("_") == 1]) == 3
    assert _contents(path) == _from_scratch(path, tmp_path)  # the writes during the build included
    t.upsert(_rows(spark, range(38, 45), 6), ENABLED)  # later writes keep them
    for predicate in ("v < 3", "v >= 38 and region = 'eu'", "id = 'k0101'", "ts = 6"):
        _pruned_read_is_right(t, spark, predicate)


def test_a_write_that_enables_them_builds_them(spark, tmp_path):
    path = str(tmp_path / "write")
    t = HudiTable(spark, path, {**OPTS, "hoodie.datasource.write.table.type": "MERGE_ON_READ"})
    t.insert(_rows(spark, range(20), 1))
    t.upsert(_rows(spark, range(0, 20, 4), 2))
    assert _partitions(path) == [FILES]
    mdt = _writer(path)
    for part in PARTS:
        mdt.mark_inflight(part)
    from_listing.build(mdt, PARTS)  # a build that died after its base files (no heartbeat: it is gone)
    other = mdt.data_timeline().create_requested("deltacommit", b"")  # another writer's write, going on
    assert not from_listing.build_for_write(mdt, list(PARTS), own="20990101000000000")
    assert _partitions(path) == [FILES] and _inflight(path) == []  # Hudi builds them at a later write
    assert not any((tmp_path / "write" / ".hoodie" / "metadata" / p).exists() for p in PARTS)  # the dead one cleared
    mdt.data_timeline().delete_pending(other)
    t.upsert(_rows(spark, range(18, 24), 5), ENABLED)
    assert sorted(_partitions(path)) == sorted([FILES, *PARTS])
    built = _contents(path)
    scratch = _from_scratch(path, tmp_path)[COLUMN_STATS]
    assert {k: built[COLUMN_STATS].get(k) for k in scratch} == scratch
    # the write's own log files too: it collected their stats as it wrote them, a build from a listing reads
    # them from the logs' data blocks (as Hudi does), and the two agree
    assert any(".log." in s.file_name for s in scratch.values()) and set(built[COLUMN_STATS]) == set(scratch)
    for predicate in ("v < 2", "v = 23", "id = 'k0019'"):
        _pruned_read_is_right(t, spark, predicate)
    assert cli(["index", "drop", "--type", "column_stats", path]) == 0  # partition stats need it
    assert sorted(_partitions(path)) == sorted([FILES, BLOOM_FILTERS])


def _inflight(path: str) -> list[str]:
    storage, base = Storage.for_uri(path)
    return [p for p in properties.load(storage, base).get("hoodie.table.metadata.partitions.inflight", "").split(",")
            if p]


def test_errors_name_the_problem(spark, tmp_path):
    path = str(tmp_path / "errors")
    t = HudiTable(spark, path, OPTS)
    t.insert(_rows(spark, range(5), 1))
    with pytest.raises(indexing.IndexingError, match="aggregated from column stats.*--type column_stats"):
        indexing.create(spark, path, PARTITION_STATS)
    flat = str(tmp_path / "flat")
    HudiTable(spark, flat, {**OPTS, "hoodie.datasource.write.partitionpath.field": ""}).insert(
        _rows(spark, range(5), 1))
    indexing.create(spark, flat, COLUMN_STATS)
    with pytest.raises(indexing.IndexingError, match="not partitioned"):
        indexing.create(spark, flat, PARTITION_STATS)
    assert _partitions(path) == [FILES]  # left as it was
