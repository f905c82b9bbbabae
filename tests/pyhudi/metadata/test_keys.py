"""Hash ids, record keys and file groups of the metadata table (docs/format.md §7.5 vectors,
recomputed from real metadata-table keys)."""
from pyhudi.metadata.keys import (
    BLOOM_FILTERS,
    COLUMN_STATS,
    FILES,
    HASH_SEED,
    PARTITION_STATS,
    bloom_filter_key,
    column_stats_key,
    file_group_id,
    file_group_index,
    files_key,
    hash_id64,
    partition_path,
    partition_stats_key,
)


def test_hudi_hash_ids_and_record_keys():
    assert HASH_SEED == 0xFFFFFFFFDABADABA
    assert [hash_id64(s) for s in (".", "", "currency", "region=us")] == \
        ["FXThHwelITM=", "DW/eaNVbRdo=", "/m6lxu4Dh5w=", "431THTTwO5Q="]
    assert partition_stats_key("currency", "region=us") == "/m6lxu4Dh5w=431THTTwO5Q="
    assert column_stats_key(
        "driver", "city=sao_paulo", "8aa68f7e-afd6-4c94-b86c-8a886552e08d-0_2-1112-3192_20251220210129235.parquet") \
        == "AjpJ7N1gBZc=6Hj+sBy+gvM=0VV0SYFvRHPGdIGkp/dZ+A=="
    assert column_stats_key("c", "", "f.parquet").startswith(hash_id64("c") + "FXThHwelITM=")
    assert len(bloom_filter_key("p", "f.parquet")) == 36
    assert files_key("") == "." and partition_path(".") == ""


def test_file_groups():
    assert file_group_index("TXN-008", 10) == 1
    assert [file_group_id(p, i) for p, i in ((FILES, 0), (COLUMN_STATS, 1), (BLOOM_FILTERS, 3),
                                             (PARTITION_STATS, 0))] == \
        ["files-0000-0", "col-stats-0001-0", "bloom-filters-0003-0", "partition-stats-0000-0"]
