"""MDT clean keeps the latest N slices of every file group."""
import pytest

from pyhudi.metadata.errors import MetadataTableError
from pyhudi.table import instant_metadata as im
from tests.pyhudi.metadata.synthetic import two_partition_table


def test_clean_keeps_the_latest_slices(tmp_path):
    t, _ = two_partition_table(tmp_path / "t")
    mdt = t.mdt()
    mdt.initialize()
    with pytest.raises(MetadataTableError, match="at least 1"):
        mdt.clean(retain=0)
    assert mdt.clean() is None  # one slice per file group
    for n in range(2):
        t.commit(lambda i, n=n: [t.write_base(i, "a", range(100 + n, 101 + n))], mdt=mdt)
        mdt.compact()
    before = mdt.files_listing()
    c = mdt.clean(retain=2)
    state = mdt.state()
    assert all(len(s) <= 2 for part in mdt.partitions() for s in state.slices(part).values())
    plan = im.decode(t.storage.read(f"{state.timeline.dir}/{c}.clean.requested"), im.CLEANER_PLAN)
    assert plan["policy"] == "KEEP_LATEST_FILE_VERSIONS" and plan["filePathsToBeDeletedPerPartition"]
    assert mdt.files_listing() == before and mdt.validate() == {}
