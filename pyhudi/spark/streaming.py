"""Structured Streaming into a Hudi table: each micro-batch one write, exactly once.

As Apache Hudi's streaming sink does, the batch id rides in the commit's extraMetadata under
``_hudi_streaming_sink_checkpoint`` (``{"<batch id>": "<application id>-<query id>"}``). A batch that
Spark replays after a restart is skipped when the latest commit that carries the key already holds its
id (or a later one); a batch whose write died before its commit completed left a pending instant,
which the next write rolls back (the write protocol's first step) before writing the batch again.
"""
from __future__ import annotations

import json
import logging

from pyhudi.spark.save_modes import write_dataframe
from pyhudi.storage import Storage
from pyhudi.table import instant_metadata as im
from pyhudi.table import properties
from pyhudi.table.timeline import Timeline

SINK_CHECKPOINT_KEY = im.SINK_CHECKPOINT_KEY
WRITE_ACTIONS = ("commit", "deltacommit", "replacecommit")
log = logging.getLogger(__name__)


def write_batch(spark, df, path: str, options: dict[str, str], batch_id: int, writer: str) -> bool:
    """Writes micro-batch `batch_id` of streaming query `writer` (application and query id) unless the table
    holds it already; whether it wrote."""
    last = last_batch(path)
    if last is not None and last >= batch_id:
        log.warning("skipping micro-batch %d of %s: the table at %s holds batches up to %d", batch_id, writer,
                    path, last)
        return False
    # the write client records the checkpoint whatever hoodie.datasource.write.commitmeta.key.prefix says
    opts = {**options, SINK_CHECKPOINT_KEY: json.dumps({str(batch_id): writer}, separators=(",", ":"))}
    write_dataframe(spark, df, path, opts, "append")
    return True


def last_batch(path: str) -> int | None:
    """The greatest batch id the latest completed write with a sink checkpoint records; None if none does."""
    storage, base = Storage.for_uri(path)
    if not properties.exists(storage, base):
        return None
    timeline = Timeline.for_table(storage, base, properties.load(storage, base))
    for inst in reversed(timeline.completed(WRITE_ACTIONS)):
        checkpoint = (im.decode(timeline.read(inst)).get("extraMetadata") or {}).get(SINK_CHECKPOINT_KEY)
        if checkpoint:
            return max(int(k) for k in json.loads(checkpoint))
    return None
