package io.hudimeta.spark.source;

import io.hudimeta.spark.bridge.WriteClients;
import io.hudimeta.spark.options.ReadOptions;
import io.hudimeta.spark.options.WriteOptions;
import io.hudimeta.spark.plan.TableSnapshot;
import io.hudimeta.spark.streaming.HudiStreamingSink;
import io.hudimeta.table.TableConfig;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Locale;
import java.util.Map;
import org.apache.hadoop.fs.Path;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SQLContext;
import org.apache.spark.sql.SaveMode;
import org.apache.spark.sql.classic.SparkSession;
import org.apache.spark.sql.connector.catalog.Table;
import org.apache.spark.sql.connector.catalog.TableProvider;
import org.apache.spark.sql.connector.expressions.Transform;
import org.apache.spark.sql.execution.streaming.Sink;
import org.apache.spark.sql.sources.BaseRelation;
import org.apache.spark.sql.sources.CreatableRelationProvider;
import org.apache.spark.sql.sources.DataSourceRegister;
import org.apache.spark.sql.sources.StreamSinkProvider;
import org.apache.spark.sql.streaming.OutputMode;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;

/**
 * Entry point of format("hudi-meta"). Reads go through the V2 table. Writes are handed to the
 * pyhudi write client: {@code DataFrameWriter.save} comes through {@link #createRelation} for
 * every save mode (the table does not advertise BATCH_WRITE, see HudiMetaTable), which pyhudi
 * applies, other V2 write plans through the table's V1Write.
 */
public final class HudiMetaSource
  implements TableProvider, DataSourceRegister, CreatableRelationProvider, StreamSinkProvider
{

  public static final String SHORT_NAME = ReadOptions.FORMAT;

  // Spark makes a provider per lookup and calls inferSchema then getTable on it: keep the snapshot
  // the schema came from, so a read loads the table once.
  private TableSnapshot inferred;

  @Override
  public String shortName() {
    return SHORT_NAME;
  }

  @Override
  public StructType inferSchema(CaseInsensitiveStringMap options) {
    inferred = TableSnapshot.load(ReadOptions.parse(options));
    return inferred.schema();
  }

  /** Lets a write pass the DataFrame's schema, so no table has to exist (or be read) to write one. */
  @Override
  public boolean supportsExternalMetadata() {
    return true;
  }

  @Override
  public Table getTable(StructType schema, Transform[] partitioning, Map<String, String> properties) {
    TableSnapshot known = inferred != null && inferred.schema() == schema ? inferred : null;
    return new HudiMetaTable(properties, schema, known);
  }

  @Override
  public BaseRelation createRelation(
    SQLContext sqlContext,
    SaveMode mode,
    scala.collection.immutable.Map<String, String> parameters,
    Dataset<Row> data
  ) {
    // pyhudi owns what each mode means (pyhudi.spark.save_modes): ErrorIfExists and Ignore included
    Map<String, String> options = scala.jdk.javaapi.CollectionConverters.asJava(parameters);
    WriteClients.write(data, options, mode.name().toLowerCase(Locale.ROOT));
    return new WrittenRelation(sqlContext, data.schema());
  }

  /** {@code writeStream.format("hudi-meta")}: a sink that writes each micro-batch through pyhudi. */
  @Override
  public Sink createSink(
    SQLContext sqlContext,
    scala.collection.immutable.Map<String, String> parameters,
    scala.collection.immutable.Seq<String> partitionColumns,
    OutputMode outputMode
  ) {
    if (outputMode != OutputMode.Append()) {
      throw new IllegalArgumentException(
        "hudi-meta: a streaming write upserts each micro-batch; use outputMode(\"append\"), not " + outputMode
      );
    }
    Map<String, String> options = new java.util.HashMap<>(scala.jdk.javaapi.CollectionConverters.asJava(parameters));
    if (!partitionColumns.isEmpty()) {
      options.putIfAbsent(WriteOptions.PARTITION_PATH_FIELD, partitionColumns.mkString(","));
    }
    return new HudiStreamingSink(sqlContext, options);
  }

  /** {@link TableConfig#exists} of the table at {@code path}, on the active session's file system. */
  public static boolean tableExists(String path) {
    Path base = new Path(path);
    try {
      return TableConfig.exists(base.getFileSystem(SparkSession.active().sessionState().newHadoopConf()), base);
    } catch (IOException e) {
      throw new UncheckedIOException("hudi-meta: cannot reach " + path, e);
    }
  }

  /** What createRelation must return; Spark only uses it to refresh caches of the written path. */
  private static final class WrittenRelation extends BaseRelation {

    private final SQLContext sqlContext;
    private final StructType schema;

    WrittenRelation(SQLContext sqlContext, StructType schema) {
      this.sqlContext = sqlContext;
      this.schema = schema;
    }

    @Override
    public SQLContext sqlContext() {
      return sqlContext;
    }

    @Override
    public StructType schema() {
      return schema;
    }
  }
}
