"""The writer of the soak test, a process of its own: COMMITS commits into the table at `path` with the table
services on their defaults (merge-on-read: inline compaction every 5; cleaning; archival), each an upsert of
ten keys or, every seventh, a delete of three; after each commit returns, one JSON line in RESULTS: commit
number, operation, keys, value, instant. The keys and values follow from SEED, so the test can replay them.

    python soak_writer.py PATH RESULTS COMMITS SEED
"""
import json
import random
import sys

from pyhudi import spark_session
from pyhudi.hudi_table import HudiTable

SCHEMA = "id string, ts long, region string, val string"
KEYS = 60
OPTIONS = {"hoodie.table.name": "soak", "hoodie.datasource.write.recordkey.field": "id",
           "hoodie.datasource.write.precombine.field": "ts", "hoodie.datasource.write.partitionpath.field": "region",
           "hoodie.datasource.write.table.type": "MERGE_ON_READ", "hoodie.upsert.shuffle.parallelism": "1"}


def key(i: int) -> str:
    return f"k{i:03d}"


def region(i: int) -> str:
    return f"r{i % 3}"


def batches(commits: int, seed: int):
    """(n, op, keys, val) of each commit."""
    rng = random.Random(seed)
    for n in range(1, commits + 1):
        if n % 7 == 0:
            yield n, "delete", sorted(rng.sample(range(KEYS), 3)), None
        else:
            yield n, "upsert", sorted(rng.sample(range(KEYS), 10)), f"c{n}"


def main(path: str, results: str, commits: int, seed: int) -> None:
    spark = spark_session(**{"spark.master": "local[1]", "spark.ui.enabled": "false",
                             "spark.sql.shuffle.partitions": "1", "spark.driver.memory": "1g"})
    spark.sparkContext.setLogLevel("ERROR")
    table = HudiTable(spark, path, OPTIONS)
    with open(results, "a", encoding="utf-8") as out:
        for n, op, keys, val in batches(commits, seed):
            rows = spark.createDataFrame([(key(i), n, region(i), val) for i in keys], SCHEMA)
            instant = table.upsert(rows) if op == "upsert" else table.delete(rows)
            out.write(json.dumps({"n": n, "op": op, "keys": keys, "val": val, "instant": instant}) + "\n")
            out.flush()
    spark.stop()


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]))
