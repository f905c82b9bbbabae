"""The interop scenario in local-cluster[2,1,1024]: executors are separate JVMs (and Python
workers), so everything a write or read needs must cross the process boundary, through Kryo (the
serializer Hudi's setup guides ask for, which cannot write Java records).

python integration/cluster_interop.py TABLE_PATH   -> prints one JSON line with the results
"""
import json
import os
import sys

import pyarrow as pa

from pyhudi import spark_session
from pyhudi.hudi_table import HudiTable

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))  # run as a script: the project root, for tests/
from tests.canonical import canon  # noqa: E402

SCHEMA = "id string, ts long, region string, amount double"


def hudi_rs(path):
    from hudi import HudiTableBuilder
    return canon(pa.Table.from_batches(HudiTableBuilder.from_base_uri(path).build().read()))


def record_index_lookups(spark, p) -> dict:
    """Keys located by the executors (their packs shuffled to their file group's task) against the driver's lookup."""
    from pyhudi.write.index import record as record_index

    t = HudiTable(spark, p, {"hoodie.table.name": "ri", "hoodie.datasource.write.recordkey.field": "id",
                             "hoodie.datasource.write.precombine.field": "ts",
                             "hoodie.datasource.write.partitionpath.field": "region",
                             "hoodie.metadata.record.index.enable": "true", "hoodie.index.type": "RECORD_INDEX"})
    t.insert(spark.createDataFrame([(f"k{i}", 1, ("eu", "us")[i % 2], float(i)) for i in range(2000)], SCHEMA))
    wanted = [f"k{i}" for i in range(0, 2200, 7)]
    keys = spark.createDataFrame([(k,) for k in wanted], "_hudi_bk string").cache()
    keys.count()
    driver = json.loads(spark._jvm.io.hudimeta.index.RecordIndex.lookupJson(p, {}, json.dumps(wanted)))
    located = record_index.locate(spark, p, {}, keys)
    found = {r[0]: (r[1], r[2]) for r in located.collect()}
    shuffles = located._jdf.queryExecution().toRdd().toDebugString().count("ShuffledRDD")
    expected = {k: (v["partition"], v["fileId"]) for k, v in driver.items()}
    return {"driver": len(driver), "found_as_driver": found == expected, "shuffles": shuffles}


def main() -> None:
    path = sys.argv[1]
    project = os.path.dirname(HERE)
    spark = spark_session(**{"spark.master": "local-cluster[2,1,1024]", "spark.ui.enabled": "false",
                             "spark.sql.shuffle.partitions": "4", "spark.executorEnv.PYTHONPATH": project,
                             # Hudi's setup guides ask for Kryo; what crosses Spark's serializer must pass it
                             "spark.serializer": "org.apache.spark.serializer.KryoSerializer"})
    out = {}
    for table_type in ("COPY_ON_WRITE", "MERGE_ON_READ"):
        p = f"{path}/{table_type}"
        t = HudiTable(spark, p, {"hoodie.table.name": "cluster", "hoodie.datasource.write.recordkey.field": "id",
                                 "hoodie.datasource.write.precombine.field": "ts",
                                 "hoodie.datasource.write.partitionpath.field": "region",
                                 "hoodie.datasource.write.table.type": table_type})
        rows = {f"k{i}": (f"k{i}", 1, ("eu", "us", "apac")[i % 3], float(i)) for i in range(3000)}
        first = spark.createDataFrame(list(rows.values()), SCHEMA)
        if table_type == "COPY_ON_WRITE":  # the JVM's row writer: its job crosses the executors' serializer
            t.bulk_insert(first, {"hoodie.datasource.write.row.writer.enable": "true"})
        else:
            t.insert(first)
        upd = [(f"k{i}", 2 if i % 2 else 0, ("eu", "us", "apac")[i % 3], -float(i)) for i in range(0, 3000, 5)]
        t.upsert(spark.createDataFrame(upd, SCHEMA))
        for r in upd:
            if r[1] >= 1:
                rows[r[0]] = r
        t.delete(spark.createDataFrame([rows[f"k{i}"] for i in range(1, 3000, 50)], SCHEMA))
        for i in range(1, 3000, 50):
            rows.pop(f"k{i}")
        want = canon(pa.Table.from_pylist([dict(zip(("id", "ts", "region", "amount"), r)) for r in rows.values()]))
        ours = canon(t.read().toArrow())
        out[table_type] = {"rows": len(ours["rows"]), "connector_ok": ours == want, "hudi_rs_ok": hudi_rs(p) == want}
    out["record_index"] = record_index_lookups(spark, f"{path}/record_index")
    # executor JVMs seen (the driver is in the map too)
    out["executors"] = spark.sparkContext._jsc.sc().getExecutorMemoryStatus().size() - 1
    print(json.dumps(out))
    spark.stop()


if __name__ == "__main__":
    main()
