"""The writer's view of an existing table: the latest file slice of each file group in the partitions a
write touches. The connector keeps one synced view per table in the driver's JVM
(io.hudimeta.view.SyncedView: files loaded once, from the metadata table when it is in sync, then kept
current instant by instant). A write asks it through the timeline server (embedded in the driver by
default, or a remote one) and, when the server cannot be reached, through py4j directly: a write never
fails because the server is down. Each request carries the writer's last instant and timeline hash, so a
current view answers without touching storage."""
from __future__ import annotations

import json
import logging
from typing import Iterable, Mapping

from pyhudi.config import options as o
from pyhudi.faults import crash_point
from pyhudi.table.file_slices import FileSlice
from pyhudi.write.timeline_client import TimelineClient, TimelineServerUnavailable

log = logging.getLogger(__name__)


def latest_file_slices(spark, path: str, partitions: Iterable[str] | None, options: Mapping[str, str] | None = None,
                       state: tuple[str | None, str | None] = (None, None)) -> list[FileSlice]:
    """The latest slices of `partitions` (relative paths, "" for a non-partitioned table; None for
    every partition), by partition then file id. `state`: the writer's (last completed write, timeline
    hash), see pyhudi.table.timeline.Timeline.view_state."""
    options = options or {}
    partitions = None if partitions is None else sorted(set(partitions))
    server = _server(spark, options) if partitions is not None else None
    if server is not None:
        assert partitions is not None  # a server is looked for only when partitions are given
        host, port = server
        crash_point("before_view")  # the server known, not yet asked: where tests stop it
        try:
            slices = TimelineClient(host, port, o.VIEW_REMOTE_TIMEOUT.get(options)).latest_file_slices(
                path, partitions, *state)
            return sorted(slices, key=lambda s: (s.partition, s.file_id))
        except TimelineServerUnavailable as e:
            if o.VIEW_TYPE.get(options) == "REMOTE_ONLY":
                raise
            log.warning("%s; this write builds its view in the driver instead", e)
    return in_driver(spark, path, partitions, options, state)


def in_driver(spark, path: str, partitions: list[str] | None, options: Mapping[str, str],
              state: tuple[str | None, str | None] = (None, None)) -> list[FileSlice]:
    """The same answer from the driver's JVM through py4j (io.hudimeta.spark.bridge.WriterView)."""
    answer = spark._jvm.io.hudimeta.spark.bridge.WriterView.latestFileSlices(
        spark._jsc.hadoopConfiguration(), path, None if partitions is None else _java_strings(spark, partitions),
        view_options(options), *state)
    return [_slice(s) for s in json.loads(answer)["slices"]]


def view_options(options: Mapping[str, str]) -> dict[str, str]:
    """The options the JVM's view takes, under their Hudi keys, defaults filled in."""
    values = {opt.key: opt.get(options) for opt in o.VIEW_OPTIONS}
    return {k: str(v).lower() if isinstance(v, bool) else str(v) for k, v in values.items()}


def _server(spark, options: Mapping[str, str]) -> tuple[str, int] | None:
    """(host, port) of the timeline server this write asks, or None to ask the driver's JVM directly."""
    if o.VIEW_TYPE.get(options) in ("REMOTE_FIRST", "REMOTE_ONLY"):
        return o.VIEW_REMOTE_HOST.get(options), o.VIEW_REMOTE_PORT.get(options)
    if not o.EMBED_TIMELINE_SERVER.get(options):
        return None
    port = spark._jvm.io.hudimeta.view.TimelineServer.startEmbedded(
        spark._jsc.hadoopConfiguration(), o.EMBED_TIMELINE_SERVER_PORT.get(options), view_options(options))
    return "localhost", int(port)


def _java_strings(spark, values: list[str]):
    gateway = spark.sparkContext._gateway
    array = gateway.new_array(gateway.jvm.java.lang.String, len(values))
    for i, v in enumerate(values):
        array[i] = v
    return array


def _slice(s: dict) -> FileSlice:
    return FileSlice(s["fileId"], s["baseInstantTime"], s["baseFile"], list(s["logFiles"]),
                     partition=s["partitionPath"], base_size=s["baseFileSize"])
