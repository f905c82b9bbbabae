import multiprocessing as mp

import pytest

from conftest import TABLE_NAMES
from pyhudi.storage import Storage
from pyhudi.table import properties
from pyhudi.table.timeline import (
    ACTIONS,
    COMPLETED,
    COMPLETED_ACTION,
    INFLIGHT,
    REQUESTED,
    Instant,
    InstantTimeGenerator,
    Timeline,
    parse_instant_file,
)


def _timeline(path):
    storage, base = Storage.for_uri(path)
    return Timeline.for_table(storage, base, properties.load(storage, base))


def _hudi_rs_completed(path):
    from hudi import HudiTableBuilder

    tl = HudiTableBuilder.from_base_uri(path).build().get_timeline()
    found = set()
    for getter in (tl.get_completed_commits, tl.get_completed_deltacommits, tl.get_completed_replacecommits,
                   tl.get_completed_clustering_commits):
        found |= {(i.timestamp, i.action) for i in getter()}
    return found


@pytest.mark.parametrize("name", TABLE_NAMES)
def test_completed_instants_match_hudi_rs(fixture_tables, name):
    tl = _timeline(fixture_tables[name])
    ours = {(i.requested_time, i.action) for i in tl.completed(("commit", "deltacommit", "replacecommit"))}
    assert ours == _hudi_rs_completed(fixture_tables[name])
    for inst in tl.completed():
        if tl.layout == 2:
            assert inst.completion_time and inst.completion_time >= inst.requested_time
            assert inst.file_name(2) == f"{inst.requested_time}_{inst.completion_time}.{inst.action}"
        else:
            assert inst.completion_time is None


def test_parse_instant_files():
    """Name by name cases are tests/conformance/instant_file_names.json; here the layout rules."""
    assert parse_instant_file("20250101000000000_20250101000001000.deltacommit", 2) == Instant(
        "20250101000000000", "deltacommit", COMPLETED, "20250101000001000")
    assert parse_instant_file("20250101000000000_20250101000001000.deltacommit", 1) is None
    assert parse_instant_file("20250101000000000.commit", 2) == Instant("20250101000000000", "commit", COMPLETED)
    assert parse_instant_file("20250101000000000.clustering.requested", 1) is None


@pytest.mark.parametrize("layout", [1, 2])
@pytest.mark.parametrize("action", ACTIONS)
@pytest.mark.parametrize("state", [REQUESTED, INFLIGHT, COMPLETED])
def test_every_name_written_parses_back(layout, action, state):
    """What the writer names an instant file, the reader loads as that instant (or, for states Hudi
    never writes, such as a completed compaction, not at all)."""
    inst = Instant("20250101000000000", action, state, "20250101000001000" if layout == 2 and state == COMPLETED
                   else None)
    parsed = parse_instant_file(inst.file_name(layout), layout)
    assert parsed in (inst, None)
    never_written = (state == COMPLETED and action in COMPLETED_ACTION) or (action, state) == ("savepoint", REQUESTED)
    assert (parsed is None) == (never_written or (layout == 1 and action == "clustering"))


def test_transitions_write_layout_2(tmp_path):
    storage, base = Storage.for_uri(str(tmp_path))
    tl = Timeline(storage, base)
    req = tl.create_requested("compaction", b"plan")
    inflight = tl.transition_to_inflight(req)
    done = tl.complete(inflight, b"meta")
    assert done.action == "commit" and done.completion_time > done.requested_time
    names = sorted(p.name for p in (tmp_path / ".hoodie" / "timeline").iterdir() if not p.name.endswith(".tmp"))
    assert names == sorted([f"{req.requested_time}.compaction.requested", f"{req.requested_time}.compaction.inflight",
                            f"{req.requested_time}_{done.completion_time}.commit"])
    assert tl.instants() == [done]
    assert tl.read(done) == b"meta"
    with pytest.raises(ValueError, match="expected inflight"):
        tl.complete(req, b"")
    later = tl.create_requested("commit")
    assert later.requested_time > done.completion_time
    assert tl.pending() == [later]
    with pytest.raises(ValueError, match="unknown action"):
        tl.create_requested("comit")


def test_completion_is_create_if_absent(tmp_path):
    storage, base = Storage.for_uri(str(tmp_path))
    tl = Timeline(storage, base, layout=1)
    inflight = tl.transition_to_inflight(tl.create_requested("deltacommit"))
    tl.complete(inflight, b"{}")
    with pytest.raises(RuntimeError, match="completed by another writer"):
        tl.complete(inflight, b"{}")


def _take_times(lock_dir, n, queue):
    gen = InstantTimeGenerator(lock_dir)
    queue.put([gen.next() for _ in range(n)])


def test_instant_times_across_processes(tmp_path):
    ctx = mp.get_context("spawn")
    queue = ctx.Queue()
    procs = [ctx.Process(target=_take_times, args=(str(tmp_path), 200, queue)) for _ in range(4)]
    for p in procs:
        p.start()
    results = [queue.get(timeout=120) for _ in procs]
    for p in procs:
        p.join(timeout=60)
    everything = [t for r in results for t in r]
    assert len(everything) == 800 and len(set(everything)) == 800
    for r in results:
        assert all(len(t) == 17 and t.isdigit() for t in r)
        assert r == sorted(r) and len(set(r)) == len(r)
