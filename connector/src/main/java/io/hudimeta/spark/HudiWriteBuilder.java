package io.hudimeta.spark;

import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.connector.expressions.NamedReference;
import org.apache.spark.sql.connector.expressions.filter.Predicate;
import org.apache.spark.sql.connector.write.SupportsDynamicOverwrite;
import org.apache.spark.sql.connector.write.SupportsOverwriteV2;
import org.apache.spark.sql.connector.write.V1Write;
import org.apache.spark.sql.connector.write.Write;
import org.apache.spark.sql.connector.write.WriteBuilder;
import org.apache.spark.sql.sources.InsertableRelation;

/**
 * Writes through the V2 table: a V1Write, so the whole DataFrame (not partitions of rows) reaches
 * the pyhudi write client, which plans the commit on the driver. A truncate is Spark's Overwrite
 * (insert_overwrite_table); an overwrite of some partitions (INSERT OVERWRITE ... PARTITION, or
 * dynamic partition overwrite) is Hudi's insert_overwrite of the partitions the rows fall in.
 */
final class HudiWriteBuilder implements SupportsOverwriteV2, SupportsDynamicOverwrite {

  private static final String OPERATION = "hoodie.datasource.write.operation";

  private final Map<String, String> options;
  private final TablePartitions partitions;
  private String mode = "append";

  /** {@code options}: the write options, "path" included. */
  HudiWriteBuilder(Map<String, String> options, TablePartitions partitions) {
    this.options = options;
    this.partitions = partitions;
  }

  @Override
  public WriteBuilder truncate() {
    mode = "overwrite";
    return this;
  }

  @Override
  public boolean canOverwrite(Predicate[] predicates) {
    List<String> columns = Arrays.asList(partitions.schema().fieldNames());
    for (Predicate p : predicates) {
      for (NamedReference ref : p.references()) {
        if (ref.fieldNames().length != 1 || !columns.contains(ref.fieldNames()[0])) {
          return false; // Hudi replaces whole partitions, not rows matching a filter
        }
      }
    }
    return true;
  }

  @Override
  public WriteBuilder overwrite(Predicate[] predicates) {
    return overwriteDynamicPartitions();
  }

  @Override
  public WriteBuilder overwriteDynamicPartitions() {
    options.put(OPERATION, "insert_overwrite");
    return this;
  }

  @Override
  public Write build() {
    String chosen = mode;
    return new V1Write() {
      @Override
      public InsertableRelation toInsertableRelation() {
        return (data, overwrite) -> WriteClients.write(data, options, overwrite ? "overwrite" : chosen);
      }

      @Override
      public String description() {
        return "hudi-meta " + chosen + " via pyhudi";
      }
    };
  }
}
