"""The writer's view of an existing table, asked of the connector (one py4j call to
io.hudimeta.spark.WriterView): the latest file slice of each file group in some partitions, from
the metadata table when it is in sync, else from a listing of those partitions."""
from __future__ import annotations

import json
from typing import Iterable

from pyhudi.table.file_slices import FileSlice


def latest_file_slices(spark, path: str, partitions: Iterable[str] | None) -> list[FileSlice]:
    """The latest slices of `partitions` (relative paths, "" for a non-partitioned table; None for
    every partition), by partition then file id."""
    answer = spark._jvm.io.hudimeta.spark.WriterView.latestFileSlices(
        spark._jsc.hadoopConfiguration(), path, None if partitions is None else _java_strings(spark, partitions))
    return [_slice(s) for s in json.loads(answer)["slices"]]


def _java_strings(spark, values: Iterable[str]):
    values = list(values)
    gateway = spark.sparkContext._gateway
    array = gateway.new_array(gateway.jvm.java.lang.String, len(values))
    for i, v in enumerate(values):
        array[i] = v
    return array


def _slice(s: dict) -> FileSlice:
    return FileSlice(s["fileId"], s["baseInstantTime"], s["baseFile"], list(s["logFiles"]),
                     partition=s["partitionPath"], base_size=s["baseFileSize"])
