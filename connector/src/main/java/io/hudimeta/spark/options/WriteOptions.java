package io.hudimeta.spark.options;

import io.hudimeta.table.TableConfig;

/**
 * The write options the connector itself sets or reads, under Apache Hudi's keys (DataSourceWriteOptions),
 * before it hands a write to pyhudi, which validates them all. Keys that are also table properties keep
 * {@link TableConfig}'s constants.
 */
public final class WriteOptions {

  public static final String OPERATION = "hoodie.datasource.write.operation";
  /** What a delete_partition write deletes: partition paths, comma-separated. */
  public static final String PARTITIONS_TO_DELETE = "hoodie.datasource.write.partitions.to.delete";
  /** Apache Hudi's (DataSourceWriteOptions.SPARK_SQL_INSERT_INTO_OPERATION): what INSERT INTO runs, insert since 1.0. */
  public static final String INSERT_INTO_OPERATION = "hoodie.spark.sql.insert.into.operation";
  public static final String RECORD_KEY_FIELD = "hoodie.datasource.write.recordkey.field";
  public static final String PRECOMBINE_FIELD = "hoodie.datasource.write.precombine.field";
  public static final String TABLE_TYPE = "hoodie.datasource.write.table.type";
  public static final String PARTITION_PATH_FIELD = "hoodie.datasource.write.partitionpath.field";
  public static final String HIVE_STYLE_PARTITIONING = TableConfig.HIVE_STYLE_PARTITIONING;
  public static final String TABLE_NAME = TableConfig.NAME;
  public static final String DATABASE_NAME = TableConfig.DATABASE;
  public static final String INDEX_TYPE = "hoodie.index.type";
  /** Apache Hudi's switch: an update may move a record to another partition (global record index). */
  public static final String UPDATE_PARTITION_PATH = "hoodie.record.index.update.partition.path";

  private WriteOptions() {}
}
