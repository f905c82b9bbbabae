package io.hudimeta.spark.options;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Apache Hudi's SQL table properties ({@code TBLPROPERTIES (primaryKey = 'id', preCombineField =
 * 'ts', type = 'mor')}) as the write options they stand for. One owner, so CREATE TABLE and every
 * later SQL write of the table read them alike; with the options rather than the SQL rules, since the
 * source's table turns them into write options for every write (HudiMetaTable.writeOptions).
 */
public final class SqlTableProperties {

  public static final String PRIMARY_KEY = "primaryKey";
  public static final String PRECOMBINE_FIELD = "preCombineField";
  public static final String ORDERING_FIELDS = "orderingFields";
  public static final String TYPE = "type";

  private SqlTableProperties() {}

  /**
   * {@code properties} with the write options their SQL keys name added (an explicit hoodie.* key
   * wins). Everything else is kept: pyhudi ignores keys that are not Hudi's.
   */
  public static Map<String, String> writeOptions(Map<String, String> properties) {
    Map<String, String> out = new LinkedHashMap<>(properties);
    String key = find(properties, PRIMARY_KEY);
    if (key != null) {
      out.putIfAbsent(WriteOptions.RECORD_KEY_FIELD, key);
    }
    String ordering = find(properties, PRECOMBINE_FIELD);
    ordering = ordering != null ? ordering : find(properties, ORDERING_FIELDS);
    if (ordering != null) {
      out.putIfAbsent(WriteOptions.PRECOMBINE_FIELD, ordering);
    }
    String type = find(properties, TYPE);
    if (type != null) {
      out.putIfAbsent(WriteOptions.TABLE_TYPE, tableType(type));
    }
    return out;
  }

  /**
   * The options that create table {@code name} of {@code database}, partitioned by {@code
   * partitionColumns}: Hudi's SQL defaults (hive-style partition paths) under the user's.
   */
  public static Map<String, String> createOptions(
    String database,
    String name,
    List<String> partitionColumns,
    Map<String, String> properties
  ) {
    if (find(properties, PRIMARY_KEY) == null && !properties.containsKey(WriteOptions.RECORD_KEY_FIELD)) {
      throw new IllegalArgumentException(
        "hudi-meta: CREATE TABLE " +
          name +
          " needs a primary key: add TBLPROPERTIES (primaryKey = '<column>'" +
          " [, preCombineField = '<column>'] [, type = 'cow' | 'mor'])"
      );
    }
    Map<String, String> out = writeOptions(properties);
    out.putIfAbsent(WriteOptions.TABLE_NAME, name);
    if (database != null) {
      out.putIfAbsent(WriteOptions.DATABASE_NAME, database);
    }
    if (!partitionColumns.isEmpty()) {
      out.putIfAbsent(WriteOptions.PARTITION_PATH_FIELD, String.join(",", partitionColumns));
    }
    out.putIfAbsent(WriteOptions.HIVE_STYLE_PARTITIONING, "true");
    return out;
  }

  private static String tableType(String type) {
    return switch (type.trim().toLowerCase(Locale.ROOT)) {
      case "cow", "copy_on_write" -> "COPY_ON_WRITE";
      case "mor", "merge_on_read" -> "MERGE_ON_READ";
      default -> throw new IllegalArgumentException(
        "hudi-meta: table property type = '" + type + "' is not a table type; use 'cow' or 'mor'"
      );
    };
  }

  /** A property whatever the case of its key: SQL keys are case-insensitive. */
  private static String find(Map<String, String> properties, String key) {
    for (Map.Entry<String, String> e : properties.entrySet()) {
      if (e.getKey().equalsIgnoreCase(key) && e.getValue() != null && !e.getValue().isBlank()) {
        return e.getValue().trim();
      }
    }
    return null;
  }
}
