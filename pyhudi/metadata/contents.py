"""What the metadata-table writer puts in files and instants: records routed to file groups, base
HFiles, log blocks, and the write stats of its commit metadata."""
from __future__ import annotations

import time
from typing import Iterable

from pyhudi import hfile
from pyhudi import log as lf
from pyhudi.basefile import bloom as bloom_mod
from pyhudi.metadata.codec import encode_record
from pyhudi.metadata.keys import file_group_index
from pyhudi.metadata.merge import combine
from pyhudi.metadata.records import MetadataRecord
from pyhudi.metadata.schema import schema_text
from pyhudi.table import instant_metadata as im

HFILE_BLOCK_SIZE = hfile.DEFAULT_BLOCK_SIZE
BOOTSTRAP_WRITE_TOKEN = "0-0-0"


def route(records: Iterable[MetadataRecord], count: int) -> dict[int, list[MetadataRecord]]:
    """Records by file-group index, one per key (later records merged onto earlier ones),
    sorted by key bytes."""
    by_key: dict[str, MetadataRecord] = {}
    for r in records:
        by_key[r.key] = combine(by_key.get(r.key), r) if r.key in by_key else r
    groups: dict[int, list[MetadataRecord]] = {}
    for key in sorted(by_key, key=lambda k: k.encode("utf-8")):
        groups.setdefault(group_of(key, count), []).append(by_key[key])
    return groups


def group_of(key: str, count: int) -> int:
    return 0 if count == 1 else file_group_index(key, count)


def base_hfile(records: list[MetadataRecord], file_name: str, compression: str) -> bytes:
    """A base HFile of `records` (sorted by key), each written with `_hoodie_file_name` = its own name."""
    return base_hfile_of_cells([(r.key.encode("utf-8"), encode_record(r, file_name)) for r in records],
                               compression)


def base_hfile_of_cells(cells: list[tuple[bytes, bytes]], compression: str) -> bytes:
    """A base HFile of encoded records (sorted by row): a DYNAMIC_V0 bloom filter of the keys in
    the `bloomFilter` meta block, the min and max key in the file info."""
    keys = [row.decode("utf-8") for row, _ in cells]
    blm = bloom_mod.create_bloom_filter(bloom_mod.DYNAMIC_V0)
    blm.add_all(keys)
    file_info: dict[bytes | str, bytes | str]  # what write_hfile takes
    file_info = {"schema": schema_text(), "bloomFilterTypeCode": bloom_mod.DYNAMIC_V0,
                 "minRecordKey": keys[0] if keys else "", "maxRecordKey": keys[-1] if keys else ""}
    return hfile.write_hfile(cells, block_size=HFILE_BLOCK_SIZE, compression=compression,
                             file_info=file_info, meta_blocks={"bloomFilter": blm.serialize()})


def log_blocks(part: str, records: list[MetadataRecord], deletes: list[str], instant: str,
               compression: str) -> bytes:
    """A log file's bytes: an HFile data block of the records, then a delete block of the keys."""
    blocks = []
    if records:
        cells = [(r.key.encode("utf-8"), encode_record(r)) for r in records]
        content = hfile.write_hfile(cells, block_size=HFILE_BLOCK_SIZE, compression=compression,
                                    file_info={"schema": schema_text()})
        blocks.append(lf.hfile_data_block(content, schema_text(), instant))
    if deletes:
        blocks.append(lf.delete_block([lf.DeleteRecord(k, part) for k in sorted(deletes)], instant, schema_text()))
    return lf.encode_blocks(blocks)


def bootstrap_log(instant: str) -> bytes:
    """The log file every file group starts with: one empty delete block."""
    return lf.encode_block(lf.delete_block([], instant))


def write_stat(**fields) -> dict:
    """A HoodieWriteStat with Hudi's zero defaults for the counters."""
    base = dict(prevCommit="null", numWrites=0, numDeletes=0, numUpdateWrites=0, totalWriteBytes=0,
                totalWriteErrors=0, totalLogRecords=0, totalUpdatedRecordsCompacted=0, numInserts=0,
                totalLogBlocks=0, totalCorruptLogBlock=0, totalRollbackBlocks=0, fileSizeInBytes=0,
                totalLogFilesCompacted=0, totalLogReadTimeMs=0, totalLogSizeCompacted=0, numUpdates=0)
    base.update(fields)
    return im.write_stat(**base)


def runtime(scan: int = 0, create: int = 0, upsert: int = 0) -> dict:
    return {"totalScanTime": scan, "totalCreateTime": create, "totalUpsertTime": upsert}


def millis_since(start: float) -> int:
    return int((time.monotonic() - start) * 1000)
