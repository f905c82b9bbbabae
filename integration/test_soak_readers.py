"""Readers beside a writer that does not stop (the lean soak; issue "Trust under stress"): a writer process makes
40 commits of upserts and deletes with the services on their defaults (inline compaction, cleaning, archival),
while this process reads snapshots in a loop through hudi-meta. Every read equals the rows of the table at some
completed commit (no partial commit is ever seen, and no read fails on a file the cleaner removed); the reads
saw the table at several commits (the writer really was writing under them)."""
import os
import subprocess
import sys
import time
from pathlib import Path

from conftest import PROJECT
from integration import soak_writer
from pyhudi.hudi_table import HudiTable

COMMITS, SEED = 40, 7


def _models() -> list[dict[str, str]]:
    """The table's rows after 0, 1, ... COMMITS commits."""
    state = {soak_writer.key(i): "init" for i in range(soak_writer.KEYS)}
    out = [dict(state)]
    for _, op, keys, val in soak_writer.batches(COMMITS, SEED):
        for i in keys:
            if op == "upsert":
                state[soak_writer.key(i)] = val
            else:
                state.pop(soak_writer.key(i), None)
        out.append(dict(state))
    return out


def test_every_read_beside_a_writer_is_the_table_at_a_commit(spark, tmp_path):
    path, results = str(tmp_path / "t"), tmp_path / "commits.jsonl"
    initial = [(soak_writer.key(i), 0, soak_writer.region(i), "init") for i in range(soak_writer.KEYS)]
    HudiTable(spark, path, soak_writer.OPTIONS).upsert(spark.createDataFrame(initial, soak_writer.SCHEMA))
    writer = subprocess.Popen([sys.executable, str(Path(__file__).parent / "soak_writer.py"), path, str(results),
                               str(COMMITS), str(SEED)], env={**os.environ, "PYTHONPATH": str(PROJECT)},
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    reads = []
    deadline = time.monotonic() + 1500
    while writer.poll() is None and time.monotonic() < deadline:
        rows = spark.read.format("hudi-meta").load(path).select("id", "val").collect()
        reads.append({r.id: r.val for r in rows})
    _, err = writer.communicate(timeout=60)
    assert writer.returncode == 0, err[-3000:]
    models = _models()
    assert len(results.read_text().splitlines()) == COMMITS
    seen = [next((n for n, m in enumerate(models) if m == read), None) for read in reads]
    assert None not in seen, [r for r, n in zip(reads, seen) if n is None][:1]
    assert seen == sorted(seen)  # never back in time
    assert len(set(seen)) >= 3, seen  # the reads ran under the writes
    final = {r.id: r.val for r in spark.read.format("hudi-meta").load(path).select("id", "val").collect()}
    assert final == models[-1]
    timeline = sorted(p.name for p in (Path(path) / ".hoodie" / "timeline").iterdir() if p.is_file())
    assert any(n.endswith(".clean") for n in timeline) and any(".commit" in n for n in timeline)  # services ran
    print(f"\n{len(reads)} reads saw {len(set(seen))} of {COMMITS + 1} table states")
