package io.hudimeta.spark.sql;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Apache Hudi's SQL table properties ({@code TBLPROPERTIES (primaryKey = 'id', preCombineField =
 * 'ts', type = 'mor')}) as the write options they stand for. One owner, so CREATE TABLE and every
 * later SQL write of the table read them alike.
 */
public final class SqlTableProperties {

  public static final String PRIMARY_KEY = "primaryKey";
  public static final String PRECOMBINE_FIELD = "preCombineField";
  public static final String ORDERING_FIELDS = "orderingFields";
  public static final String TYPE = "type";

  static final String RECORD_KEY_OPTION = "hoodie.datasource.write.recordkey.field";
  static final String ORDERING_OPTION = "hoodie.datasource.write.precombine.field";
  static final String TABLE_TYPE_OPTION = "hoodie.datasource.write.table.type";
  static final String PARTITION_OPTION = "hoodie.datasource.write.partitionpath.field";
  static final String HIVE_STYLE_OPTION = "hoodie.datasource.write.hive_style_partitioning";
  static final String TABLE_NAME_OPTION = "hoodie.table.name";
  static final String DATABASE_OPTION = "hoodie.database.name";

  private SqlTableProperties() {}

  /**
   * {@code properties} with the write options their SQL keys name added (an explicit hoodie.* key
   * wins). Everything else is kept: pyhudi ignores keys that are not Hudi's.
   */
  public static Map<String, String> writeOptions(Map<String, String> properties) {
    Map<String, String> out = new LinkedHashMap<>(properties);
    String key = find(properties, PRIMARY_KEY);
    if (key != null) {
      out.putIfAbsent(RECORD_KEY_OPTION, key);
    }
    String ordering = find(properties, PRECOMBINE_FIELD);
    ordering = ordering != null ? ordering : find(properties, ORDERING_FIELDS);
    if (ordering != null) {
      out.putIfAbsent(ORDERING_OPTION, ordering);
    }
    String type = find(properties, TYPE);
    if (type != null) {
      out.putIfAbsent(TABLE_TYPE_OPTION, tableType(type));
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
    if (find(properties, PRIMARY_KEY) == null && !properties.containsKey(RECORD_KEY_OPTION)) {
      throw new IllegalArgumentException(
        "hudi-meta: CREATE TABLE " +
          name +
          " needs a primary key: add TBLPROPERTIES (primaryKey = '<column>'" +
          " [, preCombineField = '<column>'] [, type = 'cow' | 'mor'])"
      );
    }
    Map<String, String> out = writeOptions(properties);
    out.putIfAbsent(TABLE_NAME_OPTION, name);
    if (database != null) {
      out.putIfAbsent(DATABASE_OPTION, database);
    }
    if (!partitionColumns.isEmpty()) {
      out.putIfAbsent(PARTITION_OPTION, String.join(",", partitionColumns));
    }
    out.putIfAbsent(HIVE_STYLE_OPTION, "true");
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
