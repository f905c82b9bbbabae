"""LogBlocks of each type built from Python values: Avro, Parquet and HFile data blocks, delete
blocks and rollback command blocks. Their contents are laid out by pyhudi.log.avro_content and
pyhudi.log.delete_content; a Parquet or HFile data block holds a whole file."""
from __future__ import annotations

import io
from typing import Iterable, Mapping

import pyarrow as pa

from pyhudi.log.avro_content import encode_avro_content, encode_avro_records, encode_avro_table, schema_text
from pyhudi.log.block import ROLLBACK_COMMAND, BlockType, HeaderKey, LogBlock, make_header
from pyhudi.log.delete_content import DeleteRecord, encode_delete_content


def avro_data_block(records, schema: str | dict, instant_time: str, *,
                    block_identifier: str | None = None, extra_header: Mapping[int, str] | None = None,
                    block_type: int = BlockType.AVRO_DATA) -> LogBlock:
    """An Avro data block. `records`: dicts, raw Avro record bytes, or a pyarrow Table."""
    text = schema_text(schema)
    content = encode_avro_table(records, text) if isinstance(records, pa.Table) else None
    if content is None:
        records = _as_records(records)
        if records and not isinstance(records[0], (bytes, bytearray)):
            records = encode_avro_records(records, text)
        content = encode_avro_content(records)
    return LogBlock(block_type, make_header(instant_time, text, block_identifier, extra_header), content)


def _as_records(records) -> list:
    if hasattr(records, "to_pylist"):  # pyarrow Table/RecordBatch: Avro maps want dicts
        return records.to_pylist(maps_as_pydicts="strict")
    return list(records)


def parquet_data_block(table, schema: str | dict, instant_time: str, *,
                       compression: str = "zstd", block_identifier: str | None = None,
                       extra_header: Mapping[int, str] | None = None, key_summary: bool = False,
                       **writer_options) -> LogBlock:
    """A Parquet data block: the records (with meta columns) as one in-memory Parquet file. Hudi's Parquet
    log blocks carry no bloom/min/max footer keys; `key_summary` adds them, sized to the block (log-file
    indexing, RFC-06: readers ignore footer keys, bloom lookups skip blocks they exclude)."""
    from pyhudi.basefile import bloom
    from pyhudi.basefile.parquet import BLOOM_KEY, BaseFileWriter  # local: base_file pulls in pyarrow.parquet

    buf = io.BytesIO()
    summary = {"bloom_type": bloom.DYNAMIC_V0, "bloom_num_entries": max(table.num_rows, 1)} if key_summary \
        else {"bloom_type": None}
    writer = BaseFileWriter(buf, schema, compression=compression, **summary, **writer_options)
    with writer:
        writer.write(table)
        writer.close()
    return LogBlock(BlockType.PARQUET_DATA,
                    make_header(instant_time, writer.avro_json, block_identifier, extra_header),
                    buf.getvalue(), key_filter=writer.written_footer.get(BLOOM_KEY))


def hfile_data_block(hfile_bytes: bytes, schema: str | dict, instant_time: str, *,
                     block_identifier: str | None = None,
                     extra_header: Mapping[int, str] | None = None) -> LogBlock:
    """An HFile data block around an HFile built by the caller (metadata-table logs)."""
    return LogBlock(BlockType.HFILE_DATA, make_header(instant_time, schema, block_identifier, extra_header),
                    bytes(hfile_bytes))


def delete_block(deletes: Iterable[DeleteRecord], instant_time: str, schema: str | dict | None = None, *,
                 block_identifier: str | None = None,
                 extra_header: Mapping[int, str] | None = None) -> LogBlock:
    """A delete block; data-table deletes carry the writer SCHEMA header, metadata-table
    bootstrap blocks carry only INSTANT_TIME."""
    return LogBlock(BlockType.DELETE, make_header(instant_time, schema, block_identifier, extra_header),
                    encode_delete_content(deletes))


def rollback_block(instant_time: str, target_instant_time: str) -> LogBlock:
    """Command block rolling back the blocks `target_instant_time` wrote to this file slice."""
    header: dict[int, str]  # what LogBlock holds: HeaderKey members are ints
    header = {HeaderKey.INSTANT_TIME: instant_time, HeaderKey.TARGET_INSTANT_TIME: target_instant_time,
              HeaderKey.COMMAND_BLOCK_TYPE: ROLLBACK_COMMAND}
    return LogBlock(BlockType.COMMAND, header)
