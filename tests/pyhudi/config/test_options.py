"""The registry of honoured options: parsers name the key and value in every error, each option is
defined once, alternatives resolve to it, and every key is one Apache Hudi defines."""
import pytest

from pyhudi.config import HUDI_KEYS, REGISTRY, OptionError, honoured
from pyhudi.config import options as o
from pyhudi.config import parsers as p


@pytest.mark.parametrize("parse, raw, value", [
    (p.boolean, " TRUE ", True), (p.boolean, "false", False),
    (p.number(0, "n"), "0", 0), (p.number(1, "n"), "125829120", 125829120),
    (p.fields, " a, b ,,c ", ["a", "b", "c"]), (p.text, "  x ", "x"), (p.text, "  ", None),
    (p.choice(p.same("SIMPLE", "BUCKET")), "bucket", "BUCKET"),
    (p.off("the thing"), "False", "false"),
])
def test_parsers_take_hudi_spellings(parse, raw, value):
    assert parse("k", raw) == value


@pytest.mark.parametrize("parse, raw, message", [
    (p.boolean, "yes", "k=yes is not valid; valid values: true, false"),
    (p.number(0, "a size in bytes"), "10MB", "k=10MB is not valid; give a size in bytes"),
    (p.number(1, "a count, at least 1"), "0", "k=0 is not valid; give a count, at least 1"),
    (p.number(0, "n"), "1.5", "k=1.5 is not valid; give n"),
    (p.choice(p.same("a", "b")), "c", "k=c is not valid; valid values: a, b"),
    (p.choice(p.same("a", "b"), ("x",)), "X", "k=X is not supported yet; the values pyhudi supports: a, b"),
    (p.off("the thing"), "true", "k=true asks for the thing, which pyhudi does not support yet; "
                                 "the value pyhudi supports: false"),
    (p.off("the thing"), "maybe", "k=maybe is not valid; valid values: true, false"),
])
def test_parser_errors_name_key_value_and_what_is_valid(parse, raw, message):
    with pytest.raises(OptionError) as err:
        parse("k", raw)
    assert str(err.value) == message


def test_each_option_is_defined_once_under_keys_hudi_defines():
    every = honoured()
    keys = [k for opt in every for k in opt.keys]
    assert len(keys) == len(set(keys)) == len(REGISTRY)
    assert all(REGISTRY[k] is opt for opt in every for k in opt.keys)
    # pyhudi's own keys (pyhudi.*) are for what Apache Hudi has no key for
    assert [k for k in keys if k not in HUDI_KEYS and not k.startswith("pyhudi.")] == []


def test_the_six_keys_of_the_issue_are_honoured():
    for key in ("hoodie.metadata.index.column.stats.enable", "hoodie.metadata.index.bloom.filter.enable",
                "hoodie.metadata.index.partition.stats.enable", "hoodie.datasource.write.hive_style_partitioning",
                "hoodie.datasource.write.keygenerator.class", "hoodie.database.name"):
        assert key in REGISTRY


def test_defaults_are_hudis_for_a_spark_writer():
    assert o.COLUMN_STATS_ENABLE.get({}) is True
    assert o.BLOOM_FILTER_ENABLE.get({}) is False
    assert o.PARTITION_STATS_ENABLE.get({}) is None  # follows column stats
    assert o.HIVE_STYLE.get({}) is False
    assert o.KEYGEN_CLASS.get({}) is None  # inferred
    assert o.DATABASE_NAME.get({}) == "default"
    assert (o.OPERATION.get({}), o.TABLE_TYPE.get({}), o.INDEX_TYPE.get({})) == ("upsert", "COPY_ON_WRITE", "SIMPLE")
    assert (o.SMALL_FILE_LIMIT.get({}), o.MAX_FILE_SIZE.get({}), o.BUCKET_COUNT.get({})) == (104857600, 125829120, 256)


def test_alternative_keys_resolve_and_errors_name_the_key_given():
    assert o.TABLE_TYPE.get({"hoodie.datasource.write.storage.type": "mor"}) == "MERGE_ON_READ"
    assert o.TS_TYPE.get({"hoodie.deltastreamer.keygen.timebased.timestamp.type": "unix_timestamp"}) == "UNIX_TIMESTAMP"
    assert o.TABLE_TYPE.get({"hoodie.datasource.write.table.type": "cow",
                             "hoodie.datasource.write.storage.type": "mor"}) == "COPY_ON_WRITE"  # the key first
    with pytest.raises(OptionError, match=r"^hoodie\.clean\.async=true asks for asynchronous cleaning"):
        REGISTRY["hoodie.clean.async"].get({"hoodie.clean.async": "true"})


def test_keygen_classes_map_to_hudis_type_names():
    assert o.KEYGEN_CLASS.get({o.KEYGEN_CLASS.key: "org.apache.hudi.keygen.ComplexKeyGenerator"}) == "COMPLEX"
    assert o.KEYGEN_CLASS.get({o.KEYGEN_CLASS.key: "org.apache.hudi.keygen.NonpartitionedAvroKeyGenerator"}) \
        == "NON_PARTITION_AVRO"
    assert o.KEYGEN_TYPE.get({o.KEYGEN_TYPE.key: "timestamp"}) == "TIMESTAMP"
    with pytest.raises(OptionError, match="GlobalDeleteKeyGenerator is not supported yet; the key generators"):
        o.KEYGEN_CLASS.get({o.KEYGEN_CLASS.key: "org.apache.hudi.keygen.GlobalDeleteKeyGenerator"})


@pytest.mark.parametrize("key, value, message", [
    ("hoodie.archive.beyond.savepoint", "true", "asks for archiving past a savepoint"),
    ("hoodie.write.table.version", "6", "asks for another table version than 8"),
    ("hoodie.populate.meta.fields", "false", "asks for tables without meta fields"),
    ("hoodie.index.type", "HBASE", "=HBASE is not supported yet"),
    ("hoodie.datasource.write.operation", "bootstrap", "=bootstrap is not supported yet"),
    ("hoodie.keygen.timebased.timestamp.type", "SCALAR", "=SCALAR is not supported yet"),
    ("hoodie.upsert.shuffle.parallelism", "-1", r"=-1 is not valid; give a number of tasks \(0 = automatic\)"),
])
def test_unsupported_values_of_honoured_keys(key, value, message):
    with pytest.raises(OptionError, match=message):
        REGISTRY[key].get({key: value})
    assert REGISTRY[key].get({}) == REGISTRY[key].default  # absent: pyhudi's behaviour
