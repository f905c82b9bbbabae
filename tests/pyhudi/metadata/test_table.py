"""The metadata-table writer (pyhudi.metadata.records, pyhudi.metadata.table).

Byte-level checks against the table-version-8 metadata table Hudi 1.0 wrote (the quickstart
fixture): every record re-encodes to the same bytes, and merging the file slices its compaction
read reproduces the compacted base HFiles exactly. Then metadata tables written here are read by
the independent Java reader of the connector (io.hudimeta.metadata) and by hudi-rs.

Small tables are written without Spark by `SyntheticTable` (pyhudi's own base/log file writers
and timeline), the way the write client does it: requested -> inflight -> files -> metadata-table
commit -> completed.
"""
from __future__ import annotations

import base64
import datetime as dt
import decimal
import io
import json
import posixpath
import shutil
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
import pytest

from pyhudi.avro import schema as avro_schema
from pyhudi.write import base_file
from pyhudi.table import file_names as filenames
from pyhudi import hfile
from pyhudi.table import properties
from pyhudi.table import instant_metadata as im
from pyhudi import log as lf
from pyhudi.metadata import records as mr
from pyhudi.metadata.table import (MetadataTableError, MetadataWriter, _MdtState, listing_from_storage,
                                   metadata_table_properties)
from pyhudi.storage import Storage
from pyhudi.table.timeline import Timeline

V8_MDT = "quickstart_trips_table_mor_avro__v8_trips_8i3u1d"

SCHEMA = pa.schema([("id", pa.string()), ("ts", pa.int64()), ("amount", pa.float64()), ("qty", pa.int32()),
                    ("day", pa.date32()), ("price", pa.decimal128(10, 2)), ("flag", pa.bool_()),
                    ("tags", pa.list_(pa.string())), ("city", pa.string())])
STAT_COLUMNS = ["id", "ts", "amount", "qty", "day", "price", "flag", "city"]


# ---------------------------------------------------------------- a small table without Spark


class SyntheticTable:
    """A table-version-8 table written with pyhudi's file writers and timeline."""

    def __init__(self, path, name="t", partitioned=True, table_type="COPY_ON_WRITE"):
        self.storage, self.base = Storage.for_uri(str(path))
        self.partitioned = partitioned
        self.table_type = table_type
        create = avro_schema.arrow_to_avro(SCHEMA, name, avro_schema.CREATE)
        self.create_json = avro_schema.to_json(create)
        self.writer_schema = avro_schema.to_json(avro_schema.with_meta_fields(avro_schema.to_writer_style(create)))
        self.props = properties.v8_defaults(name, table_type, ["id"], ["city"] if partitioned else [], "ts",
                                            self.create_json, "SIMPLE" if partitioned else "NON_PARTITION",
                                            True, False)
        self.storage.mkdirs(f"{self.base}/.hoodie/timeline/history")
        properties.save(self.storage, self.base, self.props)
        self.timeline = Timeline.for_table(self.storage, self.base, self.props)
        self.seq = 0

    def rows(self, ids, city, ts=1) -> pa.Table:
        return pa.table({
            "id": [f"k{i:04d}" for i in ids], "ts": [ts] * len(ids), "amount": [i * 1.5 for i in ids],
            "qty": pa.array([None if i % 5 == 0 else i for i in ids], pa.int32()),
            "day": [dt.date(2024, 1, 1) + dt.timedelta(days=i) for i in ids],
            "price": pa.array([decimal.Decimal(i) / 4 for i in ids], pa.decimal128(10, 2)),
            "flag": [i % 2 == 0 for i in ids], "tags": [[f"t{i}"] for i in ids],
            "city": [city] * len(ids)}, schema=SCHEMA)

    def partition_of(self, city):
        return f"city={city}" if self.partitioned else ""

    def _rel(self, partition, name):
        return posixpath.join(partition, name) if partition else name

    def _partition_metadata(self, partition, instant):
        path = posixpath.join(self.base, partition, filenames.PARTITION_METADATA) if partition else \
            posixpath.join(self.base, filenames.PARTITION_METADATA)
        if not self.storage.exists(path):
            text = filenames.partition_metadata_text(instant, filenames.partition_depth(partition))
            self.storage.write(path, text.encode())

    def write_base(self, instant, city, ids, file_id=None, ts=1) -> dict:
        partition = self.partition_of(city)
        file_id = file_id or filenames.new_file_id()
        name = str(filenames.BaseFileName(file_id, "0-1-0", instant))
        rows = self.rows(ids, city, ts)
        table = base_file.add_meta_columns(rows, commit_time=instant, partition_path=partition, file_name=name,
                                           record_keys=rows.column("id"), partition_id=0)
        st = base_file.write_base_file(posixpath.join(self.base, self._rel(partition, name)), table,
                                       self.writer_schema, filesystem=self.storage.fs)
        self._partition_metadata(partition, instant)
        return {"partition": partition, "file_id": file_id, "path": self._rel(partition, name),
                "file_size": st.file_size, "is_log": False, "num_writes": len(ids),
                "column_stats": mr.column_stats_json(table, st.parquet_metadata),
                "bloom": st.bloom_filter.serialize()}

    def write_log(self, instant, city, ids, file_id, ts=2) -> dict:
        partition = self.partition_of(city)
        name = str(filenames.LogFileName(file_id, instant, 1, "0-1-0"))
        rows = self.rows(ids, city, ts)
        table = base_file.add_meta_columns(rows, commit_time=instant, partition_path=partition, file_name=file_id,
                                           record_keys=rows.column("id"), partition_id=0)
        block = lf.avro_data_block(table, self.writer_schema, instant)
        data = lf.encode_blocks([block])
        self.storage.write(posixpath.join(self.base, self._rel(partition, name)), data)
        return {"partition": partition, "file_id": file_id, "path": self._rel(partition, name),
                "file_size": len(data), "is_log": True, "num_writes": len(ids),
                "column_stats": mr.column_stats_json(table), "bloom": None}

    def commit(self, write, mdt: MetadataWriter | None = None, action=None, replaced=None,
               operation="UPSERT") -> tuple[str, list[dict]]:
        """Runs the write protocol: `write(instant)` returns the write stats; the metadata table
        commits before the data instant completes."""
        action = action or ("commit" if self.table_type == "COPY_ON_WRITE" else "deltacommit")
        tl = self.timeline
        requested = tl.create_requested(action)
        inflight = tl.transition_to_inflight(requested, im.encode(im.COMMIT, im.commit_metadata({}, operation, None)))
        instant = requested.requested_time
        stats = write(instant)
        if mdt is not None:
            mdt.commit(instant, action, stats, replaced or {}, operation=operation)
        per_partition = {}
        for s in stats:
            stat = im.write_stat(fileId=s["file_id"], path=s["path"], prevCommit="null", numWrites=s["num_writes"],
                                 numDeletes=0, numUpdateWrites=0, numInserts=s["num_writes"],
                                 totalWriteBytes=s["file_size"], totalWriteErrors=0, partitionPath=s["partition"],
                                 fileSizeInBytes=s["file_size"])
            if s["is_log"]:
                stat.update(logVersion=1, logOffset=0, baseFile="", logFiles=[posixpath.basename(s["path"])])
            per_partition.setdefault(s["partition"], []).append(stat)
        schema = avro_schema.to_json(avro_schema.to_writer_style(self.create_json))
        if action == "replacecommit":
            meta = im.replace_commit_metadata(per_partition, operation, schema, replaced or {})
            tl.complete(inflight, im.encode(im.REPLACE_COMMIT, meta))
        else:
            tl.complete(inflight, im.encode(im.COMMIT, im.commit_metadata(per_partition, operation, schema)))
        return instant, stats

    def mdt(self, **kw) -> MetadataWriter:
        return MetadataWriter(self.storage, self.base, self.props, **kw)


def two_partition_table(path, **kw) -> tuple[SyntheticTable, dict[str, str]]:
    """Two commits: files in city=a and city=b, then a second file group in city=a."""
    t = SyntheticTable(path, **kw)
    fids = {}

    def first(instant):
        out = [t.write_base(instant, "a", range(0, 6)), t.write_base(instant, "b", range(10, 14))]
        fids["a"], fids["b"] = out[0]["file_id"], out[1]["file_id"]
        return out

    t.commit(first)
    t.commit(lambda instant: [t.write_base(instant, "a", range(20, 23))])
    return t, fids


def pyarrow_min_max(path: str, column: str):
    col = pq.ParquetFile(path).read(columns=[column]).column(column)
    mm = pc.min_max(col)
    return mm["min"].as_py(), mm["max"].as_py(), col.null_count, len(col)


# ---------------------------------------------------------------- hashing and keys


def test_xxhash64_reference_vectors():
    assert mr.xxhash64(b"", 0) == 0xEF46DB3751D8E999
    assert mr.xxhash64(b"a", 0) == 0xD24EC4F1A98C6E5B
    assert mr.xxhash64(b"abc", 0) == 0x44BC2CF5AD770999
    assert mr.xxhash64(b"Nobody inspects the spammish repetition", 0) == 0xFBCEA83C8A378BF1  # >= 32 bytes
    assert mr.HASH_SEED == 0xFFFFFFFFDABADABA


def test_hudi_hash_ids_and_record_keys():
    # FORMAT-NOTES §7.5 vectors, recomputed from real metadata-table keys
    assert [mr.hash_id64(s) for s in (".", "", "currency", "region=us")] == \
        ["FXThHwelITM=", "DW/eaNVbRdo=", "/m6lxu4Dh5w=", "431THTTwO5Q="]
    assert mr.partition_stats_key("currency", "region=us") == "/m6lxu4Dh5w=431THTTwO5Q="
    assert mr.column_stats_key(
        "driver", "city=sao_paulo", "8aa68f7e-afd6-4c94-b86c-8a886552e08d-0_2-1112-3192_20251220210129235.parquet") \
        == "AjpJ7N1gBZc=6Hj+sBy+gvM=0VV0SYFvRHPGdIGkp/dZ+A=="
    assert mr.column_stats_key("c", "", "f.parquet").startswith(mr.hash_id64("c") + "FXThHwelITM=")
    assert len(mr.bloom_filter_key("p", "f.parquet")) == 36
    assert mr.files_key("") == "." and mr.partition_path(".") == ""
    assert mr.java_string_hash("TXN-008") == -166313931
    assert mr.file_group_index("TXN-008", 10) == 1
    assert mr.java_string_hash("\U0001F600") == 0xD83D * 31 + 0xDE00  # UTF-16 code units
    assert [mr.file_group_id(p, i) for p, i in ((mr.FILES, 0), (mr.COLUMN_STATS, 1), (mr.BLOOM_FILTERS, 3),
                                                (mr.PARTITION_STATS, 0))] == \
        ["files-0000-0", "col-stats-0001-0", "bloom-filters-0003-0", "partition-stats-0000-0"]


def test_java_hashmap_order():
    parts = ["city=san_francisco", "city=sao_paulo", "city=chennai"]
    assert mr.java_hashmap_order(parts[::-1]) == parts  # as the fixture's __all_partitions__ holds them
    m = mr.JavaHashMap()
    m.put_all(["x"])  # putAll sizes an empty table for the incoming entries: 2 buckets here
    assert m.capacity == 2
    assert sorted(mr.java_hashmap_order(str(i) for i in range(100))) == sorted(str(i) for i in range(100))


# ---------------------------------------------------------------- byte-level checks on Hudi's files


def _mdt_cells(mdt_dir: Path):
    """(partition, file name, key, value, writer schema) of every HFile cell of a metadata table."""
    for part_dir in sorted(p for p in mdt_dir.iterdir() if p.is_dir() and p.name != ".hoodie"):
        for f in sorted(part_dir.iterdir()):
            if f.name.endswith(".hfile"):
                c = hfile.parse_hfile(f.read_bytes())
                for k, v in c.cells:
                    yield part_dir.name, f.name, k.decode(), v, c.file_info[b"schema"].decode()
            elif ".log." in f.name:
                for b in lf.read_blocks(f.read_bytes()):
                    if b.block_type == lf.BlockType.HFILE_DATA:
                        for k, v in hfile.read_hfile(b.content):
                            yield part_dir.name, f.name, k.decode(), v, b.schema


def test_hudi_written_records_reencode_byte_for_byte(fixture_tables):
    base = Path(fixture_tables[V8_MDT])
    mdt_dir = base / ".hoodie" / "metadata"
    partition_of = {f.name: str(f.parent.relative_to(base)) for f in base.rglob("*")
                    if f.is_file() and ".hoodie" not in f.relative_to(base).parts}
    n = 0
    for part, name, key, value, schema in _mdt_cells(mdt_dir):
        assert schema == mr.schema_text()  # the writer schema we store is Hudi's, byte for byte
        rec = mr.decode_record(key, value, schema)
        assert mr.encode_record(rec, name if name.endswith(".hfile") else None) == value, (part, name, key)
        if part in (mr.COLUMN_STATS, mr.RECORD_INDEX):  # keys are routed to file groups by String.hashCode
            count = mr.DEFAULT_FILE_GROUP_COUNT[part]
            assert mr.file_group_id(part, mr.file_group_index(key, count)) in name
        if part == mr.COLUMN_STATS:
            s = rec.stats
            assert key == mr.column_stats_key(s.column_name, partition_of[s.file_name], s.file_name)
        n += 1
    assert n > 300


def test_compaction_merge_reproduces_hudi_base_files(fixture_tables):
    """Merging the slices Hudi's MDT compaction read (base HFile + logs, Hudi's payload rules and
    map orders) gives exactly the base HFiles it wrote, for every partition kind."""
    storage, base = Storage.for_uri(fixture_tables[V8_MDT])
    writer = MetadataWriter(storage, base, properties.load(storage, base))
    state = _MdtState(writer)
    checked = 0
    for part in ("files", "column_stats", "partition_stats", "record_index", "secondary_index_rider_idx"):
        for fid, slices in state.slices(part).items():
            if len(slices) < 2 or not slices[-1].base:
                continue
            read = writer._read_slice(state, part, slices[-2], lambda k: True)
            written = [r for _, r in sorted(read.records.items(), key=lambda kv: kv[0].encode()) if not r.deleted]
            assert writer._base_hfile(written, slices[-1].base) == \
                storage.read(f"{writer.mdt_path}/{part}/{slices[-1].base}"), (part, fid)
            checked += 1
    assert checked == 17


def _block_cells(mdt_dir: Path, part: str, instant: str) -> dict[str, bytes]:
    out = {}
    for log in mdt_dir.joinpath(part).glob(f".*_{instant}.log.*"):
        for b in lf.read_blocks(log.read_bytes()):
            if b.block_type == lf.BlockType.HFILE_DATA:
                out.update((k.decode(), v) for k, v in hfile.read_hfile(b.content))
    return out


def test_commit_records_reproduce_hudi_log_blocks(fixture_tables):
    """The records `commit` derives from a data instant's write stats are the ones Hudi wrote for
    it: the `files` log block of every data commit of the fixture, byte for byte (HFile included),
    and the column and partition statistics of its first commit, from the Parquet footers."""
    base = Path(fixture_tables[V8_MDT])
    mdt_dir = base / ".hoodie" / "metadata"
    storage, b = Storage.for_uri(str(base))
    props = {**properties.load(storage, b), "hoodie.table.metadata.partitions": "column_stats,files"}
    writer = MetadataWriter(storage, b, props)
    state = _MdtState(writer)
    commits = [i for i in writer.data_timeline().completed() if i.action in ("commit", "deltacommit")]
    assert len(commits) == 7
    for inst in commits:
        meta = im.decode(writer.data_timeline().read(inst))
        stats = []
        for p, s in im.write_stats(meta):
            entry = {"partition": p, "file_id": s["fileId"], "path": s["path"], "file_size": s["fileSizeInBytes"],
                     "is_log": bool(s.get("logFiles")), "num_writes": s["numWrites"], "bloom": None}
            if inst.requested_time == commits[0].requested_time:  # base files only: stats from their footers
                md = pq.ParquetFile(base / s["path"]).metadata
                entry["column_stats"] = mr.column_stats_json(md.schema.to_arrow_schema(), md)
            stats.append(entry)
        records, deletes = writer._commit_records(state, inst.requested_time, inst.action, stats, {}, None, (),
                                                  None, im.schema_of(meta))
        assert deletes == {"files": [], "column_stats": []}
        files = sorted(records["files"], key=lambda r: r.key.encode())
        cells = [(r.key.encode(), mr.encode_record(r)) for r in files]
        [log] = mdt_dir.joinpath("files").glob(f".files-0000-0_{inst.requested_time}.log.*")
        [block] = lf.read_blocks(log.read_bytes())
        assert hfile.write_hfile(cells, file_info={"schema": mr.schema_text()}) == block.content, inst
        if inst.requested_time == commits[0].requested_time:
            mine = {r.key: mr.encode_record(r) for r in records["column_stats"]}
            assert mine == _block_cells(mdt_dir, "column_stats", inst.requested_time)
            cols = mr.columns_to_index(im.schema_of(meta))
            per_partition = {}
            for r in records["column_stats"]:
                by_file = per_partition.setdefault(r.key[12:24], {})  # the partition's hash id
                by_file.setdefault(r.stats.file_name, {})[r.stats.column_name] = r.stats
            partitions = {mr.hash_id64(p): p for p in ("city=chennai", "city=san_francisco", "city=sao_paulo")}
            pstats = [r for h, per_file in per_partition.items()
                      for r in MetadataWriter._partition_stats(partitions[h], cols, per_file)]
            assert {r.key: mr.encode_record(r) for r in pstats} == \
                _block_cells(mdt_dir, "partition_stats", inst.requested_time)


def test_metadata_properties_and_schema_match_hudi(fixture_tables):
    base = Path(fixture_tables[V8_MDT])
    data_props = properties.parse((base / ".hoodie" / "hoodie.properties").read_text("latin-1"))
    mdt_props = properties.parse((base / ".hoodie" / "metadata" / ".hoodie" / "hoodie.properties").read_text("latin-1"))
    assert metadata_table_properties(data_props) == mdt_props
    commit = next((base / ".hoodie" / "metadata" / ".hoodie" / "timeline").glob("*.commit"))
    assert im.schema_of(im.decode(commit.read_bytes())) == mr.schema_text_without_meta_fields()


# ---------------------------------------------------------------- records, values, merging


def test_wrappers_and_value_encoding():
    assert mr.wrapper_names()[:8] == ("BooleanWrapper", "IntWrapper", "LongWrapper", "FloatWrapper",
                                      "DoubleWrapper", "BytesWrapper", "StringWrapper", "DateWrapper")
    cases = {"string": mr.STRING, "large_string": mr.STRING, "int32": mr.INT, "int16": mr.INT,
             "int64": mr.LONG, "timestamp[us, tz=UTC]": mr.LONG, "float": mr.FLOAT, "double": mr.DOUBLE,
             "bool": mr.BOOLEAN, "binary": mr.BYTES, "decimal128(10, 2)": mr.DECIMAL, "date32[day]": mr.DATE,
             "list<item: string>": None, "struct<a: int32>": None}
    assert {t: mr.wrapper_for_type(t) for t in cases} == cases
    stats = mr.ColumnStats("f.parquet", "price", mr.wrap("-2.25", mr.DECIMAL), mr.wrap("1.5", mr.DECIMAL), 3, 1, 10, 20)
    rec = mr.column_stats_record("p", stats)
    back = mr.decode_record(rec.key, mr.encode_record(rec))
    assert back.stats == stats
    # DecimalWrapper holds the unscaled value at scale 15 as minimal two's complement bytes
    raw = mr.encode_record(rec)
    assert (-225 * 10**13).to_bytes(7, "big", signed=True) in raw
    for w, v in ((mr.DATE, 19000), (mr.LONG, -5), (mr.FLOAT, 1.5), (mr.BOOLEAN, True), (mr.BYTES, b"\x00\xff"),
                 (mr.STRING, "é")):
        r = mr.column_stats_record("", mr.ColumnStats("f", "c", mr.wrap(v, w), mr.wrap(v, w)))
        assert mr.decode_record(r.key, mr.encode_record(r)).stats.min_value == mr.Wrapped(w, v)


def test_merge_rules():
    older = mr.partition_files_record("p", {"a": 10, "b": 20})
    newer = mr.partition_files_record("p", {"c": 5, "a": 12}, deleted=["b", "gone"])
    merged = mr.combine(older, newer)
    assert dict(sorted(merged.files.items())) == {"a": (12, False), "c": (5, False), "gone": (0, True)}
    assert merged.live_files() == {"a": 12, "c": 5}
    assert mr.combine(merged, mr.deletion("p")).deleted
    assert mr.combine(mr.deletion("p"), older).files == older.files
    a = mr.ColumnStats("f", "c", mr.wrap(5, mr.LONG), mr.wrap(9, mr.LONG), 4, 1, 10, 20)
    b = mr.ColumnStats("f", "c", mr.wrap(1, mr.LONG), mr.wrap(7, mr.LONG), 2, 0, 5, 6)
    m = mr.merge_stats(a, b)
    assert (m.min_value.value, m.max_value.value, m.value_count, m.null_count, m.total_size) == (1, 9, 6, 1, 15)
    tight = mr.ColumnStats("f", "c", mr.wrap(3, mr.LONG), mr.wrap(4, mr.LONG), 1, 0, 1, 1, is_tight_bound=True)
    assert mr.merge_stats(a, tight) is tight
    tomb = mr.ColumnStats("f", "c", is_deleted=True)
    assert mr.merge_stats(a, tomb) is tomb and mr.merge_stats(tomb, b) is b
    # Java String.compareTo order for strings (UTF-16 units), signed bytes for ByteBuffer
    assert mr.compare(mr.wrap("\uffff", mr.STRING), mr.wrap("\U0001F600", mr.STRING)) == 1
    assert mr.compare(mr.wrap(b"\x80", mr.BYTES), mr.wrap(b"\x01", mr.BYTES)) == -1


def test_columns_to_index():
    schema = {"type": "record", "name": "r", "fields": [
        {"name": "id", "type": ["null", "string"]},
        {"name": "tags", "type": ["null", {"type": "array", "items": "string"}]},
        {"name": "big", "type": ["null", {"type": "fixed", "name": "f", "size": 16, "logicalType": "decimal",
                                          "precision": 38, "scale": 10}]},
        {"name": "ok", "type": ["null", {"type": "fixed", "name": "g", "size": 5, "logicalType": "decimal",
                                         "precision": 10, "scale": 2}]},
        {"name": "_hoodie_commit_time", "type": ["null", "string"]}]}
    assert mr.columns_to_index(schema) == ["_hoodie_commit_time", "_hoodie_partition_path", "_hoodie_record_key",
                                           "id", "ok"]
    assert mr.columns_to_index(schema, populate_meta_fields=False) == ["id", "ok"]
    many = {"type": "record", "name": "r", "fields": [{"name": f"c{i}", "type": "int"} for i in range(40)]}
    assert len(mr.columns_to_index(many)) == 3 + 32


def test_column_stats_json_footer_and_arrow_agree():
    t = SyntheticTable.__new__(SyntheticTable)  # only for rows()
    rows = SyntheticTable.rows(t, list(range(0, 12)), "x")
    buf = io.BytesIO()
    pq.write_table(rows, buf, row_group_size=5)  # several row groups: combined like Hudi does
    md = pq.ParquetFile(io.BytesIO(buf.getvalue())).metadata
    footer = json.loads(mr.column_stats_json(rows, md))
    arrow = json.loads(mr.column_stats_json(rows))
    assert "tags" not in footer and "tags" not in arrow
    for col in STAT_COLUMNS:
        f, a = footer[col], arrow[col]
        assert (f["min"], f["max"], f["null_count"], f["value_count"], f["type"]) == \
            (a["min"], a["max"], a["null_count"], a["value_count"], a["type"]), col
        assert f["total_size"] > 0 and a["total_size"] == 0
    assert footer["qty"]["null_count"] == 3 and footer["qty"]["value_count"] == 12
    assert footer["day"]["min"] == (dt.date(2024, 1, 1) - dt.date(1970, 1, 1)).days
    assert footer["price"]["max"] == "2.75" and footer["flag"]["min"] is False
    assert mr.parse_column_stats("f", footer, ["price"])[0].max_value == mr.Wrapped(mr.DECIMAL, decimal.Decimal("2.75"))


# ---------------------------------------------------------------- writing metadata tables (no Spark)


def test_initialize_layout(tmp_path):
    t, fids = two_partition_table(tmp_path / "t")
    mdt = t.mdt()
    assert mdt.initialize() == ["00000000000000000", "00000000000000001", "00000000000000002",
                                "00000000000000003"]
    root = Path(mdt.mdt_path)
    props = properties.load(t.storage, t.base)
    assert props["hoodie.table.metadata.partitions"] == "bloom_filters,column_stats,files,partition_stats"
    assert props["hoodie.table.metadata.partitions.inflight"] == ""
    mdt_props = properties.load(t.storage, mdt.mdt_path)
    assert mdt_props == metadata_table_properties(t.props)
    timeline = sorted(p.name for p in (root / ".hoodie" / "timeline").iterdir() if p.is_file())
    assert [n for n in timeline if n.endswith(".deltacommit")] == sorted(
        n for n in timeline if n.endswith(".deltacommit"))
    assert (root / ".hoodie" / "timeline" / "00000000000000001.deltacommit.inflight").read_bytes() == b""
    expected_groups = {"files": 1, "column_stats": 2, "bloom_filters": 4, "partition_stats": 1}
    for offset, (part, count) in enumerate(expected_groups.items()):
        instant = f"0000000000000000{offset}"
        names = sorted(p.name for p in (root / part).iterdir())
        assert (root / part / ".hoodie_partition_metadata").read_text().endswith(
            f"commitTime={instant}\npartitionDepth=1\n")
        for i in range(count):
            fid = mr.file_group_id(part, i)
            boot = root / part / f".{fid}_{instant}.log.1_0-0-0"
            blocks = lf.read_blocks(boot.read_bytes())
            assert len(blocks) == 1 and blocks[0].header == {0: instant}
            assert blocks[0].content == bytes.fromhex("00000003 00000001 00")
        assert any(n.endswith(f"_{instant}.hfile") for n in names)
        done = next((root / ".hoodie" / "timeline").glob(f"{instant}_*.deltacommit"))
        meta = im.decode(done.read_bytes())
        assert meta["operationType"] == "BULK_INSERT"
        assert im.schema_of(meta) == mr.schema_text_without_meta_fields()
        for s in meta["partitionToWriteStats"][part]:
            assert s["path"].endswith(f"_{instant}.hfile") and s["numWrites"] == s["numInserts"] > 0
    base_hfile = next((root / "files").glob("*.hfile"))
    c = hfile.parse_hfile(base_hfile.read_bytes())
    assert [k for k, _ in c.cells] == [b"__all_partitions__", b"city=a", b"city=b"]
    assert c.file_info[b"minRecordKey"] == b"__all_partitions__" and c.file_info[b"maxRecordKey"] == b"city=b"
    assert c.file_info[b"schema"].decode() == mr.schema_text() and b"bloomFilter" in c.meta_blocks
    assert mdt.validate() == {}
    with pytest.raises(MetadataTableError, match="already exists"):
        mdt.initialize()


def test_commit_compact_clean_validate(tmp_path):
    t, fids = two_partition_table(tmp_path / "t")
    mdt = t.mdt()
    mdt.initialize()
    listing_before = mdt.files_listing()
    instant, stats = t.commit(lambda i: [t.write_base(i, "b", range(30, 33)), t.write_base(i, "c", range(40, 41))],
                              mdt=mdt)
    assert mdt.validate() == {}
    listing = mdt.files_listing()
    assert set(listing) == {"city=a", "city=b", "city=c"} and set(listing_before) == {"city=a", "city=b"}
    assert {posixpath.basename(s["path"]): s["file_size"] for s in stats} == {
        n: s for p in ("city=b", "city=c") for n, s in listing[p].items() if instant in n}
    # the MDT deltacommit: one log file per touched file group, HFile data blocks at the data instant
    state = _MdtState(mdt)
    assert state.completed[instant].action == "deltacommit"
    logs = [n for n, _ in state.listing("files") if f"_{instant}.log." in n]
    assert len(logs) == 1
    [block] = lf.read_blocks(t.storage.read(f"{mdt.mdt_path}/files/{logs[0]}"))
    assert block.block_type == lf.BlockType.HFILE_DATA and block.instant_time == instant
    keys = [k.decode() for k, _ in hfile.read_hfile(block.content)]
    assert keys == ["__all_partitions__", "city=b", "city=c"]
    inflight_meta = im.decode(t.storage.read(f"{state.timeline.dir}/{instant}.deltacommit.inflight"))
    assert inflight_meta["operationType"] == "UPSERT_PREPPED" and inflight_meta["extraMetadata"] == {}
    assert [s["fileId"] for s in inflight_meta["partitionToWriteStats"]["files"]] == ["", "files-0000-0"]
    assert inflight_meta["partitionToWriteStats"]["files"][1]["prevCommit"] == "00000000000000000"
    done = im.decode(t.storage.read(f"{state.timeline.dir}/{state.completed[instant].file_name()}"))
    assert im.schema_of(done) == mr.schema_text_without_meta_fields()
    [fs] = done["partitionToWriteStats"]["files"]
    assert (fs["path"], fs["logFiles"], fs["numWrites"], fs["prevCommit"]) == (f"files/{logs[0]}", logs, 3, instant)
    # column stats of the new files, partition stats recomputed over the latest slices
    new_name = posixpath.basename(stats[0]["path"])
    rec = mdt.read_partition(mr.COLUMN_STATS, keys=[mr.column_stats_key("ts", "city=b", new_name)])
    assert list(rec.values())[0].stats.value_count == 3
    ps = mdt.read_partition(mr.PARTITION_STATS, keys=[mr.partition_stats_key("id", "city=b")])
    ps = list(ps.values())[0].stats
    assert ps.is_tight_bound and ps.value_count == 7 and ps.min_value.value == "k0010" and ps.max_value.value == "k0032"
    blooms = mdt.read_partition(mr.BLOOM_FILTERS)
    assert len(blooms) == 5  # one per base file
    key = mr.bloom_filter_key("city=b", new_name)
    assert blooms[key].bloom.bloom_filter.decode() == stats[0]["bloom"] and blooms[key].bloom.timestamp == instant

    # compaction: every file group's latest slice becomes a base HFile at a new instant
    assert mdt.compact_if_needed(max_deltacommits=6) is None  # 5 deltacommits so far
    t.commit(lambda i: [t.write_base(i, "a", range(50, 52))], mdt=mdt)
    c = mdt.compact_if_needed(max_deltacommits=6)
    assert c is not None and c > instant
    state = _MdtState(mdt)
    assert state.completed[c].action == "commit"
    plan = im.decode(t.storage.read(f"{state.timeline.dir}/{c}.compaction.requested"), im.COMPACTION_PLAN)
    assert {op["fileId"] for op in plan["operations"]} >= {"files-0000-0", "col-stats-0000-0", "col-stats-0001-0"}
    meta = im.decode(t.storage.read(f"{state.timeline.dir}/{state.completed[c].file_name()}"))
    assert meta["compacted"] and meta["operationType"] == "COMPACT"
    for part in mdt.partitions():
        for fid, sl in state.latest(part).items():
            if sl.base is None:  # a file group that never got a record keeps its bootstrap log only (as in Hudi)
                assert [n.split("_")[1][:17] for n in sl.logs] == [sl.base_instant], (part, fid)
                assert sl.base_instant.startswith("00000000000000")
            else:
                assert sl.base.endswith(f"_{c}.hfile") and not sl.logs, (part, fid)
    assert mdt.validate() == {}
    before_clean = mdt.files_listing()
    stats_before = mdt.read_partition(mr.COLUMN_STATS)

    # a later commit lands after the compacted base; clean keeps the latest slice only
    t.commit(lambda i: [t.write_base(i, "c", range(60, 62))], mdt=mdt)
    cleaned = mdt.clean(retain=1)
    assert cleaned is not None
    state = _MdtState(mdt)
    assert state.completed[cleaned].action == "clean"
    for part in mdt.partitions():
        for fid, slices in state.slices(part).items():
            assert len(slices) == 1
    assert mdt.validate() == {}
    after = mdt.files_listing()
    assert {p: f for p, f in after.items() if p != "city=c"} == {p: f for p, f in before_clean.items() if p != "city=c"}
    assert set(stats_before) <= set(mdt.read_partition(mr.COLUMN_STATS))

    # a data file that vanishes from storage shows up as a difference
    victim = next(iter(after["city=a"]))
    t.storage.delete(f"{t.base}/city=a/{victim}")
    assert mdt.validate() == {"extra_files": {"city=a": [victim]}}


def test_clean_deletes_and_dropped_partitions(tmp_path):
    t, fids = two_partition_table(tmp_path / "t")
    mdt = t.mdt()
    mdt.initialize()
    a_files = mdt.files_listing()["city=a"]
    old = sorted(a_files)[0]
    t.storage.delete(f"{t.base}/city=a/{old}")
    for n in mdt.files_listing()["city=b"]:
        t.storage.delete(f"{t.base}/city=b/{n}")
    t.storage.delete(f"{t.base}/city=b")

    tl = t.timeline
    req = tl.create_requested("clean")
    inflight = tl.transition_to_inflight(req, b"")
    mdt.commit(req.requested_time, "clean", [], deleted_files={"city=a": [old]}, deleted_partitions=["city=b"])
    tl.complete(inflight, b"")
    assert mdt.validate() == {}
    listing = mdt.files_listing()
    assert set(listing) == {"city=a"} and old not in listing["city=a"]
    cs = mdt.read_partition(mr.COLUMN_STATS, prefixes=[mr.column_stats_prefix("ts", "city=a")])
    assert old not in {r.stats.file_name for r in cs.values()}
    assert not mdt.read_partition(mr.PARTITION_STATS, keys=[mr.partition_stats_key("ts", "city=b")])
    assert not any(k.startswith(mr.hash_id64("city=b")) for k in mdt.read_partition(mr.BLOOM_FILTERS))
    # the dropped partition's files record went to a delete block
    files_log = [n for n, _ in _MdtState(mdt).listing("files") if f"_{req.requested_time}.log." in n]
    blocks = lf.read_blocks(t.storage.read(f"{mdt.mdt_path}/files/{files_log[0]}"))
    assert [b.block_type for b in blocks] == [lf.BlockType.HFILE_DATA, lf.BlockType.DELETE]
    assert [(d.record_key, d.partition_path) for d in blocks[1].deletes()] == [("city=b", "files")]


def test_retry_rollback_and_invisible_commits(tmp_path):
    t, _ = two_partition_table(tmp_path / "t")
    mdt = t.mdt()
    mdt.initialize()
    tl = t.timeline
    req = tl.create_requested("commit")
    inflight = tl.transition_to_inflight(req, b"")
    i = req.requested_time
    stats = [t.write_base(i, "a", range(70, 72))]
    mdt.commit(i, "commit", stats, {})
    # not completed on the data table yet: readers (and validate) do not see it
    assert mdt.files_listing() == _without(mdt.files_listing(), i)
    mdt.commit(i, "commit", stats, {})  # a retry replaces the first attempt
    assert len([n for n, _ in _MdtState(mdt).listing("files") if f"_{i}.log." in n]) == 1
    tl.complete(inflight, im.encode(im.COMMIT, im.commit_metadata({}, "UPSERT", None)))
    assert posixpath.basename(stats[0]["path"]) in mdt.files_listing()["city=a"]
    with pytest.raises(MetadataTableError, match="completed"):
        mdt.rollback(i)
    # an MDT deltacommit whose data instant died is rolled back by the next commit
    req2 = tl.create_requested("commit")
    tl.transition_to_inflight(req2, b"")
    mdt.commit(req2.requested_time, "commit", [t.write_base(req2.requested_time, "a", range(80, 81))], {})
    tl.delete_pending(tl.instants()[-1])  # the data write is rolled back
    assert mdt.rollback(req2.requested_time) is True
    assert not [n for n, _ in _MdtState(mdt).listing("files") if f"_{req2.requested_time}." in n]
    assert mdt.validate() == {}


def test_compaction_around_a_write_in_flight(tmp_path):
    """Hudi compacts the MDT inside a write, before that write's MDT deltacommit: the deltacommit
    (requested before the compaction) completes after it and belongs to the compacted slice. Once
    a deltacommit exists whose data instant is still pending, compaction waits."""
    t, _ = two_partition_table(tmp_path / "t")
    mdt = t.mdt()
    mdt.initialize()
    tl = t.timeline
    req = tl.create_requested("commit")
    inflight = tl.transition_to_inflight(req, b"")
    i = req.requested_time
    stats = [t.write_base(i, "a", range(100, 103))]
    c = mdt.compact()
    assert c is not None and c > i
    mdt.commit(i, "commit", stats, {})
    assert mdt.compact() is None  # i is pending on the data table and has an MDT deltacommit
    tl.complete(inflight, im.encode(im.COMMIT, im.commit_metadata({}, "UPSERT", None)))
    state = _MdtState(mdt)
    [files_slice] = state.latest("files").values()
    assert files_slice.base_instant == c and [n.split("_")[1][:17] for n in files_slice.logs] == [i]
    assert posixpath.basename(stats[0]["path"]) in mdt.files_listing()["city=a"]
    assert mdt.validate() == {}
    assert mdt.compact() is not None


def _without(listing, instant):
    return {p: {n: s for n, s in f.items() if instant not in n} for p, f in listing.items()}


def test_non_partitioned_mor_table(tmp_path):
    t = SyntheticTable(tmp_path / "np", partitioned=False, table_type="MERGE_ON_READ")
    fid = {}

    def first(instant):
        s = t.write_base(instant, "x", range(0, 5))
        fid["x"] = s["file_id"]
        return [s]

    t.commit(first)
    mdt = t.mdt()
    assert mdt.initialize() == ["00000000000000000", "00000000000000001", "00000000000000002"]
    assert properties.load(t.storage, t.base)["hoodie.table.metadata.partitions"] == "bloom_filters,column_stats,files"
    instant, stats = t.commit(lambda i: [t.write_log(i, "x", [1, 2], fid["x"])], mdt=mdt)
    assert mdt.validate() == {}
    files = mdt.read_partition(mr.FILES)
    assert set(files) == {"__all_partitions__", "."} and files["__all_partitions__"].live_files() == {".": 0}
    log_name = posixpath.basename(stats[0]["path"])
    cs = mdt.read_partition(mr.COLUMN_STATS, keys=[mr.column_stats_key("amount", "", log_name)])
    s = list(cs.values())[0].stats
    assert (s.min_value.value, s.max_value.value, s.value_count, s.total_size) == (1.5, 3.0, 2, 0)
    assert not mdt.read_partition(mr.BLOOM_FILTERS, prefixes=[mr.hash_id64(".")]).keys() - {
        mr.bloom_filter_key("", n) for n in mdt.files_listing()[""] if filenames.is_base(n)}


def test_hudi_rs_lists_files_through_the_metadata_table(tmp_path):
    """hudi-rs plans from the `files` partition when the table lists it: a file the metadata
    table says is gone is not read, though it is still on storage."""
    from hudi import HudiTableBuilder

    t, _ = two_partition_table(tmp_path / "t")

    def rows():
        table = HudiTableBuilder.from_base_uri(t.base).build()
        batches = table.read_snapshot() if hasattr(table, "read_snapshot") else table.read()
        return pa.Table.from_batches(batches).num_rows

    assert rows() == 13
    mdt = t.mdt()
    mdt.initialize()
    assert rows() == 13
    t.commit(lambda i: [t.write_base(i, "c", range(90, 95))], mdt=mdt)
    mdt.compact()
    assert rows() == 18
    hidden = sorted(mdt.files_listing()["city=a"])[0]
    tl = t.timeline
    req = tl.create_requested("clean")
    inflight = tl.transition_to_inflight(req, b"")
    mdt.commit(req.requested_time, "clean", [], deleted_files={"city=a": [hidden]})
    tl.complete(inflight, b"")
    assert rows() == 18 - len(pq.ParquetFile(f"{t.base}/city=a/{hidden}").read(columns=["id"]))
    assert mdt.validate() == {"missing_files": {"city=a": [hidden]}}


def test_delete_drops_table_and_property(tmp_path):
    t, _ = two_partition_table(tmp_path / "t")
    mdt = t.mdt()
    mdt.initialize()
    mdt.delete()
    assert not t.storage.exists(mdt.mdt_path)
    assert "hoodie.table.metadata.partitions" not in properties.load(t.storage, t.base)
    assert mdt.initialize()  # and it can be built again


# ---------------------------------------------------------------- the Java reader and hudi-rs


@pytest.fixture(scope="module")
def inspect(spark):
    return spark._jvm.io.hudimeta.metadata.MetadataInspect


def _java_listing(spark, inspect, base):
    return json.loads(inspect.listingJson(str(base), spark._jsc.hadoopConfiguration()))


def _java_stats(spark, inspect, base, partition, columns):
    return json.loads(inspect.columnStatsJson(str(base), spark._jsc.hadoopConfiguration(), partition,
                                              json.dumps(columns)))


def _java_value(v):
    """A Java reader [kind, value] pair as a pyarrow value."""
    if v is None:
        return None
    kind, value = v
    if kind == "decimal":
        return decimal.Decimal(value)
    if kind == "date":
        return dt.date.fromisoformat(value)
    return value


def _assert_java_agrees(spark, inspect, base, mdt: MetadataWriter):
    r = _java_listing(spark, inspect, base)
    assert r["mdt"] and r["inSync"], r
    assert r["metadata"]["partitions"] == r["storage"]["partitions"]
    assert r["metadata"]["files"] == r["storage"]["files"]
    assert r["metadata"]["slices"] == r["storage"]["slices"]
    mine = mdt.files_listing()
    assert {p: sorted([n, s] for n, s in f.items()) for p, f in mine.items()} == r["metadata"]["files"]
    return r


def test_java_reader_and_hudi_rs_read_the_metadata_table(spark, inspect, tmp_path):
    from hudi import HudiTableBuilder

    from pyhudi.write.hudi_table import HudiTable

    path = str(tmp_path / "trips")
    rows = [(f"id-{i:03d}", i * 10, ["sf", "nyc", "la"][i % 3], i * 1.25, i if i % 4 else None) for i in range(30)]
    df = spark.createDataFrame(rows, "id string, ts long, city string, fare double, n int")
    HudiTable(spark, path, {"hoodie.table.name": "trips", "hoodie.datasource.write.recordkey.field": "id",
                            "hoodie.datasource.write.precombine.field": "ts",
                            "hoodie.datasource.write.partitionpath.field": "city",
                            "hoodie.datasource.write.hive_style_partitioning": "true",
                            "hoodie.datasource.write.table.type": "COPY_ON_WRITE",
                            # written without a metadata table: this test builds one by hand
                            "hoodie.metadata.enable": "false"}).insert(df)
    storage, base = Storage.for_uri(path)
    props = properties.load(storage, base)
    mdt = MetadataWriter(storage, base, props)
    assert _java_listing(spark, inspect, base)["mdt"] is False
    mdt.initialize(listing=listing_from_storage(storage, base))
    r = _assert_java_agrees(spark, inspect, base, mdt)
    assert r["metadata"]["partitions"] == ["city=la", "city=nyc", "city=sf"]

    def check_stats():
        for partition, files in _java_listing(spark, inspect, base)["metadata"]["files"].items():
            got = _java_stats(spark, inspect, base, partition, ["ts", "fare", "n", "id", "_hoodie_record_key"])
            for name, _ in files:
                for col in ("ts", "fare", "n", "id"):
                    lo, hi, nulls, count = pyarrow_min_max(f"{base}/{partition}/{name}", col)
                    s = got[name][col]
                    assert (_java_value(s["min"]), _java_value(s["max"]), s["nullCount"], s["valueCount"]) == \
                        (lo, hi, nulls, count), (name, col)
                    assert s["isTightBound"] is False
            pstats = json.loads(inspect.partitionStatsJson(str(base), spark._jsc.hadoopConfiguration(),
                                                           json.dumps([partition]), json.dumps(["ts"])))
            tsv = pa.chunked_array([pq.ParquetFile(f"{base}/{partition}/{n}").read(columns=["ts"]).column("ts")
                                    .combine_chunks() for n, _ in files])
            p = pstats[partition]["ts"]
            assert (p["min"][1], p["max"][1], p["valueCount"], p["isTightBound"]) == \
                (pc.min(tsv).as_py(), pc.max(tsv).as_py(), len(tsv), True)

    check_stats()

    def hudi_rs_ids():
        table = HudiTableBuilder.from_base_uri(path).build()
        batches = table.read_snapshot() if hasattr(table, "read_snapshot") else table.read()
        return sorted(pa.Table.from_batches(batches).column("id").to_pylist())

    assert hudi_rs_ids() == [r[0] for r in rows]

    # a second write by the protocol, the MDT committed before the data instant
    synth = SyntheticTable.__new__(SyntheticTable)
    synth.storage, synth.base, synth.props = storage, base, props
    synth.partitioned, synth.table_type = True, "COPY_ON_WRITE"
    synth.timeline = Timeline.for_table(storage, base, props)
    synth.create_json = props["hoodie.table.create.schema"]
    synth.writer_schema = avro_schema.to_json(
        avro_schema.with_meta_fields(avro_schema.to_writer_style(synth.create_json)))

    def second(instant):
        partition = "city=sf"
        name = str(filenames.BaseFileName(filenames.new_file_id(), "0-1-0", instant))
        arrow = pa.table({"id": ["id-900", "id-901"], "ts": [900, 901], "city": ["sf", "sf"], "fare": [0.5, 99.0],
                          "n": pa.array([None, 7], pa.int32())})
        table = base_file.add_meta_columns(arrow, commit_time=instant, partition_path=partition, file_name=name,
                                           record_keys=arrow.column("id"), partition_id=0)
        st = base_file.write_base_file(f"{base}/{partition}/{name}", table, synth.writer_schema,
                                       filesystem=storage.fs)
        return [{"partition": partition, "file_id": name.split("_")[0], "path": f"{partition}/{name}",
                 "file_size": st.file_size, "is_log": False, "num_writes": 2,
                 "column_stats": mr.column_stats_json(table, st.parquet_metadata),
                 "bloom": st.bloom_filter.serialize()}]

    synth.commit(second, mdt=mdt)
    _assert_java_agrees(spark, inspect, base, mdt)
    check_stats()
    assert hudi_rs_ids() == sorted([r[0] for r in rows] + ["id-900", "id-901"])
    assert sorted(spark.read.format("hudi-meta").load(path).select("id").toPandas()["id"]) == hudi_rs_ids()

    # compaction: the Java reader reads the new base HFiles to the same listing
    c = mdt.compact()
    slices = json.loads(inspect.slicesJson(str(base), spark._jsc.hadoopConfiguration(), "files"))
    assert slices == [{"fileId": "files-0000-0", "base": slices[0]["base"], "logs": []}]
    assert slices[0]["base"].endswith(f"_{c}.hfile")
    _assert_java_agrees(spark, inspect, base, mdt)
    check_stats()
    assert mdt.clean(retain=1)
    _assert_java_agrees(spark, inspect, base, mdt)
    assert hudi_rs_ids() == sorted([r[0] for r in rows] + ["id-900", "id-901"])
    assert mdt.validate() == {}

    mdt.delete()
    assert _java_listing(spark, inspect, base)["mdt"] is False


V8_WITHOUT_MDT = ["sample_table_cow__v8_complexkeygen_hivestyle", "sample_table_cow__v8_nonpartitioned",
                  "sample_table_cow__v8_simplekeygen_hivestyle_no_metafields",
                  "sample_table_cow__v8_simplekeygen_nonhivestyle", "sample_table_cow__v8_empty"]
TYPED_COLUMNS = ["id", "name", "isActive", "intField", "longField", "floatField", "doubleField", "decimalField",
                 "dateField", "timestampField", "binaryField"]


def _as_java(value, typ: pa.DataType):
    """A pyarrow min/max as the Java reader reports the v8 wrapper value."""
    import struct

    if value is None:
        return None
    if pa.types.is_timestamp(typ):  # LongWrapper of the stored epoch value
        return pa.scalar(value, typ).cast(pa.int64()).as_py()
    if pa.types.is_binary(typ):
        return base64.b64encode(value).decode()
    if pa.types.is_float32(typ):
        return struct.unpack("<f", struct.pack("<f", value))[0]
    return value


@pytest.mark.parametrize("name", V8_WITHOUT_MDT)
def test_metadata_table_for_hudi_written_v8_tables(spark, inspect, fixture_tables, tmp_path, name):
    """Real Hudi 1.0 tables without a metadata table get one; the Java reader lists them through it
    and its column statistics are the Parquet files' own (every column type of the fixtures)."""
    from hudi import HudiTableBuilder

    base = tmp_path / name
    shutil.copytree(fixture_tables[name], base)
    storage, b = Storage.for_uri(str(base))

    def hudi_rs_rows():
        return sum(x.num_rows for x in HudiTableBuilder.from_base_uri(b).build().read())

    before = hudi_rs_rows()
    mdt = MetadataWriter(storage, b, properties.load(storage, b))
    mdt.initialize()
    assert mdt.validate() == {}
    r = _assert_java_agrees(spark, inspect, b, mdt)
    assert hudi_rs_rows() == before
    meta_fields = properties.load(storage, b).get("hoodie.populate.meta.fields") != "false"
    for partition, files in r["metadata"]["files"].items():
        got = _java_stats(spark, inspect, b, partition, TYPED_COLUMNS + ["_hoodie_record_key", "_hoodie_file_name"])
        for fname, _ in files:
            path = f"{b}/{partition}/{fname}" if partition else f"{b}/{fname}"
            table = pq.ParquetFile(path).read()
            assert ("_hoodie_record_key" in got[fname]) == meta_fields and "_hoodie_file_name" not in got[fname]
            for col in TYPED_COLUMNS:
                s, c = got[fname][col], table.column(col)
                mm = pc.min_max(c)
                assert (_java_value(s["min"]), _java_value(s["max"])) == \
                    (_as_java(mm["min"].as_py(), c.type), _as_java(mm["max"].as_py(), c.type)), (fname, col)
                assert (s["nullCount"], s["valueCount"]) == (c.null_count, len(c))


def test_java_reader_on_mor_logs_and_non_partitioned(spark, inspect, tmp_path):
    t = SyntheticTable(tmp_path / "np", partitioned=False, table_type="MERGE_ON_READ")
    fid = {}

    def first(instant):
        s = t.write_base(instant, "x", range(0, 5))
        fid["x"] = s["file_id"]
        return [s]

    t.commit(first)
    mdt = t.mdt()
    mdt.initialize()
    _assert_java_agrees(spark, inspect, t.base, mdt)
    instant, stats = t.commit(lambda i: [t.write_log(i, "x", [1, 2], fid["x"])], mdt=mdt)
    r = _assert_java_agrees(spark, inspect, t.base, mdt)
    assert r["metadata"]["partitions"] == [""]
    [sl] = r["metadata"]["slices"][""]
    assert sl["logs"] == [posixpath.basename(stats[0]["path"])]
    got = _java_stats(spark, inspect, t.base, "", ["amount", "day", "price", "flag", "qty"])
    s = got[sl["logs"][0]]
    assert (_java_value(s["amount"]["min"]), _java_value(s["amount"]["max"])) == (1.5, 3.0)
    assert _java_value(s["day"]["max"]) == dt.date(2024, 1, 3)
    assert _java_value(s["price"]["min"]) == decimal.Decimal("0.25")
    assert s["flag"]["min"] == ["boolean", False] and s["qty"]["valueCount"] == 2
    base_name = sl["base"]
    b = got[base_name]
    assert b["qty"]["nullCount"] == 1 and b["qty"]["min"] == ["int", 1] and b["price"]["max"][0] == "decimal"
    mdt.compact()
    _assert_java_agrees(spark, inspect, t.base, mdt)
    got_after = _java_stats(spark, inspect, t.base, "", ["amount", "day", "price", "flag", "qty"])
    assert got_after == got

    # a write whose MDT deltacommit follows an MDT compaction scheduled after it started (Hudi's order)
    tl = t.timeline
    req = tl.create_requested("deltacommit")
    inflight = tl.transition_to_inflight(req, b"")
    i = req.requested_time
    stats = [t.write_log(i, "x", [3, 4], fid["x"])]
    assert mdt.compact() > i
    mdt.commit(i, "deltacommit", stats, {})
    pending = _java_listing(spark, inspect, t.base)["metadata"]["files"][""]  # not completed on the data table:
    assert posixpath.basename(stats[0]["path"]) not in [n for n, _ in pending]  # its MDT blocks are not used yet
    meta = im.commit_metadata({"": [im.write_stat(fileId=fid["x"], path=stats[0]["path"], partitionPath="",
                                                  fileSizeInBytes=stats[0]["file_size"])]}, "UPSERT", None)
    tl.complete(inflight, im.encode(im.COMMIT, meta))
    r = _assert_java_agrees(spark, inspect, t.base, mdt)
    assert posixpath.basename(stats[0]["path"]) in r["metadata"]["slices"][""][0]["logs"]
