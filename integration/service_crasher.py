"""A table-service process for the crash harness: runs one service on a table, with PYHUDI_CRASH_AT set
so that it kills itself at that step.

python integration/service_crasher.py TABLE_PATH SERVICE [SAVEPOINT]   (compaction, logcompaction, clustering,
                                                                        clean, restore SAVEPOINT)
"""
import sys

from pyhudi import spark_session

SERVICES = ("compaction", "logcompaction", "clustering", "clean", "restore")
LOG_COMPACTION = {"hoodie.log.compaction.blocks.threshold": "2"}  # the prepared table's slices have 2 blocks


def main() -> None:
    path, service = sys.argv[1], sys.argv[2]
    if service == "clean":
        from pyhudi.services import clean
        clean.clean(path, {"hoodie.cleaner.commits.retained": "1"})
        return
    if service == "restore":
        from pyhudi.services import restore
        restore.restore(path, sys.argv[3])
        return
    spark = spark_session(**{"spark.master": "local[2]", "spark.ui.enabled": "false",
                             "spark.sql.shuffle.partitions": "2"})
    if service == "compaction":
        from pyhudi.services import compaction
        compaction.compact(spark, path)
    elif service == "logcompaction":
        from pyhudi.services import log_compaction
        log_compaction.log_compact(spark, path, LOG_COMPACTION)
    elif service == "clustering":
        from pyhudi.services import clustering
        clustering.cluster(spark, path, {"hoodie.clustering.plan.strategy.sort.columns": "val"})
    else:
        raise SystemExit(f"unknown service {service}; one of {', '.join(SERVICES)}")
    spark.stop()


if __name__ == "__main__":
    main()
