package io.hudimeta.spark;

import java.util.Map;
import org.apache.spark.sql.connector.write.SupportsTruncate;
import org.apache.spark.sql.connector.write.V1Write;
import org.apache.spark.sql.connector.write.Write;
import org.apache.spark.sql.connector.write.WriteBuilder;
import org.apache.spark.sql.sources.InsertableRelation;

/**
 * Writes through the V2 table: a V1Write, so the whole DataFrame (not partitions of rows) reaches
 * the pyhudi write client, which plans the commit on the driver. A truncate is Spark's Overwrite.
 */
final class HudiWriteBuilder implements SupportsTruncate {

  private final Map<String, String> options;
  private boolean truncate;

  /** {@code options}: the write options, "path" included. */
  HudiWriteBuilder(Map<String, String> options) {
    this.options = options;
  }

  @Override
  public WriteBuilder truncate() {
    truncate = true;
    return this;
  }

  @Override
  public Write build() {
    String mode = truncate ? "overwrite" : "append";
    return new V1Write() {
      @Override
      public InsertableRelation toInsertableRelation() {
        return (data, overwrite) -> WriteClients.write(data, options, overwrite ? "overwrite" : mode);
      }

      @Override
      public String description() {
        return "hudi-meta " + mode + " via pyhudi";
      }
    };
  }
}
