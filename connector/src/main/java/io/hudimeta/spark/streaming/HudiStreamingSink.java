package io.hudimeta.spark.streaming;

import io.hudimeta.spark.bridge.WriteClients;
import java.util.Map;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SQLContext;
import org.apache.spark.sql.execution.LogicalRDD;
import org.apache.spark.sql.execution.LogicalRDD$;
import org.apache.spark.sql.execution.streaming.Sink;

/**
 * {@code df.writeStream.format("hudi-meta")}: each micro-batch is handed to pyhudi as one write,
 * which skips a batch the table already holds (see pyhudi.spark.streaming), so a query restarted
 * from its checkpoint writes every batch exactly once.
 */
public final class HudiStreamingSink implements Sink {

  // Spark's StreamExecution.QUERY_ID_KEY: the local property naming the running query
  private static final String QUERY_ID = "sql.streaming.queryId";

  private final SQLContext sqlContext;
  private final Map<String, String> options;

  public HudiStreamingSink(SQLContext sqlContext, Map<String, String> options) {
    this.sqlContext = sqlContext;
    this.options = options;
  }

  @Override
  public void addBatch(long batchId, Dataset<Row> data) {
    String query = sqlContext.sparkContext().getLocalProperty(QUERY_ID);
    String writer = sqlContext.sparkContext().applicationId() + "-" + query;
    WriteClients.get().writeBatch(
      asBatch(data),
      WriteClients.path(options),
      WriteClients.withoutPath(options),
      batchId,
      writer
    );
  }

  /**
   * The micro-batch as a plain DataFrame over the rows its incremental execution computes (as Spark's
   * foreachBatch hands it over): a streaming plan cannot start new queries, and the write runs several.
   */
  private static Dataset<Row> asBatch(Dataset<Row> data) {
    org.apache.spark.sql.classic.Dataset<Row> batch = (org.apache.spark.sql.classic.Dataset<Row>) data;
    LogicalRDD rows = LogicalRDD$.MODULE$.fromDataset(batch.queryExecution().toRdd(), batch, false, false);
    return org.apache.spark.sql.classic.Dataset$.MODULE$.ofRows(batch.sparkSession(), rows);
  }

  @Override
  public String toString() {
    return "HudiStreamingSink[" + WriteClients.path(options) + "]";
  }
}
