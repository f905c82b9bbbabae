"""The process-wide HFile block cache (io.hudimeta.hfile.BlockCache, Apache Hudi's hoodie.hfile.block.cache.*
options): blocks read once are served again to later readers of the same file, a file written again under its
name is read again, the size bounds what is held, the cache can be turned off, bad values are refused, and the
executor-side record-index lookup goes through it."""
from __future__ import annotations

import os
import shutil
import subprocess

import pytest
from pyspark.sql import DataFrame

from tests.connector.hfile.test_hfile_reader import HFILE_DIR, all_rows, error_text, expected_cells, opened

MANY_BLOCKS = "hudi_1_0_hbase_2_4_9_16KB_GZ_20000.hfile"
OTHER = "hudi_1_0_hbase_2_4_9_16KB_GZ_200_20_non_unique.hfile"
ANY_TABLE = "sample_table_cow__v9_txns_simple_nometa"
DEFAULTS = {"hoodie.hfile.block.cache.enabled": "true", "hoodie.hfile.block.cache.size": "100",
            "hoodie.hfile.block.cache.ttl.minutes": "60", "pyhudi.hfile.block.cache.soft.enabled": "true"}


@pytest.fixture
def cache(spark, fixture_tables):
    """The JVM's cache, emptied; set back to its defaults after the test."""
    jcache = spark._jvm.io.hudimeta.hfile.BlockCache.shared()
    jcache.clear()
    yield jcache
    configure(spark, fixture_tables, **DEFAULTS)
    jcache.clear()


def configure(spark, fixture_tables, **options):
    """Read options apply the cache options they give, when the read is planned."""
    spark.read.format("hudi-meta").options(**options).load(fixture_tables[ANY_TABLE]).schema


def scan(spark, path) -> list[str]:
    with opened(spark, path) as reader:
        return all_rows(spark, reader)


def counters(cache) -> tuple[int, int]:
    return cache.hits(), cache.misses()


def test_blocks_read_once_serve_later_readers(spark, cache, tmp_path):
    path = tmp_path / MANY_BLOCKS
    shutil.copy(HFILE_DIR / MANY_BLOCKS, path)
    hits, misses = counters(cache)
    rows = scan(spark, path)
    assert rows == [r for r, _ in expected_cells(MANY_BLOCKS)]
    read = cache.misses() - misses
    assert read > 10 and cache.hits() == hits  # every data block read from storage once
    assert scan(spark, path) == rows  # a new reader of the same file
    assert counters(cache) == (hits + read, misses + read)


def test_a_file_written_again_under_its_name_is_read_again(spark, cache, tmp_path):
    path = tmp_path / "x.hfile"
    shutil.copy(HFILE_DIR / MANY_BLOCKS, path)
    scan(spark, path)
    # same name, same length: a byte flipped in the first data block, and a later modification time
    data = bytearray(path.read_bytes())
    data[200] ^= 0x40
    path.write_bytes(bytes(data))
    stat = path.stat()
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns + 2_000_000_000))
    with pytest.raises(Exception) as err:  # the cached first block of the old bytes is not served
        scan(spark, path)
    assert "checksum mismatch" in error_text(err)
    shutil.copy(HFILE_DIR / OTHER, path)
    assert scan(spark, path) == [r for r, _ in expected_cells(OTHER)]


def test_size_bounds_the_blocks_held(spark, fixture_tables, cache, tmp_path):
    path = tmp_path / MANY_BLOCKS
    shutil.copy(HFILE_DIR / MANY_BLOCKS, path)
    configure(spark, fixture_tables, **{"hoodie.hfile.block.cache.size": "2",
                                         "pyhudi.hfile.block.cache.soft.enabled": "false"})
    _, misses = counters(cache)
    scan(spark, path)
    read = cache.misses() - misses
    scan(spark, path)  # a scan in file order evicts each block before it is needed again
    assert cache.misses() - misses == 2 * read
    assert cache.softlyHeld() == 0


def test_blocks_past_the_size_are_held_softly(spark, fixture_tables, cache, tmp_path):
    path = tmp_path / MANY_BLOCKS
    shutil.copy(HFILE_DIR / MANY_BLOCKS, path)
    configure(spark, fixture_tables, **{"hoodie.hfile.block.cache.size": "2"})
    hits, misses = counters(cache)
    rows = scan(spark, path)
    read = cache.misses() - misses
    assert read > 10 and cache.softlyHeld() == read - 2
    assert scan(spark, path) == rows  # every block found again: 2 held, the rest softly
    assert counters(cache) == (hits + read, misses + read)
    configure(spark, fixture_tables, **{"pyhudi.hfile.block.cache.soft.enabled": "false"})
    assert cache.softlyHeld() == 0  # turned off: the softly held blocks let go


@pytest.mark.parametrize("size,soft,hits", [("2", "true", 3), ("2", "false", 0), ("600", "false", None)])
def test_softly_held_blocks_never_run_the_jvm_out_of_memory(size, soft, hits):
    """600 blocks of 1 MB through the cache in a JVM of 64 MB. Two held and the rest softly: the JVM drops what
    it needs, the last three blocks are still there. Two held and no soft tier: asked again in load order, each of
    the last three evicts the next.
    All 600 held strongly (what a soft tier that held on would be): the JVM runs out of memory."""
    from pyhudi import build

    classpath = os.pathsep.join(str(j) for j in (build.build(quiet=True), build.build_tests(quiet=True)))
    java = os.path.join(os.environ["JAVA_HOME"], "bin", "java") if os.environ.get("JAVA_HOME") else "java"
    done = subprocess.run([java, "-Xmx64m", "-cp", classpath, "io.hudimeta.hfile.CacheUnderPressure", "600", size,
                           soft], capture_output=True, text=True, timeout=120)
    if hits is None:
        assert done.returncode != 0 and "OutOfMemoryError" in done.stderr
        return
    assert done.returncode == 0, done.stderr[-2000:]
    fields = dict(f.split("=") for f in done.stdout.split())
    assert fields["loaded"] == "600" and fields["hits"] == str(hits)
    softly = int(fields["softly"])
    assert (0 < softly < 598) if soft == "true" else softly == 0  # some dropped by the JVM, not all


@pytest.mark.parametrize("key,value,message", [
    ("hoodie.hfile.block.cache.size", "many", "hoodie.hfile.block.cache.size must be a whole number, got 'many'"),
    ("hoodie.hfile.block.cache.size", "0", "hoodie.hfile.block.cache.size must be at least 1, got 0 (set "
                                           "hoodie.hfile.block.cache.enabled=false to turn the cache off)"),
    ("hoodie.hfile.block.cache.ttl.minutes", "-5", "hoodie.hfile.block.cache.ttl.minutes must be at least 1"),
    ("hoodie.hfile.block.cache.enabled", "yes", "hoodie.hfile.block.cache.enabled must be true or false, got 'yes'"),
    ("pyhudi.hfile.block.cache.soft.enabled", "1", "pyhudi.hfile.block.cache.soft.enabled must be true or false"),
])
def test_bad_values_are_refused(spark, fixture_tables, cache, tmp_path, key, value, message):
    path = tmp_path / MANY_BLOCKS
    shutil.copy(HFILE_DIR / MANY_BLOCKS, path)
    with pytest.raises(Exception) as err:  # with good values beside the bad one: none is applied
        configure(spark, fixture_tables, **{"hoodie.hfile.block.cache.enabled": "false",
                                             "hoodie.hfile.block.cache.size": "2", key: value})
    assert message in error_text(err)
    assert cache.enabled()
    _, misses = counters(cache)
    scan(spark, path)
    read = cache.misses() - misses
    scan(spark, path)  # still 100 blocks: the second scan reads nothing
    assert read > 2 and cache.misses() - misses == read


def test_executor_lookup_reads_index_blocks_once(spark, cache, tmp_path):
    path = str(tmp_path / "t")
    rows = [(f"k{i:05d}", 1, ("eu", "us")[i % 2]) for i in range(3000)]
    options = {"hoodie.table.name": "t", "hoodie.datasource.write.recordkey.field": "id",
               "hoodie.datasource.write.precombine.field": "ts", "hoodie.datasource.write.partitionpath.field": "region"}

    def write(batch, **extra):
        (spark.createDataFrame(batch, "id string, ts long, region string").write.format("hudi-meta")
         .options(**options, **extra).mode("append").save(path))

    write(rows)
    write(rows[:1], **{"hoodie.metadata.record.index.enable": "true"})  # built from the table: base HFiles
    index = spark._jvm.io.hudimeta.index.RecordIndex
    keys = spark.createDataFrame([(k,) for k, _, _ in rows[::7]] + [("absent",)], "_hudi_bk string")

    def locate() -> dict:
        found = DataFrame(index.locate(spark._jsparkSession, path, {}, keys._jdf), spark).collect()
        return {r[0]: (r[1], r[2]) for r in found}

    cache.clear()  # the write itself may have read the index
    hits, misses = counters(cache)
    first = locate()
    read = cache.misses() - misses
    assert len(first) == len(rows[::7]) and read >= 1
    assert locate() == first
    assert cache.misses() - misses == read and cache.hits() - hits >= read
