package io.hudimeta.spark.bridge;

import java.util.Map;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;

/**
 * The writer behind format("hudi-meta"). The connector only reads; pyhudi writes, and registers an
 * implementation of this interface over py4j (see {@link WriteClients}).
 */
public interface WriteCallback {
  /**
   * Writes {@code df} to the table at {@code path}.
   *
   * @param options the write options (Apache Hudi's keys), without "path"
   * @param mode a Spark save mode in lower case: "append", "overwrite", "errorifexists" or "ignore"
   * @return what the commit did, a JSON object {@code {"instant", "inserted", "updated", "deleted"}}, or null
   *     when nothing was written (mode "ignore" on an existing table)
   */
  String write(Dataset<Row> df, String path, Map<String, String> options, String mode);

  /**
   * Writes micro-batch {@code batchId} of a streaming query, unless the table already holds it.
   *
   * @param writer the query's identity recorded with the batch: application id and query id
   */
  void writeBatch(Dataset<Row> df, String path, Map<String, String> options, long batchId, String writer);

  /**
   * Creates the Hudi table at {@code path} without writing rows (SQL CREATE TABLE): hoodie.properties
   * and the timeline folders, no instant.
   *
   * @param options the table's write options (Apache Hudi's keys), without "path"
   * @param schemaJson the table's data columns, a Spark StructType as JSON
   */
  void createTable(String path, Map<String, String> options, String schemaJson);

  /**
   * Runs a table procedure (SQL {@code CALL name(...)}) in pyhudi.
   *
   * @param name the procedure's name as Apache Hudi spells it, e.g. "run_clean"
   * @param path the table's location
   * @param args the call's arguments other than the table, rendered as strings
   * @return the result rows, a JSON array of objects keyed by output column
   */
  String procedure(String name, String path, Map<String, String> args);

  /**
   * Builds an index partition of the table's metadata table with the indexing action (SQL CREATE INDEX).
   *
   * @param partition {@code record_index} or {@code secondary_index_<name>}
   * @param column the column a secondary index covers ("" for the record index)
   * @param options the index options (Apache Hudi's keys)
   */
  void createIndex(String path, String partition, String column, Map<String, String> options);

  /** Drops an index partition of the table's metadata table (SQL DROP INDEX). */
  void dropIndex(String path, String partition);
}
