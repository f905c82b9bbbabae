"""Building a metadata table from a listing: Hudi's layout, instants and properties."""
from pathlib import Path

import pytest

from pyhudi import hfile
from pyhudi import log as lf
from pyhudi.metadata.errors import MetadataTableError
from pyhudi.metadata.keys import file_group_id
from pyhudi.metadata.layout import metadata_table_properties
from pyhudi.metadata.schema import schema_text, schema_text_without_meta_fields
from pyhudi.table import instant_metadata as im
from pyhudi.table import properties
from tests.pyhudi.metadata.synthetic import two_partition_table


def test_initialize_layout(tmp_path):
    t, fids = two_partition_table(tmp_path / "t")
    mdt = t.mdt()
    assert mdt.initialize() == ["00000000000000000", "00000000000000001", "00000000000000002",
                                "00000000000000003"]
    root = Path(mdt.mdt_path)
    props = properties.load(t.storage, t.base)
    assert props["hoodie.table.metadata.partitions"] == "bloom_filters,column_stats,files,partition_stats"
    assert props["hoodie.table.metadata.partitions.inflight"] == ""
    mdt_props = properties.load(t.storage, mdt.mdt_path)
    assert mdt_props == metadata_table_properties(t.props)
    timeline = sorted(p.name for p in (root / ".hoodie" / "timeline").iterdir() if p.is_file())
    assert [n for n in timeline if n.endswith(".deltacommit")] == sorted(
        n for n in timeline if n.endswith(".deltacommit"))
    assert (root / ".hoodie" / "timeline" / "00000000000000001.deltacommit.inflight").read_bytes() == b""
    expected_groups = {"files": 1, "column_stats": 2, "bloom_filters": 4, "partition_stats": 1}
    for offset, (part, count) in enumerate(expected_groups.items()):
        instant = f"0000000000000000{offset}"
        names = sorted(p.name for p in (root / part).iterdir())
        assert (root / part / ".hoodie_partition_metadata").read_text().endswith(
            f"commitTime={instant}\npartitionDepth=1\n")
        for i in range(count):
            fid = file_group_id(part, i)
            boot = root / part / f".{fid}_{instant}.log.1_0-0-0"
            blocks = lf.read_blocks(boot.read_bytes())
            assert len(blocks) == 1 and blocks[0].header == {0: instant}
            assert blocks[0].content == bytes.fromhex("00000003 00000001 00")
        assert any(n.endswith(f"_{instant}.hfile") for n in names)
        done = next((root / ".hoodie" / "timeline").glob(f"{instant}_*.deltacommit"))
        meta = im.decode(done.read_bytes())
        assert meta["operationType"] == "BULK_INSERT"
        assert im.schema_of(meta) == schema_text_without_meta_fields()
        for s in meta["partitionToWriteStats"][part]:
            assert s["path"].endswith(f"_{instant}.hfile") and s["numWrites"] == s["numInserts"] > 0
    base_hfile = next((root / "files").glob("*.hfile"))
    c = hfile.parse_hfile(base_hfile.read_bytes())
    assert [k for k, _ in c.cells] == [b"__all_partitions__", b"city=a", b"city=b"]
    assert c.file_info[b"minRecordKey"] == b"__all_partitions__" and c.file_info[b"maxRecordKey"] == b"city=b"
    assert c.file_info[b"schema"].decode() == schema_text() and b"bloomFilter" in c.meta_blocks
    assert mdt.validate() == {}
    with pytest.raises(MetadataTableError, match="already exists"):
        mdt.initialize()
