package io.hudimeta.spark.source;

import io.hudimeta.index.IndexDefinitions;
import io.hudimeta.spark.bridge.WriteCallback;
import io.hudimeta.table.TableConfig;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import org.apache.spark.sql.connector.catalog.index.SupportsIndex;
import org.apache.spark.sql.connector.catalog.index.TableIndex;
import org.apache.spark.sql.connector.expressions.Expressions;
import org.apache.spark.sql.connector.expressions.NamedReference;

/**
 * SQL's CREATE INDEX / DROP INDEX / index listing over a Hudi table: the metadata table's index partitions.
 * {@code USING secondary_index} (the default) names a {@code secondary_index_<name>} partition on one column,
 * {@code USING record_index} the record index; pyhudi builds them with the indexing action and drops them
 * ({@link WriteCallback#createIndex}, {@link WriteCallback#dropIndex}). Existence is read from
 * hoodie.properties as stored now (built or being built), not from the snapshot the table was resolved with.
 */
final class TableIndexes {

  static final String SECONDARY = IndexDefinitions.SECONDARY_TYPE;
  static final String RECORD = "record_index";
  private static final String SECONDARY_PREFIX = IndexDefinitions.SECONDARY_PREFIX;

  private TableIndexes() {}

  /** The metadata-table partition of index {@code name} of type {@code type} (null: secondary). */
  static String partition(String name, String type) {
    if (RECORD.equals(type)) {
      return RECORD;
    }
    return name.startsWith(SECONDARY_PREFIX) ? name : SECONDARY_PREFIX + name;
  }

  /** The index type CREATE INDEX asked for ({@code USING ...}), checked. */
  static String type(Map<String, String> properties) {
    String type = properties.getOrDefault(SupportsIndex.PROP_TYPE, SECONDARY).toLowerCase(Locale.ROOT);
    if (!type.equals(SECONDARY) && !type.equals(RECORD)) {
      throw new IllegalArgumentException(
        "hudi-meta: CREATE INDEX ... USING " +
          type +
          " is not supported; use secondary_index (one column) or record_index"
      );
    }
    return type;
  }

  /** The one column a secondary index covers (none for the record index). */
  static String column(String type, NamedReference[] columns) {
    if (RECORD.equals(type)) {
      return "";
    }
    if (columns.length != 1 || columns[0].fieldNames().length != 1) {
      throw new IllegalArgumentException(
        "hudi-meta: a secondary index covers exactly one top-level column; CREATE INDEX name ON table (column)"
      );
    }
    return columns[0].fieldNames()[0];
  }

  /** The index options: CREATE INDEX's properties without the type. */
  static Map<String, String> options(Map<String, String> properties) {
    Map<String, String> out = new HashMap<>(properties);
    out.remove(SupportsIndex.PROP_TYPE);
    return out;
  }

  /** Whether the table lists index {@code name} (as a secondary index or the record index), built or being built. */
  static boolean exists(TableConfig config, String name) {
    return listed(config).contains(partition(name, RECORD.equals(name) ? RECORD : SECONDARY));
  }

  /** The indexes the table lists as built, a secondary index with the column its definition names. */
  static TableIndex[] list(TableConfig config, IndexDefinitions definitions) {
    List<TableIndex> out = new ArrayList<>();
    for (String p : config.metadataPartitions()) {
      if (p.equals(RECORD)) {
        out.add(new TableIndex(p, RECORD, new NamedReference[0], Map.of(), new Properties()));
      } else if (p.startsWith(SECONDARY_PREFIX)) {
        IndexDefinitions.Secondary d = definitions.secondary().get(p);
        NamedReference[] columns =
          d == null ? new NamedReference[0] : new NamedReference[] { Expressions.column(d.column()) };
        out.add(new TableIndex(p, SECONDARY, columns, Map.of(), new Properties()));
      }
    }
    return out.toArray(new TableIndex[0]);
  }

  private static Set<String> listed(TableConfig config) {
    Set<String> all = new java.util.HashSet<>(config.metadataPartitions());
    all.addAll(config.inflightMetadataPartitions());
    return all;
  }
}
