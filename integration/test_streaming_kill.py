"""Structured Streaming into a Hudi table, exactly once: a file source streams into a merge-on-read table (inline
compaction on) while the query is SIGKILLed at random points five times and restarted from its checkpoint. The
final rows equal the source's (the latest version of each key), no micro-batch is in two completed commits, no
write is left pending, and hudi-rs reads the same rows."""
import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pyarrow as pa

from conftest import PROJECT
from pyhudi.spark.streaming import SINK_CHECKPOINT_KEY, WRITE_ACTIONS
from pyhudi.storage import Storage
from pyhudi.table import instant_metadata as im
from pyhudi.table import properties
from pyhudi.table.timeline import Timeline

FILES, ROWS = 12, 6


def _source(root: Path) -> dict:
    """FILES JSON files; each inserts new keys and updates keys of earlier files. The expected table."""
    root.mkdir()
    expected = {}
    for f in range(FILES):
        rows = [{"id": f * ROWS + i, "ts": f, "p": f"p{i % 2}", "v": f"new-{f}"} for i in range(ROWS - 2)]
        rows += [{"id": (f * 7 + i) % (f * ROWS + 1), "ts": f, "p": "p0", "v": f"upd-{f}"} for i in range(2)]
        rows = list({r["id"]: r for r in rows}.values())  # one version of a key per file
        for r in rows:
            if r["id"] in expected and expected[r["id"]]["p"] != r["p"]:
                r["p"] = expected[r["id"]]["p"]  # a key keeps its partition
            expected[r["id"]] = r
        (root / f"{f:03d}.json").write_text("".join(json.dumps(r) + "\n" for r in rows))
    return {k: (r["ts"], r["p"], r["v"]) for k, r in expected.items()}


def _run(args, kill_at=None, delay=0.0):
    """The streaming query; with `kill_at`, SIGKILLed `delay` seconds after the table holds that many written
    batches (or at once if the query ends first): kills land inside batches however fast the machine is."""
    env = {**os.environ, "PYTHONPATH": str(PROJECT)}
    proc = subprocess.Popen([sys.executable, str(Path(__file__).parent / "streaming_writer.py"), *args], env=env,
                            cwd=str(PROJECT), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    if kill_at is None:
        _, err = proc.communicate(timeout=900)
        assert proc.returncode == 0, err[-3000:]
        return
    table, deadline = args[1], time.monotonic() + 600
    while proc.poll() is None and time.monotonic() < deadline and _written(table) < kill_at:
        time.sleep(0.05)
    time.sleep(delay)
    proc.send_signal(signal.SIGKILL)
    proc.communicate()


def _written(table: str) -> int:
    """Batches the table's completed writes hold so far (0 while the query is creating it)."""
    try:
        return len(_batches(table)[0]) if Path(table, ".hoodie", "hoodie.properties").exists() else 0
    except (OSError, ValueError):  # a timeline caught mid-write: look again
        return 0


def _batches(path):
    """Every micro-batch id recorded by a completed write, once per write; and the pending instants."""
    storage, base = Storage.for_uri(path)
    timeline = Timeline.for_table(storage, base, properties.load(storage, base))
    ids = []
    for inst in timeline.completed(WRITE_ACTIONS):
        checkpoint = (im.decode(timeline.read(inst)).get("extraMetadata") or {}).get(SINK_CHECKPOINT_KEY)
        ids += [int(k) for k in json.loads(checkpoint)] if checkpoint else []
    return ids, [i for i in timeline.pending() if i.action in WRITE_ACTIONS]


def test_killed_streaming_query_writes_every_batch_exactly_once(spark, tmp_path):
    expected = _source(tmp_path / "source")
    table, checkpoint = str(tmp_path / "table"), str(tmp_path / "checkpoint")
    args = [str(tmp_path / "source"), table, checkpoint, "MERGE_ON_READ"]
    rng = random.Random(7)
    progress = []
    for at in (1, 3, 5, 7, 9):  # kills land inside a batch: after `at` batches, at a random point of the next
        _run(args, kill_at=at, delay=rng.uniform(0, 1.0))
        progress.append(len(_batches(table)[0]) if Path(table, ".hoodie").exists() else 0)
    assert any(0 < done < FILES for done in progress), progress  # some kill interrupted the stream midway
    _run(args)
    ids, pending = _batches(table)
    # each micro-batch Spark committed in exactly one completed write: one file per batch, except that a query
    # restarted after the file source logged a file but not its batch takes the files it finds in one batch
    committed = sorted(int(p.name) for p in Path(checkpoint, "commits").iterdir() if p.name.isdigit())
    assert 0 < len(committed) <= FILES, committed
    assert sorted(ids) == committed == list(range(len(committed))), ids
    assert pending == []
    rows = spark.read.format("hudi-meta").load(table).collect()
    assert {r["id"]: (r["ts"], r["p"], r["v"]) for r in rows} == expected
    from hudi import HudiTableBuilder
    t = pa.Table.from_batches(HudiTableBuilder.from_base_uri(table).build().read())
    assert {r["id"]: (r["ts"], r["p"], r["v"]) for r in t.to_pylist()} == expected
