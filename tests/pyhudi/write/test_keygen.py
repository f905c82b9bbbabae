"""Key generators as Spark columns: Hudi's record keys (simple, complex with its null and empty
placeholders) and partition paths (hive style, URL encoding, the default partition, timestamps,
the custom generator's mix of simple and timestamp fields). Wherever the driver computes keys in Arrow
instead (`arrow_keys`, for string and integer fields), it gives the same keys."""
import pytest

from pyhudi.write import keygen
from pyhudi.write.config import WriteConfig

BASE = {"hoodie.table.name": "k", "hoodie.datasource.write.recordkey.field": "id",
        "hoodie.datasource.write.partitionpath.field": "region"}
SCHEMA = "id string, name string, region string, ts long, day string"
ROWS = [("a", "x", "eu", 1705311000, "2024-01-15 23:30:00"), ("b", None, None, 1705397400, "2024-01-16 00:10:00"),
        ("c", "", "a/b", 1705311000, "2024-01-15 10:00:00")]


@pytest.fixture(scope="module")
def df(spark):
    return spark.createDataFrame(ROWS, SCHEMA)


def _keys(df, **options):
    cfg = WriteConfig.from_options({**BASE, **options})
    rows = keygen.with_keys(df, cfg).select("id", "_hoodie_record_key", "_hoodie_partition_path").collect()
    got = {r[0]: (r[1], r[2]) for r in rows}
    if keygen.arrow_computable(df, cfg):  # the driver's Arrow keys: the same
        t = keygen.arrow_keys(df.toArrow(), cfg)
        assert dict(zip(t.column("id").to_pylist(), zip(t.column("_hoodie_record_key").to_pylist(),
                                                          t.column("_hoodie_partition_path").to_pylist()))) == got
    return got


def test_simple_keys_and_default_partition(df):
    assert _keys(df) == {"a": ("a", "eu"), "b": ("b", "__HIVE_DEFAULT_PARTITION__"), "c": ("c", "a/b")}


def test_complex_keys_with_placeholders(df):
    got = _keys(df, **{"hoodie.datasource.write.recordkey.field": "id,name"})
    assert [got[k][0] for k in "abc"] == ["id:a,name:x", "id:b,name:__null__", "id:c,name:__empty__"]
    one = _keys(df, **{"hoodie.datasource.write.keygenerator.class": "org.apache.hudi.keygen.ComplexKeyGenerator"})
    assert one["a"] == ("id:a", "eu")  # the complex generator writes field names even for one field


def test_hive_style_and_url_encoding(df):
    got = _keys(df, **{"hoodie.datasource.write.hive_style_partitioning": "true",
                       "hoodie.datasource.write.partitionpath.urlencode": "true"})
    assert [got[k][1] for k in "abc"] == ["region=eu", "region=__HIVE_DEFAULT_PARTITION__", "region=a%2Fb"]


def test_integer_fields_and_every_escaped_character(spark):
    odd = "".join(keygen._ESCAPED) + "ok"
    df = spark.createDataFrame([("a", -7, 3, odd), ("b", 0, None, ""), ("c", 12, -128, None)],
                               "id string, n int, b tinyint, s string")
    opts = {"hoodie.datasource.write.recordkey.field": "id,n", "hoodie.datasource.write.partitionpath.field": "b,s",
            "hoodie.datasource.write.hive_style_partitioning": "true",
            "hoodie.datasource.write.partitionpath.urlencode": "true"}
    assert keygen.arrow_computable(df, WriteConfig.from_options({**BASE, **opts}))
    got = _keys(df, **opts)
    assert got["a"][0] == "id:a,n:-7" and got["b"][1] == "b=__HIVE_DEFAULT_PARTITION__/s=__HIVE_DEFAULT_PARTITION__"
    assert got["a"][1].startswith("b=3/s=%25%22%23%27%2A%2F%3A%3D%3F%5C%7F%7B%5B%5D%5E%01") and "ok" in got["a"][1]
    simple = _keys(df, **{"hoodie.datasource.write.recordkey.field": "n",
                          "hoodie.datasource.write.partitionpath.field": "b"})
    assert simple["a"] == ("-7", "3") and simple["c"] == ("12", "-128")


def test_other_types_and_timestamp_partitions_are_keyed_by_spark(spark, df):
    cfg = WriteConfig.from_options({**BASE, "hoodie.datasource.write.recordkey.field": "x"})
    assert not keygen.arrow_computable(spark.createDataFrame([(1.5, "eu")], "x double, region string"), cfg)
    ts = WriteConfig.from_options({**BASE, "hoodie.datasource.write.keygenerator.class":
                                   "org.apache.hudi.keygen.TimestampBasedKeyGenerator",
                                   "hoodie.datasource.write.partitionpath.field": "ts",
                                   "hoodie.keygen.timebased.timestamp.type": "UNIX_TIMESTAMP",
                                   "hoodie.keygen.timebased.output.dateformat": "yyyy/MM/dd"})
    assert not keygen.arrow_computable(df, ts)


def test_non_partitioned(df):
    got = _keys(df, **{"hoodie.datasource.write.keygenerator.class":
                       "org.apache.hudi.keygen.NonpartitionedKeyGenerator"})
    assert {p for _, p in got.values()} == {""}


@pytest.mark.parametrize("options, paths", [
    ({"hoodie.keygen.timebased.timestamp.type": "UNIX_TIMESTAMP",
      "hoodie.keygen.timebased.output.dateformat": "yyyy/MM/dd"}, ["2024/01/15", "2024/01/16", "2024/01/15"]),
    ({"hoodie.keygen.timebased.timestamp.type": "UNIX_TIMESTAMP", "hoodie.keygen.timebased.timezone": "Asia/Tokyo",
      "hoodie.keygen.timebased.output.dateformat": "yyyyMMddHH"}, ["2024011518", "2024011618", "2024011518"]),
    ({"hoodie.deltastreamer.keygen.timebased.timestamp.type": "DATE_STRING",  # Hudi's older key
      "hoodie.keygen.timebased.input.dateformat": "yyyy-MM-dd HH:mm:ss",
      "hoodie.keygen.timebased.output.dateformat": "yyyy-MM-dd"}, ["2024-01-15", "2024-01-16", "2024-01-15"]),
])
def test_timestamp_partitions(df, options, paths):
    field = "day" if "DATE_STRING" in options.values() else "ts"
    got = _keys(df, **{"hoodie.datasource.write.keygenerator.class":
                       "org.apache.hudi.keygen.TimestampBasedKeyGenerator",
                       "hoodie.datasource.write.partitionpath.field": field, **options})
    assert [got[k][1] for k in "abc"] == paths


def test_custom_generator_mixes_simple_and_timestamp_fields(df):
    got = _keys(df, **{"hoodie.datasource.write.keygenerator.class": "org.apache.hudi.keygen.CustomKeyGenerator",
                       "hoodie.datasource.write.partitionpath.field": "region:SIMPLE,ts:TIMESTAMP",
                       "hoodie.datasource.write.hive_style_partitioning": "true",
                       "hoodie.keygen.timebased.timestamp.type": "UNIX_TIMESTAMP",
                       "hoodie.keygen.timebased.output.dateformat": "yyyy-MM-dd"})
    assert got["a"] == ("a", "region=eu/ts=2024-01-15")
    assert got["b"] == ("b", "region=__HIVE_DEFAULT_PARTITION__/ts=2024-01-16")
