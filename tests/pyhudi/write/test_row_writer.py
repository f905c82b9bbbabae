"""bulk_insert's row writer (pyhudi.write.row_writer, io.hudimeta.write): base files written in the JVM by Spark's
Parquet writer hold what pyhudi's Arrow writer writes for the same rows: the same Parquet column layout, Hudi's
footer keys with the same bloom filter bits, the same meta columns, and both readers read them back. The rest of
bulk_insert's behaviour (sort modes, roll-over, markers, retries) is tested with the row writer on, the default,
in test_bulk_insert.py."""
import datetime as dt
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from pyhudi.basefile import bloom
from pyhudi.basefile import parquet as base_file
from pyhudi.hudi_table import HudiTable

OPTS = {"hoodie.table.name": "rw", "hoodie.datasource.write.recordkey.field": "id",
        "hoodie.datasource.write.partitionpath.field": "region", "hoodie.metadata.enable": "true",
        "hoodie.metadata.index.column.stats.enable": "true"}
SCHEMA = ("id string, region string, n int, big bigint, small tinyint, x double, f float, ok boolean, raw binary, "
          "day date, at timestamp, local timestamp_ntz, note string")
ROW_WRITER = "hoodie.datasource.write.row.writer.enable"
SPARK_KEY = b"org.apache.spark.version"  # in the footer only when Spark's writer wrote the file


def _rows(n):
    t0 = dt.datetime(2024, 3, 1, 12, tzinfo=dt.timezone.utc)
    return [(f"k{(i * 7919) % n:05d}", ("eu", "us")[i % 2], i, i * 10**10, i % 100, i / 3, float(i % 50),
             i % 3 == 0, bytes([i % 256]), dt.date(2024, 1, 1) + dt.timedelta(days=i % 40),
             t0 + dt.timedelta(seconds=i), dt.datetime(2024, 5, 1) + dt.timedelta(minutes=i),
             None if i % 5 == 0 else f"note {i}") for i in range(n)]


def _layout(f: Path) -> list[tuple]:
    """Each Parquet column's name, physical and logical type and repetition."""
    schema = pq.ParquetFile(f).schema
    return [(c.path, c.physical_type, str(c.logical_type), c.max_definition_level) for c in schema]


def _written(spark, tmp_path, name, row_writer, rows=None, schema=SCHEMA):
    path = str(tmp_path / name)
    df = spark.createDataFrame(rows or _rows(400), schema).repartition(2)
    HudiTable(spark, path, OPTS).bulk_insert(df, {ROW_WRITER: row_writer})
    return path, sorted(Path(path).glob("*/*.parquet"))


def _read(spark, path):
    return sorted(tuple(r) for r in spark.read.format("hudi-meta").load(path).drop(
        "_hoodie_commit_time", "_hoodie_commit_seqno", "_hoodie_file_name").collect())


def test_row_writer_files_hold_what_the_arrow_writer_writes(spark, tmp_path):
    jvm_path, jvm_files = _written(spark, tmp_path, "jvm", "true")
    py_path, py_files = _written(spark, tmp_path, "py", "false")
    assert jvm_files and all(SPARK_KEY in pq.ParquetFile(f).metadata.metadata for f in jvm_files)
    assert not any(SPARK_KEY in pq.ParquetFile(f).metadata.metadata for f in py_files)
    assert _layout(jvm_files[0]) == _layout(py_files[0])
    assert _read(spark, jvm_path) == _read(spark, py_path)
    for f in jvm_files:
        table, footer = pq.read_table(f), base_file.read_footer(str(f))
        keys = table.column("_hoodie_record_key")
        expected = bloom.create_bloom_filter(bloom.DYNAMIC_V0)
        expected.add_all(keys)  # in file order, as the writer added them
        assert footer[base_file.BLOOM_KEY] == expected.serialize()
        assert (footer[base_file.MIN_KEY], footer[base_file.MAX_KEY]) == base_file.java_min_max(keys)
        assert footer[base_file.BLOOM_TYPE_KEY] == "DYNAMIC_V0"
        assert base_file.AVRO_SCHEMA_KEY not in footer  # as Apache Hudi's row writer: Spark's row schema instead
        assert set(table.column("_hoodie_file_name").to_pylist()) == {f.name}
        assert set(table.column("_hoodie_partition_path").to_pylist()) == {f.parent.name}
        seq = table.column("_hoodie_commit_seqno").to_pylist()
        assert [int(s.rsplit("_", 1)[1]) for s in seq] == list(range(len(seq)))
    # the metadata table's column statistics come from the written footers: a point query prunes by them
    key = _rows(400)[7][0]
    q = spark.read.format("hudi-meta").load(jvm_path).where(f"id = '{key}'")
    assert [r.id for r in q.collect()] == [key]


def test_hudi_rs_reads_what_the_row_writer_wrote(spark, tmp_path):
    """hudi-rs cannot read a schema with local-timestamp-micros (it panics: not implemented), so without it."""
    import pyarrow as pa
    from hudi import HudiTableBuilder

    schema = SCHEMA.replace("local timestamp_ntz, ", "")
    rows = [r[:11] + r[12:] for r in _rows(300)]
    path, files = _written(spark, tmp_path, "rs", "true", rows, schema)
    assert files and all(SPARK_KEY in pq.ParquetFile(f).metadata.metadata for f in files)
    t = pa.Table.from_batches(HudiTableBuilder.from_base_uri(path).build().read())
    cols = ("id", "region", "n", "big", "x", "ok", "day", "at", "note")
    got = sorted(zip(*(t.column(c).to_pylist() for c in cols)))
    names = [c.split()[0] for c in schema.split(", ")]
    assert got == sorted(tuple(r[names.index(c)] for c in cols) for r in rows)


def test_schemas_the_row_writer_cannot_lay_out_alike_are_written_in_python(spark, tmp_path):
    from decimal import Decimal

    rows = [(f"k{i}", "eu", Decimal(i) * Decimal("1.25")) for i in range(50)]
    path, files = _written(spark, tmp_path, "dec", "true", rows, "id string, region string, amount decimal(10,2)")
    assert files and not any(SPARK_KEY in pq.ParquetFile(f).metadata.metadata for f in files)
    assert sorted(float(r.amount) for r in spark.read.format("hudi-meta").load(path).collect()) == \
        [i * 1.25 for i in range(50)]


@pytest.mark.parametrize("kind,entries,max_entries", [("DYNAMIC_V0", 100, 250), ("DYNAMIC_V0", 100, 1000),
                                                       ("SIMPLE", 300, 0)])
def test_the_jvm_bloom_filter_has_the_python_filters_bits(spark, kind, entries, max_entries):
    """Rows of a DYNAMIC_V0 filter fill up, then keys go round-robin (1,000 keys, rows of 100, at most 250)."""
    keys = [f"key-{i:06d}-é" for i in range(1000)]
    python = bloom.create_bloom_filter(kind, entries, 1e-4, max_entries)
    python.add_all(keys)
    java = spark._jvm.io.hudimeta.write.WriteInspect.bloom(kind, entries, 1e-4, max_entries, keys)
    assert java == python.serialize()


def test_a_table_without_partitions_gets_its_files_at_the_base_path_in_the_codec_asked(spark, tmp_path):
    path = str(tmp_path / "flat")
    rows = [(f"k{i:03d}", "eu", i) for i in range(120)]
    df = spark.createDataFrame(rows, "id string, region string, n int").repartition(2)
    opts = {**OPTS, "hoodie.datasource.write.partitionpath.field": "", ROW_WRITER: "true",
            "hoodie.parquet.compression.codec": "snappy"}
    HudiTable(spark, path, opts).bulk_insert(df)
    files = sorted(Path(path).glob("*.parquet"))
    assert {pq.ParquetFile(f).metadata.row_group(0).column(0).compression for f in files} == {"SNAPPY"}
    assert len(files) == 2 and all(SPARK_KEY in pq.ParquetFile(f).metadata.metadata for f in files)
    assert {pq.read_table(f).column("_hoodie_partition_path")[0].as_py() for f in files} == {""}
    assert sorted((r.id, r.n) for r in spark.read.format("hudi-meta").load(path).collect()) == \
        sorted((k, n) for k, _, n in rows)


def test_a_null_record_key_fails_the_write_and_leaves_no_commit(spark, tmp_path):
    path = str(tmp_path / "nullkey")
    t = HudiTable(spark, path, {**OPTS, ROW_WRITER: "true"})
    t.bulk_insert(spark.createDataFrame([("k1", "eu", 1)], "id string, region string, n int"))
    before = sorted(r.id for r in spark.read.format("hudi-meta").load(path).collect())
    bad = spark.createDataFrame([("k2", "eu", 2), (None, "us", 3)], "id string, region string, n int")
    with pytest.raises(Exception, match="null"):
        t.bulk_insert(bad)
    assert sorted(r.id for r in spark.read.format("hudi-meta").load(path).collect()) == before
