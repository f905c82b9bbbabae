package io.hudimeta.spark;

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
   */
  void write(Dataset<Row> df, String path, Map<String, String> options, String mode);
}
