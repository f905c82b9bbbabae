"""Small tables for the metadata-table tests, written without Spark by `SyntheticTable` (pyhudi's
own base/log file writers and timeline) the way the write client does it: requested -> inflight
-> files -> metadata-table commit -> completed."""
from __future__ import annotations

import datetime as dt
import decimal
import posixpath

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from pyhudi import log as lf
from pyhudi.avro import schema as avro_schema
from pyhudi.basefile import parquet as base_file
from pyhudi.metadata import MetadataWriter
from pyhudi.metadata.stats import column_stats_json
from pyhudi.storage import Storage
from pyhudi.table import file_names as filenames
from pyhudi.table import instant_metadata as im
from pyhudi.table import properties
from pyhudi.table.timeline import Timeline
from pyhudi.table.write_stat import WriteStat, by_partition

V8_MDT = "quickstart_trips_table_mor_avro__v8_trips_8i3u1d"

SCHEMA = pa.schema([("id", pa.string()), ("ts", pa.int64()), ("amount", pa.float64()), ("qty", pa.int32()),
                    ("day", pa.date32()), ("price", pa.decimal128(10, 2)), ("flag", pa.bool_()),
                    ("tags", pa.list_(pa.string())), ("city", pa.string())])
STAT_COLUMNS = ["id", "ts", "amount", "qty", "day", "price", "flag", "city"]


def rows(ids, city, ts=1) -> pa.Table:
    return pa.table({
        "id": [f"k{i:04d}" for i in ids], "ts": [ts] * len(ids), "amount": [i * 1.5 for i in ids],
        "qty": pa.array([None if i % 5 == 0 else i for i in ids], pa.int32()),
        "day": [dt.date(2024, 1, 1) + dt.timedelta(days=i) for i in ids],
        "price": pa.array([decimal.Decimal(i) / 4 for i in ids], pa.decimal128(10, 2)),
        "flag": [i % 2 == 0 for i in ids], "tags": [[f"t{i}"] for i in ids],
        "city": [city] * len(ids)}, schema=SCHEMA)


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

    def rows(self, ids, city, ts=1) -> pa.Table:
        return rows(ids, city, ts)

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

    def write_base(self, instant, city, ids, file_id=None, ts=1) -> WriteStat:
        partition = self.partition_of(city)
        file_id = file_id or filenames.new_file_id()
        name = str(filenames.BaseFileName(file_id, "0-1-0", instant))
        data = self.rows(ids, city, ts)
        table = base_file.add_meta_columns(data, commit_time=instant, partition_path=partition, file_name=name,
                                           record_keys=data.column("id"), partition_id=0)
        st = base_file.write_base_file(posixpath.join(self.base, self._rel(partition, name)), table,
                                       self.writer_schema, filesystem=self.storage.fs)
        self._partition_metadata(partition, instant)
        return WriteStat(partition=partition, file_id=file_id, path=self._rel(partition, name),
                         file_size=st.file_size, num_writes=len(ids), num_inserts=len(ids),
                         column_stats=column_stats_json(table, st.parquet_metadata), bloom=st.bloom_filter.serialize())

    def write_log(self, instant, city, ids, file_id, ts=2) -> WriteStat:
        partition = self.partition_of(city)
        name = str(filenames.LogFileName(file_id, instant, 1, "0-1-0"))
        data = self.rows(ids, city, ts)
        table = base_file.add_meta_columns(data, commit_time=instant, partition_path=partition, file_name=file_id,
                                           record_keys=data.column("id"), partition_id=0)
        block = lf.avro_data_block(table, self.writer_schema, instant)
        content = lf.encode_blocks([block])
        self.storage.write(posixpath.join(self.base, self._rel(partition, name)), content)
        return WriteStat(partition=partition, file_id=file_id, path=self._rel(partition, name),
                         file_size=len(content), is_log=True, num_writes=len(ids), num_inserts=len(ids),
                         column_stats=column_stats_json(table))

    def commit(self, write, mdt: MetadataWriter | None = None, action=None, replaced=None,
               operation="UPSERT") -> tuple[str, list[WriteStat]]:
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
        per_partition = by_partition(stats)
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
        fids["a"], fids["b"] = out[0].file_id, out[1].file_id
        return out

    t.commit(first)
    t.commit(lambda instant: [t.write_base(instant, "a", range(20, 23))])
    return t, fids


def non_partitioned_mor_table(path) -> tuple[SyntheticTable, str]:
    """One commit of a non-partitioned merge-on-read table: a base file of five keys; its file id."""
    t = SyntheticTable(path, partitioned=False, table_type="MERGE_ON_READ")
    stats = t.commit(lambda instant: [t.write_base(instant, "x", range(0, 5))])[1]
    return t, stats[0].file_id


def start_write(t: SyntheticTable, action="commit"):
    """A data write requested and inflight, not completed: (inflight instant, its time)."""
    req = t.timeline.create_requested(action)
    return t.timeline.transition_to_inflight(req, b""), req.requested_time


def pyarrow_min_max(path: str, column: str):
    col = pq.ParquetFile(path).read(columns=[column]).column(column)
    mm = pc.min_max(col)
    return mm["min"].as_py(), mm["max"].as_py(), col.null_count, len(col)


def without_instant(listing, instant):
    """A files listing without the files written at `instant`."""
    return {p: {n: s for n, s in f.items() if instant not in n} for p, f in listing.items()}
