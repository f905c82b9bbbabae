"""The indexing action while another process keeps writing: the writer's upserts, deletes and partition
moves go on before, during and after the build; the record index ends complete - every live key at its
file group, no deleted key - and the writer was never stopped by it."""
import subprocess
import sys
import time
from pathlib import Path

from conftest import PROJECT
from pyhudi.hudi_table import HudiTable
from pyhudi.services import indexing
from tests.pyhudi.write.test_record_index import _assert_index_right, _index, _partitions

sys.path.insert(0, str(Path(__file__).parent))
from indexing_writer import OPTIONS, rows  # noqa: E402


def _done(done_file: Path) -> list[str]:
    return done_file.read_text().split() if done_file.exists() else []


def test_index_built_while_another_process_writes(spark, tmp_path):
    path = str(tmp_path / "online")
    plain = {k: v for k, v in OPTIONS.items() if k not in ("hoodie.index.type", "hoodie.metadata.index.async")}
    HudiTable(spark, path, plain).insert(rows(spark, range(100), 1))
    done_file, stop_file = tmp_path / "done", tmp_path / "stop"
    writer = subprocess.Popen([sys.executable, str(Path(__file__).parent / "indexing_writer.py"), path,
                               str(done_file), str(stop_file)], cwd=str(PROJECT),
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        deadline = time.monotonic() + 300
        while not _done(done_file):  # the writer is writing before the build starts
            assert writer.poll() is None and time.monotonic() < deadline, writer.stdout.read()
            time.sleep(0.5)
        assert "record_index" not in _partitions(path)  # hoodie.metadata.index.async: left to the indexer
        done = indexing.create(spark, path)
        after = len(_done(done_file))
        while len(_done(done_file)) < after + 2:  # and goes on writing into the built index
            assert writer.poll() is None and time.monotonic() < deadline, writer.stdout.read()
            time.sleep(0.5)
    finally:
        stop_file.touch()
        out, _ = writer.communicate(timeout=300)
    assert writer.returncode == 0, out
    instants = _done(done_file)
    assert any(i < done.requested_time for i in instants) and any(i > done.requested_time for i in instants)
    assert done.completion_time and any(i > done.completion_time for i in instants)
    _assert_index_right(spark, path)  # every live key where it is, no deleted key
    index = _index(spark, path)
    assert "k0003" not in index and "k1001" in index
