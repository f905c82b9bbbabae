"""A streaming query into a Hudi table, run as its own process (the kill test SIGKILLs it): JSON files of
`source` into the table at `path`, one file per micro-batch, until every file is written (availableNow).

    python streaming_writer.py SOURCE TABLE CHECKPOINT TABLE_TYPE
"""
import sys

from pyhudi import spark_session


def main(source: str, path: str, checkpoint: str, table_type: str) -> None:
    spark = spark_session(**{"spark.master": "local[2]", "spark.ui.enabled": "false",
                             "spark.sql.shuffle.partitions": "2"})
    spark.sparkContext.setLogLevel("ERROR")
    options = {"hoodie.table.name": "stream", "hoodie.datasource.write.recordkey.field": "id",
               "hoodie.datasource.write.precombine.field": "ts", "hoodie.datasource.write.partitionpath.field": "p",
               "hoodie.datasource.write.table.type": table_type, "hoodie.compact.inline.max.delta.commits": "3"}
    rows = spark.readStream.schema("id long, ts long, p string, v string").option("maxFilesPerTrigger", 1).json(source)
    query = (rows.writeStream.format("hudi-meta").options(**options).option("checkpointLocation", checkpoint)
             .trigger(availableNow=True).start(path))
    query.awaitTermination()


if __name__ == "__main__":
    main(*sys.argv[1:5])
