"""A metadata-table file shorter than the instant that wrote it (cut at a block boundary: it still parses) is
found from the listing and the timeline alone."""
import shutil
from pathlib import Path

from pyhudi.log import read_log_file
from pyhudi.log.framing import encode_blocks
from pyhudi.metadata import of_table
from pyhudi.metadata.integrity import damaged
from pyhudi.metadata.layout import completed_partitions
from tests.pyhudi.services.test_metadata_check import table  # noqa: F401


def _state(path):
    mdt = of_table(path)
    return mdt.state(), completed_partitions(mdt.data_props)


def test_a_whole_table_has_nothing_damaged(table):  # noqa: F811
    assert damaged(*_state(table)) == []


def test_a_log_file_cut_at_a_block_boundary_is_found(table, tmp_path):  # noqa: F811
    path = str(shutil.copytree(table, tmp_path / "t"))
    log = max((Path(path) / ".hoodie" / "metadata" / "files").glob(".files-*.log.*"), key=lambda f: f.name)
    whole = log.stat().st_size
    log.write_bytes(encode_blocks(read_log_file(str(log))[:-1]))
    (found,) = damaged(*_state(path))
    assert (found.partition, found.file, found.written) == ("files", log.name, whole) and found.size < whole
    assert str(found) == f"files/{log.name} is {found.size} bytes, but metadata-table instant {found.instant} " \
                         f"wrote {whole}"
