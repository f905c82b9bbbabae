"""A writer process for the online-indexing test: upserts (updates, new keys, a partition move) and deletes
with the record index enabled and left to the indexing action (hoodie.metadata.index.async), one write after
another until STOP_FILE appears; after each completed write it appends its instant to DONE_FILE.

python integration/indexing_writer.py TABLE_PATH DONE_FILE STOP_FILE
"""
import os
import sys

from pyhudi import spark_session
from pyhudi.hudi_table import HudiTable

SCHEMA = "id string, ts long, region string, v int"
OPTIONS = {"hoodie.table.name": "online", "hoodie.datasource.write.recordkey.field": "id",
           "hoodie.datasource.write.precombine.field": "ts", "hoodie.datasource.write.partitionpath.field": "region",
           "hoodie.clean.automatic": "false", "hoodie.archive.automatic": "false",
           "hoodie.index.type": "RECORD_INDEX", "hoodie.metadata.index.async": "true",
           "hoodie.record.index.update.partition.path": "true"}
MAX_WRITES = 30


def rows(spark, ids, ts, region=None):
    return spark.createDataFrame([(f"k{i:04d}", ts, region or ("eu", "us")[i % 2], i) for i in ids], SCHEMA)


def main() -> None:
    path, done_file, stop_file = sys.argv[1:4]
    spark = spark_session(**{"spark.master": "local[1]", "spark.ui.enabled": "false",
                             "spark.sql.shuffle.partitions": "2"})
    t = HudiTable(spark, path, OPTIONS)
    for i in range(1, MAX_WRITES + 1):
        if os.path.exists(stop_file):
            break
        if i % 3 == 0:
            instant = t.delete(rows(spark, [i], 10 + i))  # keys of the initial rows
        elif i % 3 == 1:
            instant = t.upsert(rows(spark, [i + 40, 1000 + i], 10 + i))  # an update and a new key
        else:
            instant = t.upsert(rows(spark, [i + 50], 10 + i, region="apac"))  # moves to another partition
        with open(done_file, "a") as f:
            f.write(instant + "\n")
    spark.stop()


if __name__ == "__main__":
    main()
