"""Plain Spark Parquet, the baseline without a table format: `df.write.partitionBy("day")`,
`spark.read.parquet(...)`, and a naive upsert that rewrites the whole dataset (anti-join the old
rows against the batch's keys, union the batch, write a new copy, swap directories).

Settings: Spark defaults for Parquet (snappy, vectorized reader, filter pushdown to row groups)."""
from __future__ import annotations

import os
import shutil

from bench import datagen

SETTINGS = ("Spark defaults (snappy, vectorized reader, row-group filter pushdown), partitionBy(day); "
            "upsert = full rewrite: old LEFT ANTI JOIN batch ON (id, day) UNION batch, written to a new "
            "directory that replaces the old one")


def load(spark, path: str, source_dir: str) -> None:
    spark.read.parquet(source_dir).write.partitionBy(datagen.PARTITION).mode("errorifexists").parquet(path)


def rewrite_upsert(spark, path: str, source_dir: str) -> None:
    keys = [datagen.KEY, datagen.PARTITION]
    batch = spark.read.parquet(source_dir)
    old = spark.read.parquet(path)
    merged = old.join(batch.select(*keys), keys, "left_anti").unionByName(batch)
    tmp = path.rstrip("/") + ".rewrite"
    merged.write.partitionBy(datagen.PARTITION).mode("errorifexists").parquet(tmp)
    shutil.rmtree(path)
    os.replace(tmp, path)


def read(spark, paths):
    return spark.read.parquet(*([paths] if isinstance(paths, str) else paths))


def row_count(spark, path: str) -> int:
    return spark.read.parquet(path).count()
