"""The metadata table's own hoodie.properties and what the data table lists of it."""
from pathlib import Path

import pytest

from pyhudi.metadata.errors import MetadataTableError
from pyhudi.metadata.layout import completed_partitions, metadata_table_properties, validate_partitions
from pyhudi.table import properties
from tests.pyhudi.metadata.synthetic import V8_MDT


def test_metadata_properties_match_hudi(fixture_tables):
    base = Path(fixture_tables[V8_MDT])
    data_props = properties.parse((base / ".hoodie" / "hoodie.properties").read_text("latin-1"))
    mdt_props = properties.parse((base / ".hoodie" / "metadata" / ".hoodie" / "hoodie.properties").read_text("latin-1"))
    assert metadata_table_properties(data_props) == mdt_props


def test_listed_and_maintained_partitions():
    props = {"hoodie.table.metadata.partitions": "record_index,partition_stats,files,column_stats",
             "hoodie.table.metadata.partitions.inflight": "partition_stats"}
    assert completed_partitions(props) == ["files", "column_stats", "record_index"]
    assert validate_partitions(["partition_stats", "files", "column_stats"]) == \
        ["files", "column_stats", "partition_stats"]
    assert validate_partitions(["record_index", "files"]) == ["files", "record_index"]
    assert validate_partitions(["secondary_index_b", "record_index", "files", "secondary_index_a"]) == \
        ["files", "record_index", "secondary_index_b", "secondary_index_a"]
    for bad, match in ((["column_stats"], "'files' is required"), (["files", "expr_index_x"], "supported"),
                       (["files", "partition_stats"], "needs column_stats")):
        with pytest.raises(MetadataTableError, match=match):
            validate_partitions(bad)
