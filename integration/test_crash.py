"""A writer killed with SIGKILL at each point of the write protocol: readers keep seeing the
previous state, the next write rolls the failed one back and succeeds, and no data file of the
failed write is left behind."""
import os
import signal
import subprocess
import sys
from pathlib import Path

import pyarrow as pa
import pytest

from conftest import PROJECT
from pyhudi.faults import POINTS
from pyhudi.hudi_table import HudiTable
from pyhudi.storage import Storage
from pyhudi.table import file_names as filenames
from pyhudi.table import properties
from pyhudi.table.timeline import Timeline
from tests.canonical import canon

sys.path.insert(0, str(Path(__file__).parent))
from scenario import SCHEMA, options, rows  # noqa: E402


def _state(spark, path):
    ours = canon(spark.read.format("hudi-meta").load(path).toArrow())
    from hudi import HudiTableBuilder
    theirs = canon(pa.Table.from_batches(HudiTableBuilder.from_base_uri(path).build().read()))
    assert ours == theirs
    return ours


def _crash(path, table_type, first, point):
    env = {**os.environ, "PYHUDI_CRASH_AT": point,
           "PYTHONPATH": os.pathsep.join([str(PROJECT), str(Path(__file__).parent)])}
    done = subprocess.run([sys.executable, str(Path(__file__).parent / "crash_writer.py"), path, table_type,
                           str(first)], env=env, cwd=str(PROJECT), capture_output=True, text=True, timeout=600)
    assert done.returncode == -signal.SIGKILL, done.stderr[-3000:]


def _data_files(path):
    return [p for p in Path(path).rglob("*") if p.is_file() and ".hoodie" not in p.parts
            and (filenames.is_base(p.name) or filenames.is_log(p.name))]


def _orphans(path):
    storage, base = Storage.for_uri(path)
    tl = Timeline.for_table(storage, base, properties.load(storage, base))
    done = {i.requested_time for i in tl.completed()}
    out = []
    for f in _data_files(path):
        name = filenames.parse_base(f.name) if filenames.is_base(f.name) else filenames.parse_log(f.name)
        if name.instant not in done:
            out.append(f)
    return out


@pytest.mark.parametrize("table_type", ["COPY_ON_WRITE", "MERGE_ON_READ"])
def test_sigkill_at_every_protocol_point(spark, tmp_path, table_type):
    path = str(tmp_path / table_type)
    table = HudiTable(spark, path, options(table_type))
    table.insert(spark.createDataFrame(rows(0, 200, ts=1), SCHEMA))
    first = 0
    for point in POINTS:
        before = _state(spark, path)
        _crash(path, table_type, first, point)
        after = _state(spark, path)
        if point == "after_complete":
            assert after != before  # it committed before dying: the write is there
        else:
            assert after == before, point  # readers see the previous state
        # the next write rolls the failed one back and is correct
        table.upsert(spark.createDataFrame(rows(first, 10, ts=900), SCHEMA))
        got = {r["id"]: r["val"] for r in spark.read.format("hudi-meta").load(path).collect()}
        assert all(got[f"k{i:05d}"] == f"v{i}-900" for i in range(first, first + 10)), point
        assert not _orphans(path), point
        first += 20


def test_cli_rollback_removes_a_dead_write(spark, tmp_path):
    path = str(tmp_path / "cli")
    HudiTable(spark, path, options("MERGE_ON_READ")).insert(spark.createDataFrame(rows(0, 50, ts=1), SCHEMA))
    before = _state(spark, path)
    _crash(path, "MERGE_ON_READ", 0, "before_complete")
    assert _orphans(path)  # the dead write left files
    out = subprocess.run([sys.executable, "-m", "pyhudi.cli", "rollback", path], cwd=str(PROJECT),
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0 and "rolled back" in out.stdout, out.stdout + out.stderr
    assert not _orphans(path)
    storage, base = Storage.for_uri(path)
    tl = Timeline.for_table(storage, base, properties.load(storage, base))
    assert not tl.pending() and [i.action for i in tl.completed()] == ["deltacommit", "rollback"]
    assert _state(spark, path) == before
