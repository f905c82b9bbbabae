"""Readers facing a broken metadata table never return wrong rows (docs/format.md §10, "Damage in the metadata
table").

A merge-on-read table with every metadata partition (files, column_stats, partition_stats, bloom_filters,
record_index, secondary_index_city_idx), its metadata table compacted and written to once more, so each
partition has base HFiles and log files after them, is built once; each case damages one file of a copy
(truncated to half or to 100 bytes, or garbage appended) and reads it. Damage is never skipped: the
`files` partition falls back to listing storage, an index partition to no pruning by it, and one warning per
query names the file and `pyhudi metadata repair`, as the scan's description does. Only a torn block of a
write readers do not count (its data instant never completed) is skipped, without such a warning.
"""
from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
from py4j.protocol import Py4JJavaError

from pyhudi.log import DeleteRecord, delete_block, encode_block
from pyhudi.metadata.keys import file_group_index
from tests.pyhudi.services.test_metadata_check import SCHEMA, SI, compact_metadata, write_table  # the validator's table

PARTITIONS = ["files", "column_stats", "partition_stats", "bloom_filters", "record_index", SI]
QUERIES = [None, "price > 30", "id = 'k002'", "id = 'k100'", "city = 'oslo'"]
LOGGER = "io.hudimeta.metadata.MetadataDamage"
APPENDER = "broken-mdt-capture"


@pytest.fixture(scope="module")
def table(spark, tmp_path_factory) -> str:
    path = str(tmp_path_factory.mktemp("broken_mdt") / "t")
    t = write_table(spark, path)
    compact_metadata(path)
    # one more write after the compaction: every partition gets a log file after its base HFiles
    t.upsert(spark.createDataFrame([("k002", 4, "eu", "oslo", 35.0), ("k100", 4, "us", "oslo", 31.0)], SCHEMA))
    return path


@pytest.fixture(scope="module")
def expected(spark, table) -> dict:
    counts = {q: count(spark, table, q) for q in QUERIES}
    assert counts == {None: 40, "price > 30": 10, "id = 'k002'": 1, "id = 'k100'": 1, "city = 'oslo'": 12}
    return counts


class Capture:
    """The WARN lines of MetadataDamage's log4j logger since the last `clear`."""

    def __init__(self, writer):
        self.writer = writer

    def clear(self) -> None:
        self.writer.getBuffer().setLength(0)

    def lines(self) -> list[str]:
        return [line for line in str(self.writer.toString()).splitlines() if line.startswith("WARN ")]


@pytest.fixture(scope="module")
def warnings(spark):
    jvm = spark._jvm
    core = jvm.org.apache.logging.log4j.core
    ctx = jvm.org.apache.logging.log4j.LogManager.getContext(False)
    config = ctx.getConfiguration()
    writer = jvm.java.io.StringWriter()
    layout = core.layout.PatternLayout.newBuilder().withPattern("%p %m%n").build()
    appender = core.appender.WriterAppender.createAppender(layout, None, writer, APPENDER, False, True)
    appender.start()
    config.addLoggerAppender(ctx.getLogger(LOGGER), appender)
    config.getLoggerConfig(LOGGER).setLevel(jvm.org.apache.logging.log4j.Level.WARN)
    ctx.updateLoggers()
    yield Capture(writer)
    config.getLoggerConfig(LOGGER).removeAppender(APPENDER)
    ctx.updateLoggers()
    appender.stop()


def read(spark, path: str, where: str | None, **options):
    df = spark.read.format("hudi-meta").options(**options).load(path)
    return df if where is None else df.where(where)


def count(spark, path: str, where: str | None, **options) -> int:
    return read(spark, path, where, **options).count()


def described(spark, path: str, where: str | None) -> str:
    return str(read(spark, path, where)._jdf.queryExecution().executedPlan().toString())


# ---- which file to damage --------------------------------------------------------------------

def file_id(name: str) -> str:
    return name[1:].split("_", 1)[0] if name.startswith(".") else name.split("_", 1)[0]


def instant(name: str) -> str:
    return name[1:].split("_", 1)[1].split(".log.", 1)[0] if name.startswith(".") else name.rsplit("_", 1)[1][:-6]


def group(name: str) -> int:
    return int(file_id(name).rsplit("-", 2)[1])


def newest_log(dir_: Path) -> Path:
    logs = [f for f in dir_.iterdir() if ".log." in f.name]
    return max(logs, key=lambda f: (instant(f.name), f.name))


def latest_base(dir_: Path, partition: str) -> Path:
    """The base HFile of a latest slice (the newest of its file group): of the record_index group k002 hashes
    to, else of the first file group that has one."""
    bases = sorted(f for f in dir_.iterdir() if f.name.endswith(".hfile"))
    groups = sorted({group(f.name) for f in bases})
    wanted = file_group_index("k002", 10) if partition == "record_index" else groups[0]
    return max((f for f in bases if group(f.name) == wanted), key=lambda f: instant(f.name))


def queries_reading(partition: str, damaged: Path) -> set:
    """The queries whose plan must read the damaged file (others may or may not)."""
    if partition == "files":
        return set(QUERIES)  # the listing, and data skipping's open of the metadata table
    if partition in ("column_stats", "partition_stats"):
        return {"price > 30"}  # the only query no record key pins
    if partition == "record_index":
        found = {f"id = '{k}'" for k in ("k002", "k100") if file_group_index(k, 10) == group(damaged.name)}
        assert found, damaged  # k100 is the last write's insert, k002 the base file damaged
        return found
    if partition == SI:
        return {"city = 'oslo'"}
    return set()  # bloom_filters: reads never use it


def damage(path: Path, how: str) -> None:
    if how == "half":
        os.truncate(path, path.stat().st_size // 2)
    elif how == "100 bytes":
        os.truncate(path, 100)
    else:  # a torn block after the intact ones: what a later write cut off would leave
        with open(path, "ab") as f:
            f.write(b"#HUDI#" + b"\x00\x00\x00\x00\x00\x00\x20\x00" + os.urandom(64))


CASES = [(p, kind, how) for p in PARTITIONS for kind in ("log", "base") for how in ("half", "100 bytes")]
CASES.append(("files", "log", "garbage appended"))


@pytest.mark.parametrize(("partition", "kind", "how"), CASES)
def test_damage_is_never_skipped(spark, table, expected, warnings, tmp_path, partition, kind, how):
    copy = tmp_path / "t"
    shutil.copytree(table, copy)
    mdt_dir = copy / ".hoodie" / "metadata" / partition
    damaged = newest_log(mdt_dir) if kind == "log" else latest_base(mdt_dir, partition)
    damage(damaged, how)
    repair = f"pyhudi metadata repair {copy} --partition {partition}"
    must = queries_reading(partition, damaged)
    for q in QUERIES:
        warnings.clear()
        assert count(spark, str(copy), q) == expected[q], (q, damaged.name)
        lines = warnings.lines()
        assert len(lines) <= 1, lines  # one warning per query, however often the plan met the file
        if q in must:
            assert len(lines) == 1, (q, damaged.name)
        for line in lines:
            assert damaged.name in line and repair in line, line
            if partition == "files":
                assert "hoodie.metadata.enable=false" in line, line
    if must:
        plan = described(spark, str(copy), sorted(must, key=str)[0] if None not in must else "price > 30")
        assert "damagedMetadata=[" in plan and damaged.name in plan and repair in plan, plan
        assert ("listing=storage" if partition == "files" else f"damaged-{partition}") in plan, plan
    else:
        assert_bloom_filters_damaged(spark, table, str(copy), damaged, repair, warnings)


def assert_bloom_filters_damaged(spark, table, copy, damaged, repair, warnings) -> None:
    """The writers' bloom-filter lookup (io.hudimeta.index.BloomFilters) gives no filter, so every file is read."""
    files = {p: sorted(f.name for f in (Path(copy) / p).iterdir() if f.name.endswith(".parquet")) for p in ("eu", "us")}
    lookup = spark._jvm.io.hudimeta.index.BloomFilters.filtersJson
    assert json.loads(lookup(table, {}, json.dumps(files))), "the undamaged table holds filters of its base files"
    warnings.clear()
    assert json.loads(lookup(copy, {}, json.dumps(files))) == {}
    [line] = warnings.lines()
    assert damaged.name in line and repair in line, line


def test_damage_fails_a_reader_that_cannot_do_without_the_partition(spark, table, tmp_path):
    """A direct read of a damaged index partition fails with CorruptTableException, the same message."""
    copy = tmp_path / "t"
    shutil.copytree(table, copy)
    damaged = latest_base(copy / ".hoodie" / "metadata" / "record_index", "record_index")
    damage(damaged, "half")
    inspect = spark._jvm.io.hudimeta.metadata.MetadataInspect
    with pytest.raises(Py4JJavaError) as err:
        inspect.lookupJson(str(copy), spark._jsc.hadoopConfiguration(), "record_index", json.dumps(["k002"]))
    error = err.value.java_exception
    assert error.getClass().getSimpleName() == "CorruptTableException"
    message = str(error.getMessage())
    assert damaged.name in message and f"pyhudi metadata repair {copy} --partition record_index" in message


def test_torn_block_of_an_instant_readers_do_not_count_is_skipped(spark, table, tmp_path, warnings):
    """The last write died after its metadata-table deltacommit completed, before its data commit did: its
    metadata blocks are not valid for readers, so torn blocks in its log files are a torn write, skipped
    without a warning about damage, and the metadata table is still used."""
    copy = tmp_path / "t"
    shutil.copytree(table, copy)
    timeline = copy / ".hoodie" / "timeline"
    last = max(f.name for f in timeline.iterdir() if f.name.endswith(".deltacommit") and "_" in f.name)
    (timeline / last).unlink()  # the data instant is pending again
    pending = last.split("_", 1)[0]
    torn = 0
    for partition in PARTITIONS:
        for log in (copy / ".hoodie" / "metadata" / partition).glob(f".*_{pending}.log.*"):
            damage(log, ("half", "100 bytes", "garbage appended")[torn % 3])
            torn += 1
    files_log = next((copy / ".hoodie" / "metadata" / "files").glob(f".files-*_{pending}.log.*"))
    with open(files_log, "ab") as f:  # a block of the pending instant that would delete a partition's files
        f.write(encode_block(delete_block([DeleteRecord("eu", "files")], pending))[:-40])
    assert torn >= len(PARTITIONS) - 1
    # the torn log files are in the latest slices (their metadata-table instant completed): read, then skipped
    slices = json.loads(spark._jvm.io.hudimeta.metadata.MetadataInspect.slicesJson(
        str(copy), spark._jsc.hadoopConfiguration(), "files"))
    assert files_log.name in [log for s in slices for log in s["logs"]], slices
    for q in QUERIES:
        warnings.clear()
        assert count(spark, str(copy), q) == count(spark, str(copy), q, **{"hoodie.metadata.enable": "false"}), q
        assert warnings.lines() == [], q
    plan = described(spark, str(copy), "price > 30")
    assert "listing=metadata" in plan and "damaged" not in plan, plan
