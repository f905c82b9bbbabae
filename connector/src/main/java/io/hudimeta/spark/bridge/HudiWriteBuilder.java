package io.hudimeta.spark.bridge;

import io.hudimeta.spark.options.WriteOptions;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.apache.spark.sql.connector.expressions.NamedReference;
import org.apache.spark.sql.connector.expressions.filter.Predicate;
import org.apache.spark.sql.connector.write.SupportsDynamicOverwrite;
import org.apache.spark.sql.connector.write.SupportsOverwriteV2;
import org.apache.spark.sql.connector.write.V1Write;
import org.apache.spark.sql.connector.write.Write;
import org.apache.spark.sql.connector.write.WriteBuilder;
import org.apache.spark.sql.sources.InsertableRelation;
import org.apache.spark.sql.types.StructType;

/**
 * Writes through the V2 table: a V1Write, so the whole DataFrame (not partitions of rows) reaches
 * the pyhudi write client, which plans the commit on the driver. A truncate is Spark's Overwrite
 * (insert_overwrite_table); an overwrite of some partitions (INSERT OVERWRITE ... PARTITION, or
 * dynamic partition overwrite) is Hudi's insert_overwrite of the partitions the rows fall in.
 */
public final class HudiWriteBuilder implements SupportsOverwriteV2, SupportsDynamicOverwrite {

  private static final List<String> INSERT_INTO_OPERATIONS = List.of("insert", "upsert", "bulk_insert");

  private final Map<String, String> options;
  private final StructType partitionSchema;
  private String mode = "append";

  /** {@code options}: the write options, "path" included; {@code partitionSchema}: the table's partition columns. */
  public HudiWriteBuilder(Map<String, String> options, StructType partitionSchema) {
    this.options = options;
    this.partitionSchema = partitionSchema;
  }

  @Override
  public WriteBuilder truncate() {
    mode = "overwrite";
    return this;
  }

  @Override
  public boolean canOverwrite(Predicate[] predicates) {
    List<String> columns = Arrays.asList(partitionSchema.fieldNames());
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
    options.put(WriteOptions.OPERATION, "insert_overwrite");
    return this;
  }

  @Override
  public Write build() {
    String chosen = mode;
    String insertInto = options.remove(WriteOptions.INSERT_INTO_OPERATION);
    if (chosen.equals("append") && !options.containsKey(WriteOptions.OPERATION)) {
      options.put(WriteOptions.OPERATION, insertIntoOperation(insertInto));
    }
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

  /** INSERT INTO's operation: Hudi's hoodie.spark.sql.insert.into.operation, insert by default as in Hudi 1.x. */
  private static String insertIntoOperation(String given) {
    String op = given == null ? "insert" : given.trim().toLowerCase(Locale.ROOT);
    if (!INSERT_INTO_OPERATIONS.contains(op)) {
      throw new IllegalArgumentException(
        "hudi-meta: " +
          WriteOptions.INSERT_INTO_OPERATION +
          "=" +
          given +
          " is not valid; valid values: " +
          INSERT_INTO_OPERATIONS
      );
    }
    return op;
  }
}
