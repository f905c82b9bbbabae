"""`pyhudi metadata validate` checks every metadata partition against the data: a merge-on-read table with
all of them agrees; then each partition is broken in turn on a copy of the table (a wrong min, a missing key,
a stale location, a filter's bits, a truncated HFile, a log file cut at a block boundary, an entry of no
record) and the validator names the partition, the file or key, and exits with that partition's bit."""
import shutil
from pathlib import Path

import pytest

from pyhudi.cli import main as cli
from pyhudi.hfile import parse_hfile
from pyhudi.hudi_table import HudiTable
from pyhudi.metadata import MetadataWriter, contents
from pyhudi.metadata.codec import decode_record
from pyhudi.metadata.keys import bloom_filter_key
from pyhudi.metadata.layout import completed_partitions
from pyhudi.metadata.record_index import location_record
from pyhudi.metadata.records import MetadataRecord
from pyhudi.metadata.validation import EXIT_BITS, ValidationError
from pyhudi.metadata.wrappers import Wrapped
from pyhudi.services import indexing, metadata_check
from pyhudi.storage import Storage
from pyhudi.table import properties

SCHEMA = "id string, ts long, region string, city string, price double"
OPTS = {"hoodie.table.name": "checked", "hoodie.datasource.write.recordkey.field": "id",
        "hoodie.datasource.write.precombine.field": "ts", "hoodie.datasource.write.partitionpath.field": "region",
        "hoodie.datasource.write.table.type": "MERGE_ON_READ",
        "hoodie.metadata.record.index.enable": "true", "hoodie.metadata.index.bloom.filter.enable": "true",
        "hoodie.metadata.index.partition.stats.enable": "true", "hoodie.clean.automatic": "false",
        "hoodie.compact.inline": "false", "hoodie.archive.automatic": "false"}
SI = "secondary_index_city_idx"
EVERY = ["files", "column_stats", "bloom_filters", "partition_stats", "record_index", SI]


def write_table(spark, path: str) -> HudiTable:
    """The merge-on-read table of these tests: a bulk insert, the secondary index built, an upsert, a delete."""
    rows = [(f"k{i:03d}", 1, ("eu", "us")[i % 2], ("paris", "oslo", None)[i % 3], float(i)) for i in range(40)]
    t = HudiTable(spark, path, OPTS)
    t.bulk_insert(spark.createDataFrame(rows, SCHEMA))
    indexing.create(spark, path, SI, column="city")
    t.upsert(spark.createDataFrame([(f"k{i:03d}", 2, ("eu", "us")[i % 2], "rome", -float(i)) for i in range(0, 40, 7)],
                                   SCHEMA))
    t.delete(spark.createDataFrame([("k001", 3, "us", None, 0.0)], SCHEMA))
    return t


def compact_metadata(path: str) -> None:
    """Every partition of the table's metadata table compacted: its records in base HFiles."""
    storage, base = Storage.for_uri(path)
    props = properties.load(storage, base)
    assert MetadataWriter(storage, base, props, partitions=completed_partitions(props)).compact()


@pytest.fixture(scope="module")
def table(spark, tmp_path_factory):
    path = str(tmp_path_factory.mktemp("checked") / "t")
    write_table(spark, path)
    return path


def _copy(table, tmp_path) -> str:
    """A copy of the table whose metadata table is compacted: every record in the base HFiles."""
    path = str(shutil.copytree(table, tmp_path / "copy"))
    compact_metadata(path)
    return path


def _rewrite_base(path: str, part: str, change) -> None:
    """Every base HFile of `part` written again, each record passed through `change` (None drops it): what a
    writer with a bug would have left."""
    pdir = Path(path) / ".hoodie" / "metadata" / part
    for f in sorted(pdir.glob("*.hfile")):
        cells = parse_hfile(f.read_bytes())
        schema = cells.file_info.get(b"schema")
        recs = [decode_record(k.decode(), v, schema.decode() if schema else None) for k, v in cells.cells]
        kept = [r for r in map(change, recs) if r is not None]
        f.write_bytes(contents.base_hfile(kept, f.name, "NONE"))


def wrong_min(rec: MetadataRecord):
    """A column_stats record whose min of price is far below the file's: what the tests break."""
    if rec.stats is not None and rec.stats.column_name == "price" and rec.stats.min_value is not None:
        rec.stats.min_value = Wrapped(rec.stats.min_value.wrapper, -1000.0)
    return rec


def test_every_partition_of_a_right_table_agrees(spark, table):
    results = metadata_check.validate(table, spark=spark)
    assert sorted(results) == sorted(EVERY)
    assert results == {p: [] for p in EVERY}
    assert cli(["metadata", "validate", table]) == 0


def test_a_wrong_min_is_named_with_its_file(spark, table, tmp_path):
    path = _copy(table, tmp_path)
    _rewrite_base(path, "column_stats", wrong_min)
    diffs = metadata_check.validate(path, ["column_stats"])["column_stats"]
    assert diffs and {d.what for d in diffs} == {"min of price"}
    assert all(d.metadata == -1000.0 and d.where.startswith(("eu/", "us/")) for d in diffs)
    assert cli(["metadata", "validate", path, "--partition", "column_stats"]) == EXIT_BITS["column_stats"]


def test_a_partition_range_narrower_than_its_files_is_named(table, tmp_path):
    path = _copy(table, tmp_path)
    narrowed = set()

    def narrow(rec: MetadataRecord):
        if rec.stats is not None and rec.stats.column_name == "price" and rec.stats.max_value is not None:
            rec.stats.max_value = Wrapped(rec.stats.max_value.wrapper, 0.5)
            narrowed.add(rec.stats.file_name)
        return rec
    _rewrite_base(path, "partition_stats", narrow)
    diffs = metadata_check.validate(path, ["partition_stats"])["partition_stats"]
    assert narrowed and {(d.where, d.what) for d in diffs} == {(p, "max of price") for p in narrowed}


def test_a_filter_of_other_bits_and_a_missing_filter_are_named(table, tmp_path):
    path = _copy(table, tmp_path)
    state = {"dropped": None, "changed": None}

    def spoil(rec: MetadataRecord):
        if rec.bloom is None:
            return rec
        if state["dropped"] is None:
            state["dropped"] = rec.key
            return None
        if state["changed"] is None:
            state["changed"] = rec.key
            rec.bloom.bloom_filter = rec.bloom.bloom_filter[:-8] + b"AAAAAAAA"
        return rec
    _rewrite_base(path, "bloom_filters", spoil)
    diffs = metadata_check.validate(path, ["bloom_filters"])["bloom_filters"]
    whats = sorted(d.what for d in diffs)
    assert whats == ["filter bits", "no bloom filter"]
    spoiled = {bloom_filter_key(*d.where.split("/", 1)) for d in diffs}
    assert spoiled == {state["dropped"], state["changed"]}


def test_a_missing_key_and_a_stale_location_are_named(spark, table, tmp_path):
    path = _copy(table, tmp_path)

    def spoil(rec: MetadataRecord):
        if rec.key == "k002":
            return None
        if rec.key == "k004":
            return location_record("k004", "eu", "00000000-0000-0000-0000-000000000000-0", 0)
        return rec
    _rewrite_base(path, "record_index", spoil)
    diffs = {d.where: d for d in metadata_check.validate(path, ["record_index"], spark=spark)["record_index"]}
    assert diffs["k002"].what == "key not in the index"
    assert diffs["k004"].what == "location" and diffs["k004"].metadata.startswith("eu/00000000-")
    assert diffs[""].what == "number of keys" and diffs[""].metadata == diffs[""].actual - 1


def test_an_entry_of_no_record_is_named(spark, table, tmp_path):
    path = _copy(table, tmp_path)
    first = {}

    def spoil(rec: MetadataRecord):
        first.setdefault("key", rec.key)
        return rec if rec.key != first["key"] else MetadataRecord("nowhere$k999", rec.type,
                                                                  secondary_index={"isDeleted": False})
    _rewrite_base(path, SI, spoil)
    diffs = metadata_check.validate(path, [SI], spark=spark)[SI]
    assert {(d.where, d.what) for d in diffs} == {(first["key"], "entry not in the index"),
                                                  ("nowhere$k999", "entry of no record")}


def test_a_truncated_hfile_is_unreadable_and_named(table, tmp_path):
    path = _copy(table, tmp_path)
    base = sorted((Path(path) / ".hoodie" / "metadata" / "files").glob("*.hfile"))[-1]
    base.write_bytes(base.read_bytes()[: base.stat().st_size // 2])
    results = metadata_check.validate(path, ["files", "bloom_filters"])
    assert results["bloom_filters"] == []
    cut, unreadable = results["files"]
    assert cut.where == base.name and cut.what.startswith("shorter than instant") and cut.actual < cut.metadata
    assert unreadable.what == "unreadable" and base.name in unreadable.metadata
    assert cli(["metadata", "validate", path, "--partition", "files", "--partition", "bloom_filters"]) == \
        EXIT_BITS["files"]


def test_a_partition_not_built_is_refused(table):
    with pytest.raises(ValidationError, match="no built partition secondary_index_nope.*its partitions: files"):
        metadata_check.validate(table, ["secondary_index_nope"])
    with pytest.raises(ValidationError, match="reads the table's records with Spark"):
        metadata_check.validate(table, ["record_index"])


def test_a_log_file_cut_at_a_block_boundary_parses_but_is_named(spark, table, tmp_path):
    """What only the sizes the timeline recorded can tell: the file is whole blocks, fewer of them."""
    path = str(shutil.copytree(table, tmp_path / "copy"))  # not compacted: the upsert's records are in log files
    from pyhudi.log import read_log_file
    from pyhudi.log.framing import encode_blocks

    log = max((Path(path) / ".hoodie" / "metadata" / "record_index").glob(".record-index-*.log.*"),
              key=lambda f: len(read_log_file(str(f))))
    blocks = read_log_file(str(log))
    assert len(blocks) >= 1
    log.write_bytes(encode_blocks(blocks[:-1]))
    diffs = metadata_check.validate(path, ["record_index"], spark=spark)["record_index"]
    assert any(d.where == log.name and d.what.startswith("shorter than instant") for d in diffs), diffs
