"""io.hudimeta.view.SpillableFileStore: partitions past a heap bound spill to RocksDB and read back intact.

Java is reached through py4j. Lists are compared on the Java side (List.equals over FileEntry records, so
names, sizes and order) to keep round trips few; a few are also checked element by element in Python.
"""
from __future__ import annotations

import random

import pytest
from py4j.protocol import Py4JJavaError

DIR_OPTION = "hoodie.filesystem.view.spillable.dir"
BOUND = 10 * 1024


@pytest.fixture(scope="module")
def jvm(spark):
    return spark._jvm


def files(jvm, entries):
    """A java.util.ArrayList of FileEntry from (name, size) pairs."""
    entry = jvm.io.hudimeta.table.FileEntry  # resolved once: each package step is a round trip
    out = jvm.java.util.ArrayList()
    for name, size in entries:
        out.add(entry(name, size))
    return out


def partition_entries(p, n=50, version=0):
    return [(f"f{p}-{i}_{version}-0-0_20250101{i:06d}.parquet", p * 1000 + i + version) for i in range(n)]


def as_pairs(jlist):
    return [(e.name(), e.size()) for e in jlist]


def store_dirs(spill_dir):
    return sorted(p.name for p in spill_dir.iterdir())


@pytest.fixture(scope="module")
def loaded(jvm, tmp_path_factory):
    """200 partitions x 50 files put into a store bounded at 10 KB, with the Java lists that were put."""
    spill_dir = tmp_path_factory.mktemp("spill")
    store = jvm.io.hudimeta.view.SpillableFileStore(BOUND, str(spill_dir))
    expected = {}
    for p in range(200):
        name = f"year=2025/part={p}"
        expected[name] = files(jvm, partition_entries(p))
        store.put(name, expected[name])
        assert store.memoryBytes() <= BOUND
    yield store, spill_dir, expected
    store.close()


def test_partitions_spill_under_the_bound(loaded):
    store, spill_dir, expected = loaded
    assert 0 < store.spilledPartitions() < 200
    assert 0 < store.memoryBytes() <= BOUND
    (db,) = store_dirs(spill_dir)
    assert db.startswith("hudi-meta-view-")
    assert any((spill_dir / db).iterdir())
    assert set(store.partitions()) == set(expected)


def test_every_partition_reads_back_what_was_put(loaded):
    store, _, expected = loaded
    for name, jlist in expected.items():
        assert store.contains(name)
        got = store.get(name)
        assert got.size() == 50 and got.equals(jlist), name
    assert store.get("year=2025/part=missing") is None
    assert not store.contains("year=2025/part=missing")
    # element by element for the oldest (spilled) and the newest (on the heap) partitions
    for p in (0, 199):
        assert as_pairs(store.get(f"year=2025/part={p}")) == partition_entries(p)


def test_replace_moves_between_tiers(jvm, tmp_path):
    store = jvm.io.hudimeta.view.SpillableFileStore(BOUND, str(tmp_path))
    for p in range(40):
        store.put(f"p{p}", files(jvm, partition_entries(p, n=10)))
    spilled, heap = store.spilledPartitions(), store.memoryBytes()
    assert spilled > 0
    big = files(jvm, partition_entries(1000, n=200))  # alone over the bound: always on disk

    # p0 was spilled first: a bigger replacement stays on disk, the heap is untouched
    store.put("p0", big)
    assert (store.spilledPartitions(), store.memoryBytes()) == (spilled, heap)
    assert store.get("p0").equals(big)

    # p39 is the most recent, so on the heap: an over-the-bound replacement moves it to disk
    store.put("p39", big)
    assert store.spilledPartitions() == spilled + 1
    assert store.memoryBytes() < heap
    assert store.get("p39").equals(big)

    # a small replacement of a spilled partition takes it back to the heap (evicting others if needed)
    small = files(jvm, [("only.parquet", 7)])
    store.put("p0", small)
    assert as_pairs(store.get("p0")) == [("only.parquet", 7)]
    assert store.memoryBytes() <= BOUND
    assert store.partitions().size() == 40
    for p in range(1, 39):
        assert as_pairs(store.get(f"p{p}")) == partition_entries(p, n=10)
    store.close()


def test_clear_and_close(jvm, tmp_path):
    store = jvm.io.hudimeta.view.SpillableFileStore(BOUND, str(tmp_path))
    for p in range(30):
        store.put(f"p{p}", files(jvm, partition_entries(p, n=10)))
    assert store.spilledPartitions() > 0 and len(store_dirs(tmp_path)) == 1

    store.clear()
    assert (store.spilledPartitions(), store.memoryBytes(), store.partitions().size()) == (0, 0, 0)
    assert store.get("p0") is None and store.get("p29") is None
    assert not store.contains("p0") and not store.contains("p29")
    assert store_dirs(tmp_path) == []

    # usable after clear: spills again into a fresh database
    for p in range(30):
        store.put(f"q{p}", files(jvm, partition_entries(p, n=10)))
    assert store.spilledPartitions() > 0
    assert as_pairs(store.get("q0")) == partition_entries(0, n=10)
    assert len(store_dirs(tmp_path)) == 1

    store.close()
    assert store_dirs(tmp_path) == []
    assert tmp_path.exists()  # only the store's own subdirectory goes


def test_no_database_until_the_first_spill(jvm, tmp_path):
    store = jvm.io.hudimeta.view.SpillableFileStore(104857600, str(tmp_path))
    for p in range(20):
        store.put(f"p{p}", files(jvm, partition_entries(p, n=10)))
    assert store.spilledPartitions() == 0
    assert store_dirs(tmp_path) == []
    store.close()


def test_unwritable_spill_dir_names_the_option(jvm, tmp_path):
    blocker = tmp_path / "not-a-dir"
    blocker.write_text("a regular file")
    spill_dir = blocker / "spill"
    store = jvm.io.hudimeta.view.SpillableFileStore(0, str(spill_dir))  # bound 0: the first put spills
    with pytest.raises(Py4JJavaError) as err:
        store.put("p0", files(jvm, [("a.parquet", 1)]))
    error = err.value.java_exception
    assert error.getClass().getName() == "io.hudimeta.table.HudiTableException"
    assert DIR_OPTION in error.getMessage()
    assert str(spill_dir) in error.getMessage()
    assert not store.contains("p0")
    store.close()


def test_matches_memory_store_on_random_operations(jvm, tmp_path):
    rng = random.Random(20250101)
    memory = jvm.io.hudimeta.view.MemoryFileStore()
    spillable = jvm.io.hudimeta.view.SpillableFileStore(4096, str(tmp_path))
    names = [f"dt=2025-01-{d:02d}/h={h}" for d in range(1, 6) for h in range(6)]
    put = set()
    for step in range(400):
        name = rng.choice(names)
        if rng.random() < 0.55:
            n = rng.choice([0, 1, 3, 10, 25, 60])
            jlist = files(jvm, [(f"{step}-{i}-é.parquet", rng.randrange(-1, 1 << 40)) for i in range(n)])
            memory.put(name, jlist)
            spillable.put(name, jlist)
            put.add(name)
        else:
            expected = memory.get(name)
            got = spillable.get(name)
            assert (got is None) == (expected is None) == (name not in put), (step, name)
            assert got is None or got.equals(expected), (step, name)
            assert spillable.contains(name) == (name in put)
        assert spillable.memoryBytes() <= 4096
    assert spillable.spilledPartitions() > 0
    assert memory.partitions().equals(spillable.partitions())
    for name in names:
        expected, got = memory.get(name), spillable.get(name)
        assert (got is None and expected is None) or got.equals(expected), name
    spillable.close()
    memory.close()
