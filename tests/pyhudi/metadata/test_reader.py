"""Reading the metadata table Hudi 1.0 wrote, as readers see it."""
from pyhudi.metadata import MetadataWriter
from pyhudi.metadata.keys import ALL_PARTITIONS_KEY, COLUMN_STATS, FILES, column_stats_prefix
from pyhudi.metadata.reader import files_listing, read_files, read_partition
from pyhudi.storage import Storage
from pyhudi.table import properties
from tests.pyhudi.metadata.synthetic import V8_MDT


def test_reads_by_key_and_prefix_agree_with_full_reads(fixture_tables):
    storage, base = Storage.for_uri(fixture_tables[V8_MDT])
    state = MetadataWriter(storage, base, properties.load(storage, base)).state()
    everything = read_partition(state, COLUMN_STATS)
    some = sorted(everything)[::7]
    assert read_partition(state, COLUMN_STATS, keys=some) == {k: everything[k] for k in some}
    prefix = column_stats_prefix("fare", "city=chennai")
    by_prefix = read_partition(state, COLUMN_STATS, prefixes=[prefix])
    assert by_prefix and by_prefix == {k: r for k, r in everything.items() if k.startswith(prefix)}
    listing = files_listing(state)
    assert sorted(listing) == sorted(read_partition(state, FILES)[ALL_PARTITIONS_KEY].live_files())
    assert read_files(state, ["city=chennai"]) == {"city=chennai": listing["city=chennai"]}
