"""Hudi base files: Parquet with the `_hoodie_*` meta columns first and Hudi's footer keys.

Footer key/values, as Hudi's Avro write path leaves them (docs/format.md §8.1):
`hoodie_min_record_key`, `org.apache.hudi.bloomfilter`, `hoodie_max_record_key`,
`hoodie_bloom_filter_type_code`, `writer.model.name` = `avro`, `parquet.avro.schema` (the writer
schema with meta fields). With `populate_meta_fields=False` only the last two are written, the
four key-derived meta columns are null and `_hoodie_file_name` still holds the file name.

Physical layout choices, so that Spark, hudi-rs and Hudi itself read the same logical types:

* Column types follow the Avro writer schema (`avro_schema.avro_to_arrow`): Byte/Short columns
  become INT32, timestamps INT64 micros with isAdjustedToUTC (local-timestamp-micros: not
  adjusted), dates INT32 DATE, decimals FIXED_LEN_BYTE_ARRAY of the Avro fixed size - the same
  physical types parquet-avro writes.
* Lists use the standard 3-level `list`/`element` layout. Hudi's parquet-avro writer uses the
  legacy 2-level `array` form, which cannot hold null elements (the Avro item type is nullable)
  and which pyarrow cannot write; every reader involved (Spark's Parquet reader, arrow-rs in
  hudi-rs, parquet-avro in Hudi) resolves both forms, and Spark's own writer emits 3-level too.
* No `ARROW:schema` footer entry, so the footer keys are exactly Hudi's.
* ZSTD by default: Apache Hudi's default `hoodie.parquet.compression.codec` on Spark 3.5 and newer
  (it was GZIP before); it decodes several times faster than GZIP at a similar size.
"""
from __future__ import annotations

import posixpath
from dataclasses import dataclass
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.fs as pafs
import pyarrow.parquet as pq

from pyhudi.avro import schema as avro_schema
from pyhudi.basefile import bloom
from pyhudi.errors import CorruptFileError, HudiError

BLOOM_KEY = "org.apache.hudi.bloomfilter"
LEGACY_BLOOM_KEY = "com.uber.hoodie.bloomfilter"
BLOOM_TYPE_KEY = "hoodie_bloom_filter_type_code"
MIN_KEY = "hoodie_min_record_key"
MAX_KEY = "hoodie_max_record_key"
AVRO_SCHEMA_KEY = "parquet.avro.schema"
WRITER_MODEL_KEY = "writer.model.name"

COMMIT_TIME, SEQNO, RECORD_KEY, PARTITION_PATH, FILE_NAME = avro_schema.META_FIELDS
DEFAULT_COMPRESSION = "zstd"


class BaseFileError(HudiError, ValueError):
    pass


@dataclass
class BaseFileStats:
    """What the commit metadata and the metadata table need about a written base file."""
    path: str | None
    file_size: int
    num_records: int
    min_record_key: str | None
    max_record_key: str | None
    bloom_filter: bloom.BloomFilter | None
    parquet_metadata: Any = None  # pyarrow FileMetaData (row groups, column statistics)


@dataclass
class FooterKeys:
    bloom_filter: bloom.BloomFilter | None
    min_record_key: str | None
    max_record_key: str | None


# ---------------------------------------------------------------- meta columns


def add_meta_columns(table: pa.Table, *, commit_time: str, partition_path: str, file_name: str,
                     record_keys, partition_id: int, start_seq: int = 0,
                     populate_meta_fields: bool = True) -> pa.Table:
    """`table` with the five meta columns (replacing any already there) placed first.

    `_hoodie_commit_seqno` = `<commit>_<partitionId>_<n>` numbering rows from `start_seq`."""
    n = table.num_rows
    data = table.drop_columns([c for c in avro_schema.META_FIELDS if c in table.column_names])
    if populate_meta_fields:
        keys = record_keys
        if not isinstance(keys, (pa.Array, pa.ChunkedArray)):
            keys = pa.array(keys, pa.string())
        if len(keys) != n:
            raise BaseFileError(f"{len(keys)} record keys for {n} rows")
        cols = [constant(commit_time, n), seqnos(commit_time, partition_id, start_seq, n), keys.cast(pa.string()),
                constant(partition_path, n), constant(file_name, n)]
    else:
        cols = [pa.nulls(n, pa.string())] * 4 + [constant(file_name, n)]
    meta = pa.table(dict(zip(avro_schema.META_FIELDS, cols)))
    for name in data.column_names:
        meta = meta.append_column(data.schema.field(name), data.column(name))
    return meta


def constant(value: str, n: int) -> pa.Array:
    """A string column of one value (a meta column's file name, partition, commit time)."""
    return pa.repeat(pa.scalar(value, pa.string()), n)


def seqnos(commit_time: str, partition_id: int, start: int, n: int) -> pa.Array:
    """`_hoodie_commit_seqno` values `<commit>_<partitionId>_<k>` for k from `start`."""
    seq = pa.array(range(start, start + n), pa.int64()).cast(pa.string())
    return pc.binary_join_element_wise(f"{commit_time}_{partition_id}_", seq, "")


# ---------------------------------------------------------------- writing


def java_min_max(keys: pa.Array | pa.ChunkedArray) -> tuple[str | None, str | None]:
    """Min and max as Java's String.compareTo orders them (UTF-16 code units)."""
    if len(keys) == 0:
        return None, None
    if pc.all(pc.string_is_ascii(keys)).as_py():  # byte order == UTF-16 order for ASCII
        mm = pc.min_max(keys)
        return mm["min"].as_py(), mm["max"].as_py()
    values = keys.to_pylist()
    key = lambda s: s.encode("utf-16-be")  # noqa: E731 - big-endian units compare like Java chars
    return min(values, key=key), max(values, key=key)


def _java_less(a: str, b: str) -> bool:
    return a.encode("utf-16-be") < b.encode("utf-16-be")


def file_schemas(writer_schema: str | dict) -> tuple[dict, pa.Schema]:
    """A base file's Avro schema (the writer schema, meta fields first) and its Arrow schema."""
    schema = avro_schema.parse(writer_schema)
    if [f["name"] for f in schema["fields"][:5]] != list(avro_schema.META_FIELDS):
        schema = avro_schema.with_meta_fields(schema)
    return schema, avro_schema.avro_to_arrow(schema)


class BaseFileWriter:
    """Streams Arrow tables/batches into one Hudi base file; `close()` returns its stats.

    `sink` is a path (local or a URI; `filesystem` optional) or a writable binary file object.
    `writer_schema` is the Avro writer schema (JSON text or dict), with or without meta fields.
    Rows must carry the meta columns (see `add_meta_columns`); schema columns missing from the
    data are written as nulls. `populate_meta_fields=False` or `bloom_type=None` leave out the
    bloom/min/max footer keys."""

    def __init__(self, sink, writer_schema: str | dict, *, filesystem: pafs.FileSystem | None = None,
                 compression: str = DEFAULT_COMPRESSION, compression_level: int | None = None,
                 populate_meta_fields: bool = True, bloom_type: str = bloom.DYNAMIC_V0,
                 bloom_num_entries: int = bloom.DEFAULT_NUM_ENTRIES, bloom_fpp: float = bloom.DEFAULT_FPP,
                 bloom_max_entries: int = bloom.DEFAULT_DYNAMIC_MAX_ENTRIES,
                 row_group_size: int | None = None, data_page_size: int | None = None,
                 dictionary: bool = True):
        schema, self.arrow_schema = file_schemas(writer_schema)
        self.avro_json = avro_schema.to_json(schema)
        self.populate_meta_fields = populate_meta_fields
        # bloom_type None: no bloom/min/max footer keys (Hudi's Parquet log blocks carry none)
        self.key_footer = populate_meta_fields and bloom_type is not None
        self.bloom = (bloom.create_bloom_filter(bloom_type, bloom_num_entries, bloom_fpp, bloom_max_entries)
                      if self.key_footer else None)
        self.min_key: str | None = None
        self.max_key: str | None = None
        self.num_records = 0
        self.row_group_size = row_group_size
        self.path, self._stream = self._open(sink, filesystem)
        self._options = dict(compression=compression, compression_level=compression_level,
                             data_page_size=data_page_size, store_schema=False, use_compliant_nested_type=True,
                             write_statistics=True)
        self._dictionary = dictionary
        self._writer: pq.ParquetWriter | None = None  # opened at the first rows: they choose the encodings
        self._closed = False
        self.written_footer: dict[str, str] = {}

    def _open_writer(self, first: pa.Table | None) -> pq.ParquetWriter:
        columns = _dictionary_columns(first, self.arrow_schema) if self._dictionary else False
        self._writer = pq.ParquetWriter(self._stream, self.arrow_schema, use_dictionary=columns, **self._options)
        return self._writer

    @staticmethod
    def _open(sink, filesystem):
        if not isinstance(sink, str):
            return None, sink
        path = sink
        if filesystem is None:
            if "://" in sink:
                filesystem, path = pafs.FileSystem.from_uri(sink)
            else:
                filesystem = pafs.LocalFileSystem()
        parent = posixpath.dirname(path)
        if parent:
            filesystem.create_dir(parent, recursive=True)
        return sink, filesystem.open_output_stream(path)

    def write(self, data: pa.Table | pa.RecordBatch) -> None:
        if self._closed:
            raise BaseFileError("base file writer is closed")
        table = self._conform(pa.Table.from_batches([data]) if isinstance(data, pa.RecordBatch) else data)
        if table.num_rows == 0:
            return
        if self.key_footer:
            self._track_keys(table.column(RECORD_KEY))
        (self._writer or self._open_writer(table)).write_table(table, row_group_size=self.row_group_size)
        self.num_records += table.num_rows

    def _conform(self, table: pa.Table) -> pa.Table:
        """Columns in schema order with the schema's physical types."""
        expected = self.arrow_schema.names
        extra = [c for c in table.column_names if c not in expected]
        if extra:
            raise BaseFileError(f"columns {extra} are not in the writer schema {expected}")
        cols = []
        for field in self.arrow_schema:
            if field.name in table.column_names:
                col = table.column(field.name)
            elif field.nullable:
                col = pa.nulls(table.num_rows, field.type)
            else:
                raise BaseFileError(f"column {field.name!r} is missing and not nullable")
            if not field.nullable and col.null_count:
                raise BaseFileError(f"column {field.name!r} is not nullable but has {col.null_count} nulls")
            try:
                cols.append(col.cast(field.type))
            except (pa.ArrowInvalid, pa.ArrowNotImplementedError) as e:
                raise BaseFileError(f"column {field.name!r}: cannot store {col.type} as {field.type}: {e}") from None
        return pa.Table.from_arrays(cols, schema=self.arrow_schema)

    def _track_keys(self, keys: pa.ChunkedArray) -> None:
        if keys.null_count:
            raise BaseFileError(f"{keys.null_count} rows have a null {RECORD_KEY}")
        assert self.bloom is not None  # key_footer is set only with a bloom type
        self.bloom.add_all(keys)
        lo, hi = java_min_max(keys)
        assert lo is not None and hi is not None  # write() passes no empty table, and nulls were refused
        if self.min_key is None or _java_less(lo, self.min_key):
            self.min_key = lo
        if self.max_key is None or _java_less(self.max_key, hi):
            self.max_key = hi

    @property
    def bytes_written(self) -> int:
        """Bytes of the row groups written so far (what a writer rolling files over by size checks)."""
        return self._stream.tell()

    def footer(self) -> dict[str, str]:
        """Footer key/values in the order Hudi's files list them."""
        meta: dict[str, str] = {}
        if self.key_footer and self.num_records:
            # key_footer comes with a bloom filter, and _track_keys set the keys of the written records
            assert self.bloom is not None and self.min_key is not None and self.max_key is not None
            meta = {MIN_KEY: self.min_key, BLOOM_KEY: self.bloom.serialize(), MAX_KEY: self.max_key,
                    BLOOM_TYPE_KEY: self.bloom.type_code}
        meta[WRITER_MODEL_KEY] = "avro"
        meta[AVRO_SCHEMA_KEY] = self.avro_json
        return meta

    def close(self) -> BaseFileStats:
        if self._closed:
            raise BaseFileError("base file writer is already closed")
        self._closed = True
        self.written_footer = self.footer()  # kept: a Parquet log block's key summary is also the MDT's entry
        writer = self._writer or self._open_writer(None)
        writer.add_key_value_metadata(self.written_footer)
        writer.close()
        size = self._stream.tell()
        if self.path is not None:
            self._stream.close()
        return BaseFileStats(self.path, size, self.num_records, self.min_key, self.max_key,
                             self.bloom if self.num_records else None,
                             getattr(getattr(self._writer, "writer", None), "metadata", None))

    def __enter__(self) -> "BaseFileWriter":
        return self

    def __exit__(self, exc_type, exc, tb) -> None:
        if exc_type is None and not self._closed:
            self.close()
        elif not self._closed:  # leave no half-written file handle open on errors
            self._closed = True
            if self._writer is not None:
                self._writer.close()
            if self.path is not None:
                self._stream.close()


# rows of the first batch a column's dictionary test looks at (hashing them costs about 0.2 us a value)
DICTIONARY_SAMPLE = 4096


def _dictionary_columns(first: pa.Table | None, schema: pa.Schema) -> list[str]:
    """The columns worth a dictionary, judged on the first rows as parquet-mr judges its first page (it drops a
    dictionary whose encoding is not smaller than the plain values). Arrow keeps trying a dictionary until it
    reaches 1 MB, so columns of distinct values (keys, sequence numbers, timestamps, measures) paid for a
    dictionary they then abandoned: about a fifth of a file's encoding time. Nested columns are written plain (Arrow
    names their leaves by path, as it always did here)."""
    chosen = []
    for field in schema:
        if field.name in (RECORD_KEY, SEQNO) or not _flat(field.type):  # keys, sequence numbers: never repeated
            continue
        if first is None or _dictionary_pays(first.column(field.name)):
            chosen.append(field.name)
    return chosen


def _flat(t: pa.DataType) -> bool:
    """A column of one value a row: not a list, struct or map."""
    if pa.types.is_nested(t):
        return False
    return _bit_width(t) > 0 or any(
        f(t) for f in (pa.types.is_string, pa.types.is_binary, pa.types.is_large_string, pa.types.is_large_binary))


def _bit_width(t: pa.DataType) -> int:
    """Bits a value of a fixed-width type takes, 0 for a variable-width type."""
    try:
        return t.bit_width
    except ValueError:
        return 0


def _dictionary_pays(column: pa.ChunkedArray) -> bool:
    sample = column.slice(0, DICTIONARY_SAMPLE).drop_null()
    if len(sample) == 0:
        return True
    distinct = pc.unique(sample)
    index_bits = max(1, (len(distinct) - 1).bit_length())
    return _plain_size(distinct) + len(sample) * index_bits / 8 < _plain_size(sample)


def _plain_size(values) -> int:
    """Bytes of the values in Parquet's PLAIN encoding (a byte array: 4-byte length and the bytes)."""
    if _bit_width(values.type):
        return len(values) * _bit_width(values.type) // 8
    return 4 * len(values) + (pc.sum(pc.binary_length(values)).as_py() or 0)


def write_base_file(sink, table: pa.Table, writer_schema: str | dict, **options) -> BaseFileStats:
    """Write `table` (with meta columns) as one base file; see `BaseFileWriter` for options."""
    writer = BaseFileWriter(sink, writer_schema, **options)
    with writer:
        writer.write(table)
        return writer.close()


# ---------------------------------------------------------------- reading footers


def read_footer_keys(source, filesystem: pafs.FileSystem | None = None) -> FooterKeys:
    """Bloom filter and min/max record keys from a base file footer (None where absent)."""
    meta = _footer(source, filesystem)
    raw = meta.get(BLOOM_KEY.encode()) or meta.get(LEGACY_BLOOM_KEY.encode())
    code = meta.get(BLOOM_TYPE_KEY.encode())
    bf = bloom.parse_bloom_filter(raw, code.decode() if code else None) if raw else None
    lo, hi = meta.get(MIN_KEY.encode()), meta.get(MAX_KEY.encode())
    return FooterKeys(bf, lo.decode() if lo is not None else None, hi.decode() if hi is not None else None)


def read_footer(source, filesystem: pafs.FileSystem | None = None) -> dict[str, str]:
    """All footer key/values as text."""
    return {k.decode(): v.decode() for k, v in _footer(source, filesystem).items()}


def _footer(source, filesystem) -> dict[bytes, bytes]:
    if isinstance(source, str) and filesystem is None and "://" in source:
        filesystem, source = pafs.FileSystem.from_uri(source)
    try:
        return pq.ParquetFile(source, filesystem=filesystem).metadata.metadata or {}
    except pa.ArrowInvalid as e:  # not Parquet, or truncated: name the file, not only Arrow's complaint
        where = source if isinstance(source, str) else "input"
        raise CorruptFileError(f"cannot read the Parquet footer of {where}: {e}") from e
