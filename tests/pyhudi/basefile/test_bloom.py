import random
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from conftest import TABLE_NAMES
from pyhudi.basefile import bloom
from pyhudi.basefile import bloom_vector as vec


def _bloom_files(fixture_tables):
    """(path, footer) of every fixture Parquet file that carries a Hudi bloom filter."""
    out = []
    for name in TABLE_NAMES:
        for f in sorted(Path(fixture_tables[name]).rglob("*.parquet")):
            if "__MACOSX" in f.parts:
                continue
            meta = pq.ParquetFile(f).metadata.metadata or {}
            if b"org.apache.hudi.bloomfilter" in meta:
                out.append((f, meta))
    return out


@pytest.fixture(scope="module")
def bloom_files(fixture_tables):
    files = _bloom_files(fixture_tables)
    assert len(files) >= 150
    return files


def test_format_notes_vectors():
    h1 = bloom.murmur_hash(b"TXN-013", 0)
    assert h1 == -1902186129
    assert bloom.murmur_hash(b"TXN-013", h1) == -990997994
    assert bloom.hash_positions("TXN-013", 2, 2587966) == [31119, 2394982]
    a1 = bloom.murmur_hash(b"id:1,name:Alice")
    assert (a1, bloom.murmur_hash(b"id:1,name:Alice", a1)) == (71696166, -668954923)


def test_sizing_defaults():
    assert bloom.bit_size(60000, 1e-9) == 2587966
    assert bloom.num_hashes(2587966, 60000) == 30
    assert bloom.bit_size(10000, 1e-9) == 431328
    f = bloom.create_bloom_filter()
    assert (f.vector_size, f.nb_hash, f.type_code) == (2587966, 30, "DYNAMIC_V0")


def test_the_native_hashing_is_built_by_the_install():
    # pip install / python -m pyhudi.build compile pyhudi/native/bloom.c; numpy is the fallback without a compiler
    assert vec.NATIVE is not None, f"{vec.LIBRARY} is not built: python -m pyhudi.build"


@pytest.mark.parametrize("native", [True, False])
def test_batch_hash_equals_scalar_for_every_length_and_non_ascii(native, monkeypatch):
    if not native:
        monkeypatch.setattr(vec, "NATIVE", None)
    rng = random.Random(7)
    keys = [bytes(rng.randrange(256) for _ in range(n)) for n in range(1, 41) for _ in range(3)]
    keys += ["é", "ü€", "日本語キー", "x" * 100, "y" * 1500]  # 1500 bytes: past the C code's word cache
    data, starts, lengths = vec.key_buffers(keys)
    got = vec.positions(data, starts, lengths, 30, 2587966)
    for k, row in zip(keys, got):
        assert row.tolist() == bloom.hash_positions(k, 30, 2587966), k
    f = bloom.SimpleBloomFilter(200)
    f.add_all(keys[: len(keys) // 2])
    hit = f.might_contain_all(keys)
    assert hit[: len(keys) // 2] == [True] * (len(keys) // 2)
    assert hit == [f.might_contain(k) for k in keys]


def test_every_fixture_key_is_in_its_files_filter(bloom_files):
    for path, meta in bloom_files:
        code = meta.get(b"hoodie_bloom_filter_type_code")
        f = bloom.parse_bloom_filter(meta[b"org.apache.hudi.bloomfilter"].decode(), code and code.decode())
        keys = pq.read_table(path, columns=["_hoodie_record_key"]).column(0)
        assert all(f.might_contain_all(keys)), path
        assert all(f.might_contain(k) for k in keys.to_pylist()), path


@pytest.mark.parametrize("path", ["per-key", "numpy", "native"])
def test_rebuilt_filters_serialize_to_the_fixture_bytes(bloom_files, path, monkeypatch):
    if path != "native":
        monkeypatch.setattr(vec, "NATIVE", None)
    monkeypatch.setattr(bloom, "_SMALL_BATCH", 1 << 30 if path == "per-key" else 0)
    for path, meta in bloom_files:
        code = (meta.get(b"hoodie_bloom_filter_type_code") or b"SIMPLE").decode()
        keys = pq.read_table(path, columns=["_hoodie_record_key"]).column(0)
        built = bloom.create_bloom_filter(code)
        built.add_all(keys)  # same keys, file order
        assert built.serialize() == meta[b"org.apache.hudi.bloomfilter"].decode(), path


def test_fixture_bits_are_exactly_the_key_bits(bloom_files):
    path, meta = bloom_files[0]
    f = bloom.parse_bloom_filter(meta[b"org.apache.hudi.bloomfilter"].decode(), "DYNAMIC_V0")
    keys = pq.read_table(path, columns=["_hoodie_record_key"]).column(0).to_pylist()
    expected = sorted({p for k in keys for p in bloom.hash_positions(k, f.nb_hash, f.vector_size)})
    assert f.rows[0].set_bits() == expected


def _java_model(keys, nr, max_nr, nb_hash, vector_size):
    """Row contents of Hudi's InternalDynamicBloomFilter after adding keys one by one."""
    rows, current, reached, cur_index = [set()], 0, False, 0
    for k in keys:
        if reached:
            row = cur_index % len(rows)
            cur_index += 1
        elif current >= nr and len(rows) * nr < max_nr:
            rows.append(set())
            current, row = 0, len(rows) - 1
        elif current >= nr:
            reached, row = True, 0
        else:
            row = len(rows) - 1
        rows[row].update(bloom.hash_positions(k, nb_hash, vector_size))
        current += 1
    return rows, current


# batches >= 64 keys take the numpy path, smaller ones the per-key path
@pytest.mark.parametrize("batches", [[470], [1] * 470, [90, 1, 130, 249], [300, 170], [7, 463]])
def test_dynamic_rows_and_round_robin_follow_java(batches):
    keys = [f"key-{i:03d}" for i in range(sum(batches))]
    f = bloom.DynamicBloomFilter(num_entries=100, fpp=0.01, max_entries=250)
    pos = 0
    for n in batches:
        f.add_all(keys[pos: pos + n])
        pos += n
    rows, current = _java_model(keys, 100, 250, f.nb_hash, f.vector_size)
    assert [sorted(r) for r in rows] == [r.set_bits() for r in f.rows]
    assert f.current_nb_record == current == 270  # 3 rows of 100, then 170 more over all rows
    back = bloom.parse_bloom_filter(f.serialize(), "DYNAMIC_V0")
    assert back.serialize() == f.serialize()
    assert all(back.might_contain_all(keys))


def test_simple_filter_round_trip_and_pure_python_path(monkeypatch):
    keys = [f"uuid-{i}" for i in range(500)]
    f = bloom.create_bloom_filter("SIMPLE", num_entries=1000, fpp=1e-6)
    f.add_all(keys)
    text = f.serialize()
    back = bloom.parse_bloom_filter(text, "SIMPLE")
    assert back.serialize() == text and all(back.might_contain(k) for k in keys)
    assert bloom.parse_bloom_filter(text).type_code == "SIMPLE"  # no type code: legacy SIMPLE
    monkeypatch.setattr(bloom, "np", None)
    slow = bloom.create_bloom_filter("SIMPLE", num_entries=1000, fpp=1e-6)
    slow.add_all(keys)
    assert slow.serialize() == text
    dyn = bloom.DynamicBloomFilter(num_entries=10, fpp=0.01, max_entries=25)
    dyn.add_all(keys[:47])
    assert bloom.parse_bloom_filter(dyn.serialize(), "DYNAMIC_V0").might_contain_all(keys[:47]) == [True] * 47


def test_arrow_and_list_inputs_agree():
    keys = [f"k{i}" for i in range(1000)]
    a, b = bloom.create_bloom_filter(), bloom.create_bloom_filter()
    a.add_all(keys)
    b.add_all(pa.chunked_array([pa.array(keys[:300]), pa.array(keys[300:])]).slice(0, 1000))
    c = bloom.create_bloom_filter()
    c.add_all(pa.array(["x"] + keys, pa.large_string()).slice(1))
    assert c.serialize() == a.serialize()
    assert a.serialize() == b.serialize()
    assert sum(a.might_contain_all([f"absent-{i}" for i in range(2000)])) == 0


def test_bad_inputs():
    with pytest.raises(bloom.BloomFilterError, match="empty"):
        bloom.create_bloom_filter().add_all([""])
    with pytest.raises(bloom.BloomFilterError, match="null"):
        bloom.create_bloom_filter().add_all(pa.array(["a", None]))
    with pytest.raises(bloom.BloomFilterError, match="Base64"):
        bloom.parse_bloom_filter("not base64!!", "DYNAMIC_V0")
    with pytest.raises(bloom.BloomFilterError, match="truncated"):
        bloom.parse_bloom_filter(bloom.create_bloom_filter().serialize()[:200], "DYNAMIC_V0")
    with pytest.raises(bloom.BloomFilterError, match="valid: SIMPLE, DYNAMIC_V0"):
        bloom.create_bloom_filter("BLOCKED")
