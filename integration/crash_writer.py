"""A writer process for the crash harness: one upsert, run with PYHUDI_CRASH_AT set so that it
kills itself at that point of the write protocol.

python integration/crash_writer.py TABLE_PATH TABLE_TYPE FIRST_KEY [OPTIONS_JSON]

CRASH_WRITER_SPARK_CONF, a JSON object, adds Spark settings (a table on S3: its fs.s3a.* keys).
"""
import json
import os
import sys

from scenario import SCHEMA, options, rows

from pyhudi import spark_session
from pyhudi.hudi_table import HudiTable


def main() -> None:
    path, table_type, first = sys.argv[1], sys.argv[2], int(sys.argv[3])
    extra = json.loads(sys.argv[4]) if len(sys.argv) > 4 else {}
    spark = spark_session(**{"spark.master": "local[2]", "spark.ui.enabled": "false",
                             "spark.sql.shuffle.partitions": "2",
                             **json.loads(os.environ.get("CRASH_WRITER_SPARK_CONF", "{}"))})
    batch = spark.createDataFrame(rows(first, 40, ts=500), SCHEMA)
    HudiTable(spark, path, {**options(table_type), **extra}).upsert(batch)
    spark.stop()


if __name__ == "__main__":
    main()
