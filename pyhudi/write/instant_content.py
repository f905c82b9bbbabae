"""What a write's instant holds, as Apache Hudi writes it: its action, the `.requested` plan of a replacecommit,
the commit metadata of the completed instant (with the extra metadata the options carry), and the partition
metadata file of each partition it writes into first."""
from __future__ import annotations

import posixpath
from typing import Mapping

from pyhudi.config import options as o
from pyhudi.storage import Storage
from pyhudi.table import file_names as filenames
from pyhudi.table import instant_metadata as im
from pyhudi.table.write_stat import WriteStat, by_partition

REPLACE_OPS = ("insert_overwrite", "insert_overwrite_table", "delete_partition")
OPERATION_TYPES = {op: op.upper() for op in ("upsert", "insert", "bulk_insert", "delete") + REPLACE_OPS}


def action(operation: str, table_type: str) -> str:
    if operation in REPLACE_OPS:
        return "replacecommit"
    return "deltacommit" if table_type == "MERGE_ON_READ" else "commit"


def requested(operation: str, action_: str) -> bytes:
    """A replacecommit's HoodieRequestedReplaceMetadata; other actions' .requested files are empty."""
    plan = {"operationType": OPERATION_TYPES[operation], "clusteringPlan": None, "extraMetadata": None, "version": 1}
    return b"" if action_ != "replacecommit" else im.encode(im.REQUESTED_REPLACE, plan)


def inflight(operation: str) -> bytes:
    return im.encode(im.COMMIT, im.commit_metadata({}, OPERATION_TYPES[operation], None))


def completed(operation: str, options: Mapping[str, str], stats: list[WriteStat], replaced: dict[str, list[str]],
              schema: str) -> dict:
    """The commit metadata: the write stats by partition, the schema, the files replaced, and as extra metadata
    the options under hoodie.datasource.write.commitmeta.key.prefix and the streaming sink's checkpoint."""
    per_partition, op = by_partition(stats), OPERATION_TYPES[operation]
    prefix = o.COMMIT_METADATA_PREFIX.get(options)
    extra = {k: v for k, v in options.items() if (prefix and k.startswith(prefix)) or k == im.SINK_CHECKPOINT_KEY}
    if operation in REPLACE_OPS:
        return im.replace_commit_metadata(per_partition, op, schema, replaced, extra)
    return im.commit_metadata(per_partition, op, schema, extra)


def write_partition_metadata(storage: Storage, base: str, instant: str, partitions: set[str]) -> None:
    """Each partition's .hoodie_partition_metadata, written by the first instant that writes into it."""
    for p in partitions:
        path, depth = posixpath.join(base, p, filenames.PARTITION_METADATA), filenames.partition_depth(p)
        if not storage.exists(path):  # p "": the base path
            storage.write(path, filenames.partition_metadata_text(instant, depth).encode())
