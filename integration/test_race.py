"""Four writer processes racing on three tables (copy-on-write and merge-on-read under optimistic concurrency
control, merge-on-read under non-blocking concurrency control), 12 commits each per table, with mixes of
disjoint and overlapping keys and the table services running inline (compaction, clean, archival): every commit
that returned is visible, conflicts happen (optimistic tables) and each is a HudiConflictError naming the
completed write it overlapped and leaving nothing, no update is lost (the rows
equal a replay of the successful commits in completion order), hudi-rs reads the same, and the metadata table
validates against a listing."""
import json
import os
import subprocess
import sys
from pathlib import Path

import pyarrow as pa

from bench.concurrency.worker import KINDS, SCHEMA, initial_rows, options
from conftest import PROJECT
from pyhudi.hudi_table import HudiTable
from pyhudi.services import archival
from pyhudi.services.instant import ServiceTable
from pyhudi.table.file_slices import file_id_and_instant

WRITERS, COMMITS = 4, 12  # 48 commits a table: archival (keep.max 12) and compaction run


def replay(commits: list[tuple[str, list]]) -> dict[str, str]:
    """The rows after the successful commits, applied in completion order, the greater ordering value winning
    (Hudi's event-time ordering; equal values: the later commit)."""
    state = {r[0]: r for r in initial_rows()}
    for _, rows in sorted(commits, key=lambda c: c[0]):
        for r in rows:
            if r[0] not in state or r[1] >= state[r[0]][1]:
                state[r[0]] = tuple(r)
    return {k: r[3] for k, r in state.items()}


def _race(paths: dict[str, str], results: Path) -> list[dict]:
    env = {**os.environ, "PYTHONPATH": str(PROJECT)}
    procs = [subprocess.Popen([sys.executable, "-m", "bench.concurrency.worker", "write", str(results), str(w),
                               str(COMMITS), str(100 + w), "race", *[f"{p}:{k}" for k, p in paths.items()]],
                              env=env, cwd=str(PROJECT), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
             for w in range(WRITERS)]
    for p in procs:
        _, err = p.communicate(timeout=2400)
        assert p.returncode == 0, err[-3000:]
    return [json.loads(line) for line in results.read_text().splitlines()]


def _completions(path: str) -> dict[str, str]:
    """requested time -> completion time of every completed instant, active or archived."""
    done = {i.requested_time: i.completion_time for i in ServiceTable.open(path).timeline.completed()}
    done.update({a.instant_time: a.completion_time for a in archival.archived_instants(path)})
    return done


def _files_of(path: str, instant: str) -> list[str]:
    """The data files written at `instant`."""
    return [f.name for f in Path(path).rglob("*") if ".hoodie" not in f.parts and f.is_file()
            and (file_id_and_instant(f.name) or (None, None))[1] == instant]


def _hudi_rs(path: str) -> dict[str, str]:
    from hudi import HudiTableBuilder
    t = pa.Table.from_batches(HudiTableBuilder.from_base_uri(path).build().read())
    return dict(zip(t.column("id").to_pylist(), t.column("val").to_pylist()))


def test_four_writers_race(spark, tmp_path):
    paths = {kind: str(tmp_path / kind) for kind in KINDS}
    for kind, path in paths.items():
        HudiTable(spark, path, options(kind)).upsert(spark.createDataFrame(initial_rows(), SCHEMA))
    lines = _race(paths, tmp_path / "results.jsonl")
    assert [ln["error"] for ln in lines if ln["status"] == "error"] == []
    assert len(lines) == WRITERS * COMMITS * len(KINDS)
    for kind, path in paths.items():
        mine = [ln for ln in lines if ln["table"] == path]
        completed = _completions(path)
        ok = [ln for ln in mine if ln["status"] == "ok"]
        lost = [ln for ln in mine if ln["status"] == "conflict"]
        assert all(ln["instant"] in completed for ln in ok), kind
        for ln in lost:  # nothing of a losing write is visible or left behind
            assert ln["instant"] not in completed and not _files_of(path, ln["instant"]), (kind, ln)
            # the refusal names what it overlapped: a write that completed, or a service's plan
            other = ln["other"].split()[-1]
            assert other in ln["error"] and (other in completed or " plan " in ln["other"]), (kind, ln)
        if kind == "mor-nbcc":
            assert lost == []  # appends to the same buckets never conflict
        else:  # the race raced: writers touching the same file groups at once were refused
            assert lost, f"{kind}: no conflict in {len(ok)} commits"
        model = replay([(completed[ln["instant"]], ln["rows"]) for ln in ok])
        got = {r["id"]: r["val"] for r in spark.read.format("hudi-meta").load(path).collect()}
        assert got == model, kind
        assert _hudi_rs(path) == model, kind
        assert not [i for i in ServiceTable.open(path).timeline.pending() if i.action in ("commit", "deltacommit")]
        validated = subprocess.run([sys.executable, "-m", "pyhudi", "metadata", "validate", path], cwd=str(PROJECT),
                                   capture_output=True, text=True, timeout=600)
        assert validated.returncode == 0 and "files: agrees with the data" in validated.stdout, \
            validated.stdout[-2000:] + validated.stderr[-2000:]
        print(f"{kind}: {len(ok)} commits, {len(lost)} conflicts")
