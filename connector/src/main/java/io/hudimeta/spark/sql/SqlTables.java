package io.hudimeta.spark.sql;

import io.hudimeta.spark.bridge.WriteClients;
import io.hudimeta.spark.options.SqlTableProperties;
import io.hudimeta.spark.options.WriteOptions;
import io.hudimeta.spark.source.HudiMetaSource;
import io.hudimeta.spark.source.HudiMetaTable;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.catalyst.TableIdentifier;
import org.apache.spark.sql.classic.SparkSession;
import org.apache.spark.sql.connector.catalog.CatalogV2Util;
import org.apache.spark.sql.connector.catalog.Column;
import org.apache.spark.sql.connector.catalog.Identifier;
import org.apache.spark.sql.connector.catalog.TableCatalog;
import org.apache.spark.sql.connector.catalog.TableChange;
import org.apache.spark.sql.connector.expressions.Transform;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import scala.Option;

/**
 * CREATE TABLE and ALTER TABLE of hudi-meta tables in the session catalog: the catalog keeps the
 * name, location and properties; the Hudi table at the location keeps everything else, and is
 * created with the catalog entry (hoodie.properties and its create schema, no instant) as Apache
 * Hudi's CREATE TABLE does.
 */
public final class SqlTables {

  private SqlTables() {}

  /** What the session catalog records for a new table. */
  public record Entry(Column[] columns, Map<String, String> properties, String location, boolean exists) {}

  /**
   * The catalog entry of a new table: partition columns last (as Spark and Hudi order them), a
   * managed table placed in the warehouse, and no columns when a Hudi table is already there
   * (its own schema, _hoodie_ columns included, is the table's).
   */
  public static Entry entry(
    Identifier ident,
    Column[] columns,
    Transform[] partitions,
    Map<String, String> properties
  ) {
    Map<String, String> props = new HashMap<>(properties);
    String location = props.get(TableCatalog.PROP_LOCATION);
    if (location == null) {
      location = defaultLocation(ident);
      props.put(TableCatalog.PROP_LOCATION, location);
      props.put(TableCatalog.PROP_IS_MANAGED_LOCATION, "true");
    }
    if (HudiMetaSource.tableExists(location)) {
      return new Entry(new Column[0], props, location, true);
    }
    if (columns.length == 0) {
      throw new IllegalArgumentException(
        "hudi-meta: CREATE TABLE " +
          ident.name() +
          ": there is no Hudi table at " +
          location +
          " to take the columns from; list the columns, or CREATE TABLE ... AS SELECT"
      );
    }
    SqlTableProperties.createOptions(null, ident.name(), List.of(), props); // fails early without a key
    return new Entry(partitionColumnsLast(columns, partitionNames(partitions)), props, location, false);
  }

  /** Creates the Hudi table of a new catalog entry: hoodie.properties with the columns as schema. */
  public static void create(Identifier ident, Entry entry, Transform[] partitions) {
    String db = ident.namespace().length > 0 ? ident.namespace()[ident.namespace().length - 1] : null;
    Map<String, String> options = SqlTableProperties.createOptions(
      db,
      ident.name(),
      partitionNames(partitions),
      entry.properties()
    );
    options.remove(TableCatalog.PROP_LOCATION);
    StructType schema = CatalogV2Util.v2ColumnsToStructType(entry.columns());
    WriteClients.get().createTable(entry.location(), options, schema.json());
  }

  /**
   * ALTER TABLE ... ADD COLUMNS as Apache Hudi runs it: one commit of no rows carrying the widened
   * schema, so every reader (and hudi-rs) sees the new nullable columns. Other column changes are
   * refused; property changes stay in the catalog.
   */
  public static void alter(HudiMetaTable table, TableChange[] changes) {
    List<StructField> added = new ArrayList<>();
    for (TableChange change : changes) {
      if (change instanceof TableChange.AddColumn add && add.fieldNames().length == 1) {
        added.add(
          new StructField(add.fieldNames()[0], add.dataType(), true, org.apache.spark.sql.types.Metadata.empty())
        );
      } else if (!(change instanceof TableChange.SetProperty) && !(change instanceof TableChange.RemoveProperty)) {
        throw new UnsupportedOperationException(
          "hudi-meta: ALTER TABLE " +
            table.config().tableName() +
            ": " +
            change.getClass().getSimpleName() +
            " is not supported; Hudi tables take ADD COLUMNS (top-level, nullable) and SET/UNSET TBLPROPERTIES"
        );
      }
    }
    if (added.isEmpty()) {
      return;
    }
    StructType data = table.dataSchema();
    for (StructField f : added) {
      data = data.add(f);
    }
    Map<String, String> options = new LinkedHashMap<>(table.writeOptions());
    options.put(WriteOptions.OPERATION, "upsert");
    SparkSession spark = SparkSession.active();
    WriteClients.write(spark.createDataFrame(List.<Row>of(), data), options, "append");
  }

  private static List<String> partitionNames(Transform[] partitions) {
    List<String> names = new ArrayList<>();
    for (Transform t : partitions) {
      if (!t.name().equals("identity") || t.references().length != 1) {
        throw new IllegalArgumentException(
          "hudi-meta: PARTITIONED BY " + t.describe() + ": Hudi tables are partitioned by columns; name them"
        );
      }
      names.add(String.join(".", t.references()[0].fieldNames()));
    }
    return names;
  }

  private static Column[] partitionColumnsLast(Column[] columns, List<String> partitionNames) {
    Map<String, Column> byName = new LinkedHashMap<>();
    List<Column> out = new ArrayList<>();
    for (Column c : columns) {
      if (partitionNames.stream().anyMatch(p -> p.equalsIgnoreCase(c.name()))) {
        byName.put(c.name().toLowerCase(java.util.Locale.ROOT), c);
      } else {
        out.add(c);
      }
    }
    for (String p : partitionNames) {
      Column c = byName.get(p.toLowerCase(java.util.Locale.ROOT));
      if (c == null) {
        throw new IllegalArgumentException("hudi-meta: partition column " + p + " is not a column of the table");
      }
      out.add(c);
    }
    return out.toArray(new Column[0]);
  }

  private static String defaultLocation(Identifier ident) {
    String[] ns = ident.namespace();
    Option<String> db = ns.length > 0 ? Option.apply(ns[ns.length - 1]) : Option.empty();
    var catalog = SparkSession.active().sessionState().catalog();
    return catalog.defaultTablePath(new TableIdentifier(ident.name(), db)).toString();
  }
}
