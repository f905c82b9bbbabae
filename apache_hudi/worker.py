"""One Apache Hudi Spark session, answering requests: run in the harness's own virtualenv (pyspark 3.5), so it
uses only the standard library, pyspark and pyarrow; it cannot import pyhudi, which runs on pyspark 4.

Requests arrive one JSON object per line on stdin; each answer is one JSON line written to the file descriptor
the parent names (--answers), since Spark and Hudi print to stdout and stderr as they please. Rows travel as
Arrow IPC files at the path a request names.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import traceback

HUDI_SESSION = {  # Apache Hudi's quick-start settings for Spark 3.5
    "spark.serializer": "org.apache.spark.serializer.KryoSerializer",
    "spark.kryo.registrator": "org.apache.spark.HoodieSparkKryoRegistrar",
    "spark.sql.extensions": "org.apache.spark.sql.hudi.HoodieSparkSessionExtension",
    "spark.sql.catalog.spark_catalog": "org.apache.spark.sql.hudi.catalog.HoodieCatalog",
}
# Java 17: Kryo serialises Hudi's file-system view, whose lock lives in a package Spark 3.5 does not open
OPENS = " ".join(f"--add-opens=java.base/{p}=ALL-UNNAMED" for p in ("java.util.concurrent.locks",
                                                                     "java.util.concurrent.atomic"))
HARNESS_SESSION = {
    "spark.driver.extraJavaOptions": OPENS,
    "spark.executor.extraJavaOptions": OPENS,
    "spark.master": "local[2]",
    "spark.ui.enabled": "false",
    "spark.sql.shuffle.partitions": "2",
    "spark.driver.memory": "1g",
    "spark.sql.session.timeZone": "UTC",
    "spark.sql.sources.parallelPartitionDiscovery.parallelism": "2",
}


def session(jar: str, warehouse: str):
    from pyspark.sql import SparkSession

    builder = SparkSession.builder.appName("apache-hudi").config("spark.jars", jar)
    for key, value in {**HUDI_SESSION, **HARNESS_SESSION, "spark.sql.warehouse.dir": warehouse}.items():
        builder = builder.config(key, value)
    spark = builder.getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    return spark


def save_arrow(df, out: str) -> int:
    import pyarrow as pa
    from pyspark.sql.pandas.types import to_arrow_schema

    batches = df._collect_as_arrow()
    table = pa.Table.from_batches(batches) if batches else to_arrow_schema(df.schema).empty_table()
    with pa.OSFile(out, "wb") as sink, pa.ipc.new_file(sink, table.schema) as writer:
        writer.write_table(table)
    return table.num_rows


def _sql(spark, req: dict) -> dict:
    df = spark.sql(req["sql"])
    return {"rows": save_arrow(df, req["out"])} if req.get("out") else {"rows": None}


def _read(spark, req: dict) -> dict:
    df = spark.read.format("hudi").options(**req.get("options", {})).load(req["path"])
    if req.get("where"):
        df = df.where(req["where"])
    return {"rows": save_arrow(df, req["out"])}


def _write(spark, req: dict) -> dict:
    df = spark.read.parquet(req["input"])
    df.write.format("hudi").options(**req.get("options", {})).mode(req.get("mode", "append")).save(req["path"])
    return {}


def _jvm_version(spark, req: dict) -> dict:
    jvm = spark.sparkContext._jvm
    version = jvm.org.apache.hudi.common.table.HoodieTableVersion.current().versionCode()
    return {"spark": spark.version, "table_version": version}


def _table_metadata(spark, base: str, from_metadata_table: bool = True):
    """Hudi's reader of a table's metadata: HoodieBackedTableMetadata (the metadata table), or
    FileSystemBackedTableMetadata (storage listed as Hudi lists it); the same constructors in 1.0.2 and 1.2.0.
    HoodieBackedTableMetadata with the metadata table disabled still reads it in both releases, so the
    storage side has to be the file-system class."""
    hudi = spark.sparkContext._jvm.org.apache.hudi
    conf = hudi.storage.hadoop.HadoopStorageConfiguration(spark.sparkContext._jsc.hadoopConfiguration())
    storage = hudi.storage.hadoop.HoodieHadoopStorage(base, conf)
    engine = hudi.common.engine.HoodieLocalEngineContext(conf)
    if not from_metadata_table:
        return hudi.metadata.FileSystemBackedTableMetadata(engine, storage, base)
    config = hudi.common.config.HoodieMetadataConfig.newBuilder().enable(True).build()
    return hudi.metadata.HoodieBackedTableMetadata(engine, storage, config, base)


def _metadata_files(spark, req: dict) -> dict:
    """{partition: {file name: size}} as Hudi's table-metadata reader lists them: from the metadata table
    (`enabled`), or from storage as Hudi lists it (the two sides of its validate_metadata_table_files)."""
    hudi, base = spark.sparkContext._jvm.org.apache.hudi, req["path"]
    metadata = _table_metadata(spark, base, req["enabled"])
    listing = {}
    for partition in metadata.getAllPartitionPaths():
        where = hudi.storage.StoragePath(base, partition) if partition else hudi.storage.StoragePath(base)
        listing[partition] = {info.getPath().getName(): info.getLength()
                              for info in metadata.getAllFilesInPartition(where)}
    metadata.close()
    return {"partitions": listing}


def _py4j_error():
    from py4j.protocol import Py4JError

    return Py4JError


def _pairs(spark, files: list) -> object:
    Pair = spark.sparkContext._jvm.org.apache.hudi.common.util.collection.Pair
    pairs = spark.sparkContext._jvm.java.util.ArrayList()
    for partition, name in files:
        pairs.add(Pair.of(partition, name))
    return pairs


def _wrapped(value):
    """The value inside one of Hudi's column-stats wrappers (IntWrapper, StringWrapper...)."""
    if value is None:
        return None
    inner = value.get(0)
    return inner if isinstance(inner, (int, float, str, bool)) or inner is None else inner.toString()


def _column_stats(spark, req: dict) -> dict:
    """{file: {column: [min, max, null count, value count]}} from the metadata table's column_stats."""
    metadata, found = _table_metadata(spark, req["path"]), {}
    pairs = _pairs(spark, req["files"])
    for column in req["columns"]:
        for entry in metadata.getColumnStats(pairs, column).values():
            if entry.getIsDeleted():
                continue
            found.setdefault(entry.getFileName(), {})[column] = [
                _wrapped(entry.getMinValue()), _wrapped(entry.getMaxValue()), entry.getNullCount(),
                entry.getValueCount()]
    metadata.close()
    return {"stats": found}


def _record_index(spark, req: dict) -> dict:
    """{key: [partition, file id]} for the keys the record index holds, of those asked."""
    jvm, metadata = spark.sparkContext._jvm, _table_metadata(spark, req["path"])
    keys = jvm.java.util.ArrayList()
    for key in req["keys"]:
        keys.add(key)
    try:  # 1.1+: over HoodieData
        pairs = metadata.readRecordIndexLocationsWithKeys(jvm.org.apache.hudi.common.data.HoodieListData.eager(keys))
        found = {p.getKey(): p.getValue() for p in pairs.collectAsList()}
    except _py4j_error():  # 1.0.x
        found = {k: v for k, v in metadata.readRecordIndex(keys).items()}
    metadata.close()
    return {"locations": {k: [loc.getPartitionPath(), loc.getFileId()] for k, loc in found.items()}}


def _bloom_filters(spark, req: dict) -> dict:
    """{file: [keys its bloom filter in the metadata table says it cannot hold]}, and files with no filter."""
    metadata = _table_metadata(spark, req["path"])
    filters = metadata.getBloomFilters(_pairs(spark, [f[:2] for f in req["files"]]))
    by_file = {pair.getValue(): bloom for pair, bloom in filters.items()}
    missing, absent = {}, []
    for _, name, keys in req["files"]:
        bloom = by_file.get(name)
        if bloom is None:
            absent.append(name)
            continue
        lost = [k for k in keys if not bloom.mightContain(k)]
        if lost:
            missing[name] = lost
    metadata.close()
    return {"missing": missing, "absent": absent}


OPS = {"sql": _sql, "read": _read, "write": _write, "version": _jvm_version, "metadata_files": _metadata_files,
       "column_stats": _column_stats, "record_index": _record_index, "bloom_filters": _bloom_filters}


def error_text(exc: BaseException) -> str:
    """The messages of a Java exception and its causes (Hudi wraps the one that matters), else str()."""
    java = getattr(exc, "java_exception", None)
    if java is None:
        return f"{type(exc).__name__}: {exc}".splitlines()[0] if str(exc) else type(exc).__name__
    lines, seen, deepest = [], 0, java
    while java is not None and seen < 8:
        lines.append(f"{java.getClass().getName()}: {java.getMessage()}")
        deepest, java, seen = java, java.getCause(), seen + 1
    frames = [f"    at {f.toString()}" for f in list(deepest.getStackTrace())[:8]]
    return "\n  caused by ".join(lines) + "\n" + "\n".join(frames)


def serve(spark, answers) -> None:
    for line in sys.stdin:
        req = json.loads(line)
        if req.get("op") == "stop":
            break
        try:
            answer = {"ok": True, **OPS[req["op"]](spark, req)}
        except Exception as exc:  # the parent raises it; the session lives on for the next request
            answer = {"ok": False, "error": error_text(exc), "trace": traceback.format_exc()[-4000:]}
        answers.write(json.dumps(answer) + "\n")
        answers.flush()


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--jar", required=True)
    ap.add_argument("--warehouse", required=True)
    ap.add_argument("--answers", type=int, required=True, help="file descriptor for the answers")
    args = ap.parse_args()
    os.set_inheritable(args.answers, False)  # the JVM must not hold it open after this process ends
    answers = os.fdopen(args.answers, "w")
    try:
        spark = session(args.jar, args.warehouse)
    except Exception as exc:
        answers.write(json.dumps({"ok": False, "error": error_text(exc)}) + "\n")
        return
    answers.write(json.dumps({"ok": True, "ready": True}) + "\n")
    answers.flush()
    serve(spark, answers)
    spark.stop()


if __name__ == "__main__":
    main()
