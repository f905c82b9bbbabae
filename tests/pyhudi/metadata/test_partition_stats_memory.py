"""Partition statistics recomputed by a long-running writer, which keeps the column stats of the files it has
seen (`partition_stats.KNOWN`), equal those a fresh process computes from the metadata table alone, after
every step of random writes: new file groups, rewrites of existing ones, replaced groups, and commits another
process made (whose files the writer has not seen)."""
import random

from pyhudi.metadata import partition_stats
from pyhudi.metadata.keys import PARTITION_STATS
from pyhudi.metadata.partition_stats import KNOWN, KnownStats
from tests.pyhudi.metadata.synthetic import SyntheticTable


def _pstats(mdt) -> dict:
    """key -> (min, max, nulls, values) of the live partition_stats records of the data columns (the meta
    columns hold instant times and file names, which differ between the two tables)."""
    return {k: (r.stats.min_value, r.stats.max_value, r.stats.null_count, r.stats.value_count)
            for k, r in mdt.read_partition(PARTITION_STATS).items() if not r.stats.column_name.startswith("_hoodie")}


def _step(rnd: random.Random, groups: dict[str, list[str]]):
    """One random write: (city, low id, size, file id to rewrite or None, replaced (city, file id) or None)."""
    city = rnd.choice("abc")
    low, size = rnd.randrange(0, 500), rnd.randrange(1, 30)
    kind = rnd.choice(["new", "rewrite", "replace"]) if groups.get(city) else "new"
    if kind == "new":
        return city, low, size, None, None
    fid = rnd.choice(groups[city])
    return (city, low, size, fid, None) if kind == "rewrite" else (city, low, size, None, (city, fid))


def _commit(t: SyntheticTable, mdt, city: str, ids: range, fid: str | None, replaced, ts: int) -> str:
    """One commit of a base file into `city` (file group `fid`, a new one with None); its file id."""
    written = []

    def write(instant):
        written.append(t.write_base(instant, city, ids, file_id=fid, ts=ts))
        return written
    if replaced:
        t.commit(write, mdt, action="replacecommit", operation="INSERT_OVERWRITE",
                 replaced={t.partition_of(replaced[0]): [replaced[1]]})
    else:
        t.commit(write, mdt)
    return written[0].file_id


def test_kept_stats_give_the_records_a_fresh_process_computes(tmp_path, monkeypatch):
    rnd = random.Random(20261128)
    kept, fresh = SyntheticTable(tmp_path / "kept"), SyntheticTable(tmp_path / "fresh")
    mdts = {"kept": kept.mdt(), "fresh": fresh.mdt()}
    for m in mdts.values():
        m.initialize()
    groups: dict[str, list[str]] = {}
    for n in range(24):
        city, low, size, fid, replaced = _step(rnd, groups)
        if rnd.random() < 0.3:  # another process writes this commit
            monkeypatch.setattr(partition_stats, "KNOWN", KnownStats())
        new_fid = _commit(kept, mdts["kept"], city, range(low, low + size), fid, replaced, n)
        monkeypatch.setattr(partition_stats, "KNOWN", KNOWN)
        KNOWN.forget(mdts["fresh"].mdt_path)  # this table's computation starts from nothing
        _commit(fresh, mdts["fresh"], city, range(low, low + size), fid or new_fid, replaced, n)
        if fid is None:
            groups.setdefault(city, []).append(new_fid)
        if replaced:
            groups[city].remove(replaced[1])
        assert _pstats(mdts["kept"]) == _pstats(mdts["fresh"]), f"step {n}"
    known = {p: KNOWN.partition(mdts["kept"].state(), f"city={p}") for p in "abc"}
    assert all(known.values())  # the kept table's computation had them
