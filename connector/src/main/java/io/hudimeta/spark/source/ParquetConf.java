package io.hudimeta.spark.source;

import io.hudimeta.conf.SharedConf;
import org.apache.hadoop.conf.Configuration;
import org.apache.parquet.hadoop.ParquetInputFormat;
import org.apache.spark.broadcast.Broadcast;
import org.apache.spark.sql.classic.SparkSession;
import org.apache.spark.sql.execution.datasources.parquet.ParquetReadSupport;
import org.apache.spark.sql.internal.SQLConf;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.util.SerializableConfiguration;

/**
 * The Hadoop configuration Spark's Parquet reader expects for one requested schema (what Spark's
 * own ParquetScan sets up), broadcast once per content ({@link SharedConf}).
 */
final class ParquetConf {

  private ParquetConf() {}

  static Broadcast<SerializableConfiguration> broadcast(SparkSession session, StructType readSchema) {
    SQLConf sql = session.sessionState().conf();
    Configuration conf = forSchema(session.sessionState().newHadoopConf(), readSchema);
    conf.set(SQLConf.SESSION_LOCAL_TIMEZONE().key(), sql.sessionLocalTimeZone());
    conf.setBoolean(SQLConf.NESTED_SCHEMA_PRUNING_ENABLED().key(), sql.nestedSchemaPruningEnabled());
    conf.setBoolean(SQLConf.CASE_SENSITIVE().key(), sql.caseSensitiveAnalysis());
    conf.setBoolean(SQLConf.PARQUET_BINARY_AS_STRING().key(), sql.isParquetBinaryAsString());
    conf.setBoolean(SQLConf.PARQUET_INT96_AS_TIMESTAMP().key(), sql.isParquetINT96AsTimestamp());
    conf.setBoolean(SQLConf.PARQUET_INFER_TIMESTAMP_NTZ_ENABLED().key(), sql.parquetInferTimestampNTZEnabled());
    conf.setBoolean(SQLConf.LEGACY_PARQUET_NANOS_AS_LONG().key(), sql.legacyParquetNanosAsLong());
    return SharedConf.of(session.sparkContext(), conf);
  }

  /** A copy of `base` asking Spark's Parquet read support for `readSchema`. */
  static Configuration forSchema(Configuration base, StructType readSchema) {
    Configuration conf = new Configuration(base);
    conf.set(ParquetInputFormat.READ_SUPPORT_CLASS, ParquetReadSupport.class.getName());
    conf.set(ParquetReadSupport.SPARK_ROW_REQUESTED_SCHEMA(), readSchema.json());
    conf.set("org.apache.spark.sql.parquet.row.attributes", readSchema.json());
    return conf;
  }
}
