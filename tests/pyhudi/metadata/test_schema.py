"""The metadata table's schema is Hudi's, byte for byte."""
from pathlib import Path

from pyhudi.metadata.schema import record_schema, schema_text_without_meta_fields, union_record_names
from pyhudi.table import instant_metadata as im
from tests.pyhudi.metadata.synthetic import V8_MDT


def test_commit_metadata_schema_matches_hudi(fixture_tables):
    base = Path(fixture_tables[V8_MDT])
    commit = next((base / ".hoodie" / "metadata" / ".hoodie" / "timeline").glob("*.commit"))
    assert im.schema_of(im.decode(commit.read_bytes())) == schema_text_without_meta_fields()


def test_nested_records_and_unions():
    assert record_schema("HoodieMetadataColumnStats")["name"] == "HoodieMetadataColumnStats"
    assert union_record_names("HoodieMetadataColumnStats", "minValue")[:2] == ["null", "BooleanWrapper"]
