"""The index definitions file: the column_stats definition as Apache Hudi 1.0.2 writes it (the bytes of a table
hudi-spark3.5-bundle_2.12:1.0.2 wrote with the same columns), kept beside secondary-index definitions."""
from __future__ import annotations

from pyhudi.storage import Storage
from pyhudi.table import index_definitions, properties

HUDI_1_0_2 = """{
  "indexDefinitions" : {
    "column_stats" : {
      "indexName" : "column_stats",
      "indexType" : "column_stats",
      "indexFunction" : "column_stats",
      "sourceFields" : [ "_hoodie_commit_time", "_hoodie_partition_path", "_hoodie_record_key", "id", "name", \
"ts", "city", "fare" ],
      "indexOptions" : { }
    }
  }
}"""
COLUMNS = ["_hoodie_commit_time", "_hoodie_partition_path", "_hoodie_record_key", "id", "name", "ts", "city", "fare"]


def _table(tmp_path):
    storage, base = Storage.for_uri(str(tmp_path))
    properties.save(storage, base, {"hoodie.table.name": "t", "hoodie.table.version": "8",
                                    "hoodie.table.type": "COPY_ON_WRITE"})
    return storage, base, properties.load(storage, base)


def test_column_stats_definition_is_byte_identical_to_apache_hudis(tmp_path):
    storage, base, props = _table(tmp_path)
    index_definitions.define_column_stats(storage, base, props, COLUMNS)
    assert (tmp_path / ".hoodie" / ".index_defs" / "index.json").read_text() == HUDI_1_0_2
    assert properties.load(storage, base)["hoodie.table.index.defs.path"] == ".hoodie/.index_defs/index.json"


def test_column_stats_definition_lives_beside_secondary_indexes_and_goes_alone(tmp_path):
    storage, base, props = _table(tmp_path)
    index_definitions.define_secondary(storage, base, props, "secondary_index_city", "city")
    index_definitions.define_column_stats(storage, base, props, COLUMNS)
    assert set(index_definitions.load(storage, base, props)) == {"secondary_index_city", "column_stats"}
    index_definitions.remove(storage, base, props, index_definitions.COLUMN_STATS)
    assert index_definitions.secondary_column(index_definitions.load(storage, base, props),
                                              "secondary_index_city") == "city"
    assert "column_stats" not in index_definitions.load(storage, base, props)
