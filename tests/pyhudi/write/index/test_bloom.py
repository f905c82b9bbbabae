"""hoodie.index.type=BLOOM (pyhudi.write.index.bloom): keys found by reading only files whose key range and bloom
filter may hold them; with log-file indexing (pyhudi.bloom.index.log.files.enable, RFC-06) merge-on-read inserts join
log files, whose Parquet data blocks carry key summaries, and whose bloom filters the metadata table keeps: lookups use
both to skip them. Tables read the same through
the connector and hudi-rs."""
import ast
import io
import json
import logging
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from pyhudi.basefile.bloom import parse_bloom_filter
from pyhudi.basefile.parquet import read_footer_keys
from pyhudi.hudi_table import HudiTable
from pyhudi.log import BlockType, read_log_file

SCHEMA = "id string, ts long, region string"
OPTS = {"hoodie.table.name": "bloom", "hoodie.datasource.write.recordkey.field": "id",
        "hoodie.datasource.write.precombine.field": "ts", "hoodie.datasource.write.partitionpath.field": "region",
        "hoodie.index.type": "BLOOM", "pyhudi.write.small.batch.max.records": "0"}  # the executors' lookups
LOG_INDEXING = {"hoodie.datasource.write.table.type": "MERGE_ON_READ", "pyhudi.bloom.index.log.files.enable": "true"}


def _rows(spark, keys, ts, region="eu"):
    return spark.createDataFrame([(k, ts, region) for k in keys], SCHEMA)


def _state(table) -> dict:
    return {r["id"]: r["ts"] for r in table.read().collect()}


def _hudi_rs(path) -> dict:
    from hudi import HudiTableBuilder

    t = pa.Table.from_batches(HudiTableBuilder.from_base_uri(path).build().read())
    return dict(zip(t.column("id").to_pylist(), t.column("ts").to_pylist()))


def _lookup(caplog) -> dict:
    (line,) = [r.getMessage() for r in caplog.records if r.getMessage().startswith("bloom index lookup")]
    caplog.clear()
    return ast.literal_eval(line.split(": ", 1)[1])


@pytest.mark.parametrize("table_type", ["COPY_ON_WRITE", "MERGE_ON_READ"])
def test_only_files_whose_range_and_bloom_may_hold_a_key_are_read(spark, tmp_path, caplog, table_type):
    caplog.set_level(logging.INFO, logger="pyhudi.write.client")
    path = str(tmp_path / table_type)
    table = HudiTable(spark, path, {**OPTS, "hoodie.datasource.write.table.type": table_type,
                                    "hoodie.parquet.small.file.limit": "0"})  # each insert: a new file group
    table.insert(_rows(spark, [f"a{i:03d}" for i in range(100)], 1))
    table.insert(_rows(spark, [f"b{i:03d}" for i in range(100)], 1))
    table.insert(_rows(spark, [f"a{i:03d}x" for i in range(0, 100, 2)], 1, "us"))
    table.upsert(_rows(spark, ["b005", "b050", "c000"], 2))
    counts = _lookup(caplog)
    # eu: the a-file's range excludes every key, the b-file is read; us is not touched
    assert counts["files_checked"] == 2 and counts["files_skipped"] == 1 and counts["keys_read"] == 100
    want = {**{f"a{i:03d}": 1 for i in range(100)}, **{f"b{i:03d}": 1 for i in range(100)},
            **{f"a{i:03d}x": 1 for i in range(0, 100, 2)}, "b005": 2, "b050": 2, "c000": 2}
    assert _state(table) == want == _hudi_rs(path)
    # a key inside the a-file's range but not in it: its bloom filter excludes it (fpp 1e-9); the b-file's and the
    # c000-file's ranges exclude it
    table.upsert(_rows(spark, ["a0505"], 3))
    counts = _lookup(caplog)
    assert counts["files_checked"] == 3 and counts["files_skipped"] == 3 and counts["keys_read"] == 0
    table.upsert(_rows(spark, ["a007"], 3))
    assert _lookup(caplog)["keys_read"] == 100
    want.update({"a0505": 3, "a007": 3})
    assert _state(table) == want == _hudi_rs(path)
    assert len(list(Path(path, "eu").glob("*.parquet"))) >= 2


@pytest.mark.parametrize("block_format", ["parquet", "avro", None])
def test_log_file_indexing_puts_inserts_in_logs_and_finds_them_there(spark, tmp_path, caplog, block_format):
    caplog.set_level(logging.INFO, logger="pyhudi.write.client")
    path = str(tmp_path / str(block_format))
    given = {"hoodie.logfile.data.block.format": block_format} if block_format else {}
    table = HudiTable(spark, path, {**OPTS, **LOG_INDEXING, **given})
    block_format = block_format or "parquet"  # the default under log-file indexing: blocks with key summaries
    table.insert(_rows(spark, [f"k{i:03d}" for i in range(20)], 1))
    (base,) = Path(path, "eu").glob("*.parquet")
    table.upsert(_rows(spark, ["n001", "n002", "k003"], 2))  # two inserts and an update: one log block
    _lookup(caplog)
    assert list(Path(path, "eu").glob("*.parquet")) == [base]  # no new base file, none rewritten
    (log_file,) = Path(path, "eu").glob(".*.log.*")
    (block,) = [b for b in read_log_file(str(log_file)) if b.block_type != BlockType.COMMAND]
    if block_format == "parquet":
        summary = read_footer_keys(io.BytesIO(block.content))
        assert (summary.min_record_key, summary.max_record_key) == ("k003", "n002")
        assert summary.bloom_filter.might_contain("n001") and not summary.bloom_filter.might_contain("n003")
    table.upsert(_rows(spark, ["n002"], 3))  # a key only a log file holds: an update, not a second record
    counts = _lookup(caplog)
    assert counts["blocks_checked"] == 1 and counts["blocks_skipped"] == 0
    table.upsert(_rows(spark, ["k010"], 4))  # both log blocks' summaries exclude k010: skipped (Parquet blocks)
    counts = _lookup(caplog)
    assert counts["blocks_checked"] == 2 and counts["blocks_skipped"] == (2 if block_format == "parquet" else 0)
    want = {**{f"k{i:03d}": 1 for i in range(20)}, "k003": 2, "n001": 2, "n002": 3, "k010": 4}
    assert _state(table) == want == _hudi_rs(path)
    assert list(Path(path, "eu").glob("*.parquet")) == [base]


def test_without_log_file_indexing_inserts_stay_out_of_log_files(spark, tmp_path):
    path = str(tmp_path / "off")
    table = HudiTable(spark, path, {**OPTS, "hoodie.datasource.write.table.type": "MERGE_ON_READ"})
    table.insert(_rows(spark, [f"k{i:03d}" for i in range(20)], 1))
    table.upsert(_rows(spark, ["k001"], 2))  # an update: a log file
    table.upsert(_rows(spark, ["n001"], 2))  # an insert: not into the group with a log file
    logs = [b for f in Path(path, "eu").glob(".*.log.*") for b in read_log_file(str(f))
            if b.block_type == BlockType.AVRO_DATA]
    assert [r["_hoodie_record_key"] for b in logs for r in b.records()] == ["k001"]
    assert _state(table) == {**{f"k{i:03d}": 1 for i in range(20)}, "k001": 2, "n001": 2} == _hudi_rs(path)
    assert pq.read_table(next(Path(path, "eu").glob("*.parquet"))).num_rows >= 1


def _mdt_log_filters(spark, path, partition="eu") -> dict:
    """The bloom_filters partition's filters of the partition's log files on storage (and of those named)."""
    names = [f.name for f in Path(path, partition).glob(".*.log.*")]
    found = spark._jvm.io.hudimeta.index.BloomFilters.filtersJson(path, {}, json.dumps({partition: names}))
    return json.loads(found).get(partition, {})


@pytest.mark.parametrize("block_format, where", [("avro", "executors"), ("parquet", "driver")])
def test_log_files_bloom_filters_in_the_metadata_table_let_lookups_skip_them_unopened(spark, tmp_path, caplog,
                                                                                       block_format, where):
    caplog.set_level(logging.INFO, logger="pyhudi.write.client")
    caplog.set_level(logging.INFO, logger="pyhudi.write.small_batch")
    path = str(tmp_path / block_format)
    small = {"pyhudi.write.small.batch.max.records": "10000"} if where == "driver" else {}  # else OPTS' 0
    table = HudiTable(spark, path, {**OPTS, **LOG_INDEXING, "hoodie.logfile.data.block.format": block_format,
                                    "hoodie.metadata.index.bloom.filter.enable": "true", **small})
    table.insert(_rows(spark, [f"k{i:03d}" for i in range(20)], 1))
    table.upsert(_rows(spark, ["n001", "n002", "k003"], 2))  # a log file holding n001, n002 and k003
    _lookup(caplog)
    ((log_name, entry),) = _mdt_log_filters(spark, path).items()
    held = parse_bloom_filter(entry["filter"], entry["type"])
    assert entry["type"] == "DYNAMIC_V0" and held.might_contain_all(["n001", "n002", "k003"]) == [True] * 3
    assert not any(held.might_contain_all([f"k{i:03d}" for i in range(20) if i != 3]))
    table.upsert(_rows(spark, ["k010"], 3))  # the log file's filter excludes k010: it is not opened
    counts = _lookup(caplog)
    assert counts["files_checked"] == 2 and counts["files_skipped"] == 1 and counts["blocks_checked"] == 0
    table.upsert(_rows(spark, ["n002"], 4))  # only the log file holds it: read, and an update (no second record)
    counts = _lookup(caplog)
    assert counts["blocks_checked"] >= 1 and counts["keys_read"] >= 3
    want = {**{f"k{i:03d}": 1 for i in range(20)}, "k003": 2, "n001": 2, "n002": 4, "k010": 3}
    assert _state(table) == want == _hudi_rs(path)
    assert table.read().count() == len(want)
    # compacted and cleaned away, the log files' filters are gone from the metadata table (tombstones)
    table.compact()
    table.clean({"hoodie.cleaner.policy": "KEEP_LATEST_FILE_VERSIONS", "hoodie.cleaner.fileversions.retained": "1"})
    assert not list(Path(path, "eu").glob(".*.log.*"))
    found = spark._jvm.io.hudimeta.index.BloomFilters.filtersJson(path, {}, json.dumps({"eu": [log_name]}))
    assert json.loads(found) == {}
    assert _state(table) == want == _hudi_rs(path)


def test_use_metadata_tests_base_files_by_their_filters_in_the_metadata_table_and_opens_only_candidates(
        spark, tmp_path, caplog):
    """hoodie.bloom.index.use.metadata: base files are tested against their bloom filters in the metadata table;
    a file they exclude is never opened (here: overwritten with garbage, and the write still succeeds), one they
    may hold is read for its keys."""
    caplog.set_level(logging.INFO, logger="pyhudi.write.client")
    path = str(tmp_path / "t")
    opts = {**OPTS, "hoodie.parquet.small.file.limit": "0", "hoodie.metadata.index.bloom.filter.enable": "true",
            "hoodie.bloom.index.use.metadata": "true"}
    table = HudiTable(spark, path, opts)
    table.insert(_rows(spark, [f"a{i:03d}" for i in range(100)], 1))
    table.insert(_rows(spark, [f"b{i:03d}" for i in range(100)], 1))
    a_file, _ = sorted(Path(path, "eu").glob("*.parquet"), key=lambda f: pq.read_table(f)["id"][0].as_py())
    # a0505 is inside the a-file's key range, which use.metadata does not consult: its bloom filter alone excludes it
    table.upsert(_rows(spark, ["a0505", "b007"], 2))
    counts = _lookup(caplog)
    assert counts["files_checked"] == 2 and counts["files_skipped"] == 1 and counts["keys_read"] == 100
    intact = a_file.read_bytes()
    a_file.write_bytes(b"not parquet")  # never opened by the next lookup: its filter excludes the batch's keys
    table.upsert(_rows(spark, ["b010"], 3))  # the a-file and a0505's new file are skipped, the b-file read
    counts = _lookup(caplog)
    assert counts["files_checked"] == 3 and counts["files_skipped"] == 2 and counts["keys_read"] == 100
    a_file.write_bytes(intact)
    want = {**{f"a{i:03d}": 1 for i in range(100)}, **{f"b{i:03d}": 1 for i in range(100)},
            "a0505": 2, "b007": 2, "b010": 3}
    assert _state(table) == want == _hudi_rs(path)
    # without it, the footer of every file is read: the garbage file fails the lookup, naming the file
    a_file.write_bytes(b"not parquet")
    plain = HudiTable(spark, path, {**opts, "hoodie.bloom.index.use.metadata": "false"})
    with pytest.raises(Exception, match=a_file.name):
        plain.upsert(_rows(spark, ["b011"], 4))
