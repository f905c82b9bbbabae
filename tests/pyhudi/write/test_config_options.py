"""Apache Hudi's option keys on real writes: the metadata indexes a write maintains, hive-style
partition folders, the database name, the key generator class; and keys pyhudi does not honour,
which fail before any instant and leave the table as it was."""
import logging
import zlib
from pathlib import Path

import pytest

from pyhudi.hudi_table import HudiTable
from pyhudi.table import properties
from pyhudi.write.config import WriteConfig, WriteOptionError
from tests.table_checks import fingerprint, unchanged_after

SCHEMA = "id string, ts long, region string"
OPTS = {"hoodie.table.name": "o", "hoodie.datasource.write.recordkey.field": "id",
        "hoodie.datasource.write.partitionpath.field": "region"}
MDT_KEY = "hoodie.table.metadata.partitions"


def _rows(spark, n=4, ts=1705311000):
    return spark.createDataFrame([(f"k{i}", ts + 86400 * i, ("eu", "us")[i % 2]) for i in range(n)], SCHEMA)


def _props(path) -> dict[str, str]:
    return properties.parse(Path(path, ".hoodie", properties.PROPS_FILE).read_text("latin-1"))


def _mdt(path) -> tuple[set[str], set[str]]:
    """The metadata partitions hoodie.properties lists, and the folders of the metadata table."""
    listed = {p for p in _props(path).get(MDT_KEY, "").split(",") if p}
    mdt = Path(path, ".hoodie", "metadata")
    folders = {p.name for p in mdt.iterdir() if p.is_dir() and not p.name.startswith(".")} if mdt.exists() else set()
    return listed, folders


def _folders(path) -> set[str]:
    """The data table's partition folders ("" for the base path), by their partition metadata files."""
    found = (p.parent.relative_to(path).as_posix() for p in Path(path).rglob(".hoodie_partition_metadata*"))
    return {"" if f == "." else f for f in found if not f.startswith(".hoodie")}


def _keys(spark, path) -> dict[str, str]:
    df = spark.read.format("hudi-meta").load(path)
    return {r["id"]: (r["_hoodie_record_key"], r["_hoodie_partition_path"]) for r in df.collect()}


# ---- the settings of a write, without Spark ----------------------------------------------------

@pytest.mark.parametrize("options, partitions", [
    ({}, ("files", "column_stats", "partition_stats")),
    ({"hoodie.metadata.index.column.stats.enable": "false"}, ("files",)),
    ({"hoodie.metadata.index.partition.stats.enable": "false"}, ("files", "column_stats")),
    ({"hoodie.metadata.index.bloom.filter.enable": "true"},
     ("files", "column_stats", "bloom_filters", "partition_stats")),
    ({"hoodie.metadata.index.column.stats.enable": "false", "hoodie.metadata.index.bloom.filter.enable": "true"},
     ("files", "bloom_filters")),
])
def test_metadata_partitions_follow_hudis_defaults_and_the_options(options, partitions):
    assert WriteConfig.from_options({**OPTS, **options}).metadata_partitions == partitions


def test_partition_stats_need_column_stats():
    with pytest.raises(WriteOptionError, match="partition.stats.enable=true needs hoodie.metadata.index.column"):
        WriteConfig.from_options({**OPTS, "hoodie.metadata.index.partition.stats.enable": "true",
                                  "hoodie.metadata.index.column.stats.enable": "false"})


@pytest.mark.parametrize("options, keygen, parts", [
    ({}, "SIMPLE", ["region"]),
    ({"hoodie.datasource.write.recordkey.field": "id,ts"}, "COMPLEX", ["region"]),
    ({"hoodie.datasource.write.partitionpath.field": ""}, "NON_PARTITION", []),
    ({"hoodie.datasource.write.keygenerator.class": "org.apache.hudi.keygen.NonpartitionedKeyGenerator"},
     "NON_PARTITION", []),
    ({"hoodie.datasource.write.keygenerator.type": "COMPLEX_AVRO"}, "COMPLEX_AVRO", ["region"]),
    ({"hoodie.datasource.write.keygenerator.class": "org.apache.hudi.keygen.ComplexKeyGenerator",
      "hoodie.datasource.write.keygenerator.type": "SIMPLE"}, "COMPLEX", ["region"]),  # the class wins
])
def test_key_generator_chosen_or_inferred_as_hudi_does(options, keygen, parts):
    cfg = WriteConfig.from_options({**OPTS, **options})
    assert (cfg.keygen, cfg.partition_fields) == (keygen, parts)


def test_custom_key_generator_partition_fields():
    custom = {**OPTS, "hoodie.datasource.write.keygenerator.class": "org.apache.hudi.keygen.CustomKeyGenerator",
              "hoodie.datasource.write.partitionpath.field": "region:simple, ts:TIMESTAMP",
              "hoodie.keygen.timebased.timestamp.type": "UNIX_TIMESTAMP"}
    cfg = WriteConfig.from_options(custom)
    assert (cfg.partition_fields, cfg.partition_types) == (["region", "ts"], ["SIMPLE", "TIMESTAMP"])
    assert cfg.partition_specs == ["region:SIMPLE", "ts:TIMESTAMP"]
    assert cfg.timestamp_options == {"hoodie.keygen.timebased.timestamp.type": "UNIX_TIMESTAMP"}
    with pytest.raises(WriteOptionError, match="give each field as field:SIMPLE or field:TIMESTAMP"):
        WriteConfig.from_options({**custom, "hoodie.datasource.write.partitionpath.field": "region"})
    with pytest.raises(WriteOptionError, match="timestamp.type is required for timestamp partitions"):
        WriteConfig.from_options({k: v for k, v in custom.items() if "timebased" not in k})


def test_a_table_fixes_its_database_and_key_generator():
    props = {"hoodie.table.name": "o", "hoodie.database.name": "sales", "hoodie.table.keygenerator.type": "COMPLEX",
             "hoodie.table.recordkey.fields": "id", "hoodie.table.partition.fields": "region"}
    cfg = WriteConfig.from_options({"hoodie.datasource.write.operation": "insert"}, props)
    assert (cfg.database, cfg.keygen, cfg.record_key_fields) == ("sales", "COMPLEX", ["id"])
    WriteConfig.from_options({"hoodie.datasource.write.keygenerator.class":  # the same generator
                              "org.apache.hudi.keygen.ComplexAvroKeyGenerator"}, props)
    with pytest.raises(WriteOptionError, match=r"^hoodie.database.name=other contradicts the existing table "
                                               r"\(hoodie.database.name=sales\)"):
        WriteConfig.from_options({"hoodie.database.name": "other"}, props)
    with pytest.raises(WriteOptionError, match="keygenerator.class=org.apache.hudi.keygen.SimpleKeyGenerator "
                                               "contradicts the existing table"):
        WriteConfig.from_options({"hoodie.datasource.write.keygenerator.class":
                                  "org.apache.hudi.keygen.SimpleKeyGenerator"}, props)


PRECOMBINE = {**OPTS, "hoodie.datasource.write.precombine.field": "ts"}
DEFAULT_PAYLOAD = "org.apache.hudi.common.model.DefaultHoodieRecordPayload"
LATEST_PAYLOAD = "org.apache.hudi.common.model.OverwriteWithLatestAvroPayload"


@pytest.mark.parametrize("options", [
    {**PRECOMBINE, "hoodie.datasource.write.payload.class": DEFAULT_PAYLOAD},
    {**PRECOMBINE, "hoodie.write.record.merge.mode": "EVENT_TIME_ORDERING"},
    {**PRECOMBINE, "hoodie.record.merge.mode": "event_time_ordering"},
    {**OPTS, "hoodie.datasource.write.payload.class": LATEST_PAYLOAD},
    {**OPTS, "hoodie.write.record.merge.mode": "COMMIT_TIME_ORDERING"},
    {**OPTS, "hoodie.datasource.write.insert.drop.duplicates": "false"}])
def test_hudi_settings_of_what_pyhudi_does_are_accepted(options):
    """Jobs written for Apache Hudi name the payload class, the merge mode or the insert dedup they rely on;
    where that is what pyhudi does, the write goes on."""
    assert WriteConfig.from_options(options).table_name == "o"


@pytest.mark.parametrize("options, error", [
    ({**OPTS, "hoodie.datasource.write.payload.class": DEFAULT_PAYLOAD},
     "payload.class=.*DefaultHoodieRecordPayload asks for EVENT_TIME_ORDERING, but a write without an ordering "
     "field gets COMMIT_TIME_ORDERING"),
    ({**PRECOMBINE, "hoodie.write.record.merge.mode": "COMMIT_TIME_ORDERING"},
     "merge.mode=COMMIT_TIME_ORDERING asks for COMMIT_TIME_ORDERING, but the ordering field ts gives EVENT_TIME"),
    ({**PRECOMBINE, "hoodie.write.record.merge.mode": "CUSTOM"},
     "hoodie.write.record.merge.mode=CUSTOM is not supported yet"),
    ({**PRECOMBINE, "hoodie.datasource.write.payload.class": "org.apache.hudi.common.model.PartialUpdateAvroPayload"},
     "PartialUpdateAvroPayload is not supported yet"),
    ({**PRECOMBINE, "hoodie.datasource.write.insert.drop.duplicates": "true"},
     "insert.drop.duplicates=true asks for dropping inserted records whose keys the table holds, which pyhudi "
     "does not support yet")])
def test_other_values_of_those_settings_are_refused_by_name(options, error):
    with pytest.raises(WriteOptionError, match=error):
        WriteConfig.from_options(options)


def test_every_value_is_parsed_even_if_this_write_does_not_read_it():
    with pytest.raises(WriteOptionError, match="bucket.index.num.buckets=x is not valid"):
        WriteConfig.from_options({**OPTS, "hoodie.bucket.index.num.buckets": "x"})  # no bucket index here
    with pytest.raises(WriteOptionError, match="clean.async.enabled=true asks for asynchronous cleaning"):
        WriteConfig.from_options({**OPTS, "hoodie.clean.async.enabled": "true"})
    with pytest.raises(WriteOptionError, match="hoodie.compact.inline=maybe is not valid"):
        WriteConfig.from_options({**OPTS, "hoodie.compact.inline": "maybe"})
    WriteConfig.from_options({**OPTS, "hoodie.clean.automatic": "false", "hoodie.compact.inline": "false"})


# ---- writes ------------------------------------------------------------------------------------

def test_metadata_indexes_present_or_absent_as_asked(spark, tmp_path):
    default = str(tmp_path / "default")
    HudiTable(spark, default, OPTS).insert(_rows(spark))
    assert _mdt(default) == ({"files", "column_stats", "partition_stats"},) * 2
    other = str(tmp_path / "other")
    HudiTable(spark, other, {**OPTS, "hoodie.metadata.index.column.stats.enable": "false",
                             "hoodie.metadata.index.bloom.filter.enable": "true"}).insert(_rows(spark))
    assert _mdt(other) == ({"files", "bloom_filters"},) * 2
    # a later write without column stats drops them (and the partition stats made from them), as Hudi does
    HudiTable(spark, default, {**OPTS, "hoodie.metadata.index.column.stats.enable": "false"}).upsert(_rows(spark, 6))
    assert _mdt(default) == ({"files"},) * 2
    assert len(_keys(spark, default)) == 6


def test_hive_style_partitioning_names_the_folders(spark, tmp_path):
    hive, plain = str(tmp_path / "hive"), str(tmp_path / "plain")
    HudiTable(spark, hive, {**OPTS, "hoodie.datasource.write.hive_style_partitioning": "true"}).insert(_rows(spark))
    HudiTable(spark, plain, OPTS).insert(_rows(spark))
    assert _folders(hive) == {"region=eu", "region=us"}
    assert _folders(plain) == {"eu", "us"}
    assert {p for _, p in _keys(spark, hive).values()} == {"region=eu", "region=us"}
    assert _props(hive)["hoodie.datasource.write.hive_style_partitioning"] == "true"


def test_database_name_is_recorded_and_kept(spark, tmp_path):
    path = str(tmp_path / "t")
    table = HudiTable(spark, path, {**OPTS, "hoodie.database.name": "sales"})
    table.insert(_rows(spark))
    props = _props(path)
    assert props["hoodie.database.name"] == "sales"
    assert props["hoodie.table.checksum"] == str(zlib.crc32(b"sales.o"))
    unchanged_after(path, lambda: HudiTable(spark, path, {**OPTS, "hoodie.database.name": "other"})
                    .upsert(_rows(spark)), "hoodie.database.name=other contradicts the existing table")
    HudiTable(spark, path, OPTS).upsert(_rows(spark, 6))  # not naming it keeps the table's
    assert _props(path)["hoodie.database.name"] == "sales" and len(_keys(spark, path)) == 6


def test_another_table_name_is_refused_as_hudi_does(spark, tmp_path):
    """Apache Hudi's HoodieWriterUtils.validateTableConfig: hoodie.table.name must match the table's (Spark's
    resolver: case aside), except under save mode Overwrite, which checks nothing."""
    path = str(tmp_path / "t")
    HudiTable(spark, path, OPTS).insert(_rows(spark))
    other = {**OPTS, "hoodie.table.name": "other"}
    unchanged_after(path, lambda: HudiTable(spark, path, other).upsert(_rows(spark)),
                    "hoodie.table.name=other contradicts the existing table")
    unchanged_after(path, lambda: _rows(spark).write.format("hudi-meta").options(**other).mode("append").save(path),
                    "hoodie.table.name=other contradicts the existing table")
    HudiTable(spark, path, {**OPTS, "hoodie.table.name": OPTS["hoodie.table.name"].upper()}).upsert(_rows(spark, 2))
    _rows(spark, 3).write.format("hudi-meta").options(**other).mode("overwrite").save(path)
    assert _props(path)["hoodie.table.name"] == OPTS["hoodie.table.name"] and len(_keys(spark, path)) == 3


def test_key_generator_classes(spark, tmp_path):
    complex_ = str(tmp_path / "complex")
    HudiTable(spark, complex_, {**OPTS, "hoodie.datasource.write.keygenerator.class":
                                "org.apache.hudi.keygen.ComplexKeyGenerator"}).insert(_rows(spark, 2))
    assert _keys(spark, complex_) == {"k0": ("id:k0", "eu"), "k1": ("id:k1", "us")}
    assert _props(complex_)["hoodie.table.keygenerator.type"] == "COMPLEX"
    unchanged_after(complex_, lambda: HudiTable(spark, complex_, {**OPTS, "hoodie.datasource.write.keygenerator.class":
                                                                  "org.apache.hudi.keygen.SimpleKeyGenerator"})
                    .upsert(_rows(spark, 2)), "keygenerator.class=.* contradicts the existing table")

    flat = str(tmp_path / "flat")
    HudiTable(spark, flat, {**OPTS, "hoodie.datasource.write.keygenerator.class":
                            "org.apache.hudi.keygen.NonpartitionedKeyGenerator"}).insert(_rows(spark, 2))
    assert _keys(spark, flat) == {"k0": ("k0", ""), "k1": ("k1", "")}
    assert _folders(flat) == {""}
    props = _props(flat)
    assert props["hoodie.table.keygenerator.type"] == "NON_PARTITION" and "hoodie.table.partition.fields" not in props

    custom = str(tmp_path / "custom")
    HudiTable(spark, custom, {**OPTS, "hoodie.datasource.write.keygenerator.class":
                              "org.apache.hudi.keygen.CustomKeyGenerator",
                              "hoodie.datasource.write.partitionpath.field": "region:SIMPLE,ts:TIMESTAMP",
                              "hoodie.keygen.timebased.timestamp.type": "UNIX_TIMESTAMP",
                              "hoodie.keygen.timebased.output.dateformat": "yyyyMMdd"}).insert(_rows(spark, 2))
    assert _keys(spark, custom) == {"k0": ("k0", "eu/20240115"), "k1": ("k1", "us/20240116")}
    assert _folders(custom) == {"eu/20240115", "us/20240116"}
    props = _props(custom)
    assert (props["hoodie.table.keygenerator.type"], props["hoodie.table.partition.fields"]) == \
        ("CUSTOM", "region:SIMPLE,ts:TIMESTAMP")
    assert props["hoodie.keygen.timebased.timestamp.type"] == "UNIX_TIMESTAMP"


def test_unsupported_and_misspelt_keys_fail_before_any_instant(spark, tmp_path, caplog):
    path = str(tmp_path / "t")
    with caplog.at_level(logging.WARNING, logger="pyhudi.config"):
        HudiTable(spark, path, {**OPTS, "hoodie.metrics.on": "true"}).insert(_rows(spark, 2))
    assert any("hoodie.metrics.on is an Apache Hudi option pyhudi ignores" in r.getMessage() for r in caplog.records)
    unsupported = "^hoodie.write.lock.zookeeper.url is an Apache Hudi option pyhudi does not support yet$"
    unchanged_after(path, lambda: HudiTable(spark, path, {**OPTS, "hoodie.write.lock.zookeeper.url": "x"})
                    .upsert(_rows(spark, 2)), unsupported)
    unchanged_after(path, lambda: HudiTable(spark, path, {**OPTS, "hoodie.metadata.index.colum.stats.enable": "true"})
                    .upsert(_rows(spark, 2)), "did you mean hoodie.metadata.index.column.stats.enable")
    fresh = str(tmp_path / "fresh")
    with pytest.raises(WriteOptionError, match=unsupported):
        HudiTable(spark, fresh, {**OPTS, "hoodie.write.lock.zookeeper.url": "x"}).insert(_rows(spark, 2))
    assert fingerprint(fresh) is None
