import zlib

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import TABLE_NAMES
from pyhudi.storage import Storage
from pyhudi.table import properties


def _all_props_files(fixture_tables):
    from pathlib import Path
    for name in TABLE_NAMES:
        yield from Path(fixture_tables[name]).rglob("hoodie.properties")


def test_checksum_of_every_fixture_properties_file(fixture_tables):
    files = list(_all_props_files(fixture_tables))
    assert len(files) >= len(TABLE_NAMES)  # data tables plus their metadata tables
    for f in files:
        props = properties.parse(f.read_text("latin-1"))
        assert props["hoodie.table.checksum"] == str(properties.checksum(props)), f


def test_known_checksums():
    props = {"hoodie.database.name": "default", "hoodie.table.name": "v8_trips_8i3u1d"}
    assert properties.checksum(props) == 1197752875
    assert properties.checksum({"hoodie.table.name": "v8_trips_8i3u1d_metadata"}) == 380169000


def test_parse_unescapes_schema(fixture_tables):
    storage, base = Storage.for_uri(fixture_tables["sample_table_cow__v8_complexkeygen_hivestyle"])
    props = properties.load(storage, base)
    assert props["hoodie.table.create.schema"].startswith('{"type":"record"')
    assert props["hoodie.table.partition.fields"] == "byteField,shortField"
    assert props["hoodie.table.version"] == "8"


text_values = st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=40)


@settings(max_examples=60)
@given(st.dictionaries(st.text(min_size=1, max_size=20).filter(lambda s: s.strip() == s and s), text_values,
                       max_size=8))
def test_text_round_trip(props):
    assert properties.parse(properties.format_text(props)) == props


def test_v8_defaults_save_load(tmp_path):
    storage, base = Storage.for_uri(str(tmp_path))
    props = properties.v8_defaults("t1", "MERGE_ON_READ", ["id"], ["region"], "ts",
                                   '{"type":"record","name":"r","fields":[]}', "SIMPLE", True, False)
    properties.save(storage, base, props)
    loaded = properties.load(storage, base)
    assert loaded == props
    assert loaded["hoodie.table.checksum"] == str(zlib.crc32(b"default.t1"))
    assert loaded["hoodie.record.merge.mode"] == "EVENT_TIME_ORDERING"
    text = (tmp_path / ".hoodie" / "hoodie.properties").read_text()
    assert "hoodie.table.create.schema={\"type\"\\:\"record\"" in text  # Java escaping of ':'
    properties.save(storage, base, {**props, "hoodie.table.metadata.partitions": "files"}, updated=True)
    assert properties.load(storage, base)["hoodie.table.metadata.partitions"] == "files"
    assert not (tmp_path / ".hoodie" / "hoodie.properties.backup").exists()


def test_errors(tmp_path):
    storage, base = Storage.for_uri(str(tmp_path))
    with pytest.raises(properties.TablePropertiesError, match="no Hudi table at"):
        properties.load(storage, base)
    (tmp_path / ".hoodie").mkdir()
    (tmp_path / ".hoodie" / "hoodie.properties").write_text(
        "hoodie.table.name=x\nhoodie.table.type=COPY_ON_WRITE\nhoodie.table.version=8\nhoodie.table.checksum=1\n")
    with pytest.raises(properties.TablePropertiesError, match="does not match"):
        properties.load(storage, base)
    (tmp_path / ".hoodie" / "hoodie.properties").write_text("hoodie.table.name=x\n")
    with pytest.raises(properties.TablePropertiesError, match="missing required key"):
        properties.load(storage, base)
    (tmp_path / ".hoodie" / "hoodie.properties").write_text(
        "hoodie.table.name=x\nhoodie.table.type=COPY\nhoodie.table.version=8\n")
    with pytest.raises(properties.TablePropertiesError, match="COPY_ON_WRITE, MERGE_ON_READ"):
        properties.load(storage, base)


def test_v8_defaults_write_the_keys_hudi_1_0_writes(fixture_tables):
    storage, base = Storage.for_uri(fixture_tables["sample_table_cow__v8_complexkeygen_hivestyle"])
    hudi = properties.load(storage, base)
    ours = properties.v8_defaults("t", "COPY_ON_WRITE", ["id", "name"], ["byteField", "shortField"], "longField",
                                  "{}", "COMPLEX", True, False)
    assert set(ours) == set(hudi)
    same = ("hoodie.database.name", "hoodie.table.type", "hoodie.table.keygenerator.type", "hoodie.table.version",
            "hoodie.record.merge.mode", "hoodie.record.merge.strategy.id", "hoodie.compaction.payload.class",
            "hoodie.timeline.layout.version", "hoodie.table.partition.fields", "hoodie.table.recordkey.fields")
    assert {k: ours[k] for k in same} == {k: hudi[k] for k in same}


def test_database_and_custom_partition_fields_are_recorded():
    props = properties.v8_defaults("t", "COPY_ON_WRITE", ["id"], ["region:SIMPLE", "ts:TIMESTAMP"], None, "{}",
                                   "CUSTOM", False, False, database="sales")
    assert props[properties.DATABASE] == "sales"
    assert props[properties.PARTITION_FIELDS] == "region:SIMPLE,ts:TIMESTAMP"
    assert props[properties.CHECKSUM_KEY] == str(zlib.crc32(b"sales.t"))


def test_property_keys_are_apache_hudi_keys():
    from pyhudi.config import HUDI_KEYS

    keys = [v for k, v in vars(properties).items() if k.isupper() and isinstance(v, str) and v.startswith("hoodie.")
            and k not in ("PROPS_FILE", "BACKUP_FILE")]
    assert len(keys) > 20
    assert [k for k in keys if k not in HUDI_KEYS] == []


GOOD = "hoodie.table.name=x\nhoodie.table.type=COPY_ON_WRITE\nhoodie.table.version=8\n"
BAD_CHECKSUM = GOOD + "hoodie.table.checksum=1\n"


@pytest.mark.parametrize("main, backup, exists, loaded, error", [
    (None, None, False, None, "no Hudi table at"),
    (GOOD, None, True, "main", None),
    (None, GOOD, True, "backup", None),  # mid-update: the main file gone, the backup not yet removed
    (BAD_CHECKSUM, GOOD + "hoodie.table.precombine.field=ts\n", True, "backup", None),
    (BAD_CHECKSUM, None, True, None, "does not match.*and hoodie.properties.backup is missing"),
    (BAD_CHECKSUM, "hoodie.table.name=x\n", True, None, "does not match.*and hoodie.properties.backup is invalid"),
    (None, "hoodie.table.name=x\n", True, None, r"hoodie.properties.backup: missing required key"),
])
def test_the_backup_stands_in_for_a_missing_or_invalid_file_as_in_hudi(tmp_path, main, backup, exists, loaded, error):
    """Apache Hudi's HoodieTableConfig (and the connector's TableConfig) read the backup when hoodie.properties
    is missing or fails validation, and a table whose backup alone is there exists: the messages of each case
    (the conformance tests' table_config.json pins which file each side reads)."""
    storage, base = Storage.for_uri(str(tmp_path))
    (tmp_path / ".hoodie").mkdir()
    for name, text in (("hoodie.properties", main), ("hoodie.properties.backup", backup)):
        if text is not None:
            (tmp_path / ".hoodie" / name).write_text(text)
    assert properties.exists(storage, base) is exists
    if error:
        with pytest.raises(properties.TablePropertiesError, match=error):
            properties.load(storage, base)
    else:
        props = properties.load(storage, base)
        assert ("hoodie.table.precombine.field" in props) is (loaded == "backup" and main is not None)
