"""The multi-level data-block index."""
from __future__ import annotations

from pyhudi.hfile import parse_hfile, write_hfile
from pyhudi.hfile.format import LEAF_INDEX
from pyhudi.hfile.index import parse_non_root_index
from tests.pyhudi.hfile.hfile_checks import HFILES, numbered_cells


def test_expected_index_depths():
    levels = {p.stem: parse_hfile(p.read_bytes()).trailer.data_index_levels for p in HFILES}
    assert levels["hudi_1_0_hbase_2_4_13_1KB_GZ_10000_large_keys_deep_index"] == 3
    assert levels["hudi_1_0_hbase_2_4_13_1KB_GZ_20000_large_keys"] == 2
    assert levels["hudi_1_0_hbase_2_4_9_16KB_GZ_20000"] == 1


def test_leaf_entries_point_at_every_data_block():
    contents = parse_hfile(write_hfile(numbered_cells(5000), block_size=256, index_block_max_size=4096))
    assert contents.trailer.data_index_levels == 2
    leaves = contents.blocks_of(LEAF_INDEX)
    entries = [entry for leaf in leaves for entry in parse_non_root_index(leaf.payload)]
    assert [(o, s) for o, s, _ in entries] == [(b.offset, b.on_disk_size) for b in contents.data_blocks()]
    assert [(o, s) for o, s, _ in contents.root_index] == [(b.offset, b.on_disk_size) for b in leaves]
    assert [k for _, _, k in contents.root_index] == [parse_non_root_index(b.payload)[0][2] for b in leaves]
