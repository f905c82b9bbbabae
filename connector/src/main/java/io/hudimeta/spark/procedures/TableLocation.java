package io.hudimeta.spark.procedures;

import io.hudimeta.HudiException;
import org.apache.spark.sql.catalyst.TableIdentifier;
import org.apache.spark.sql.catalyst.catalog.CatalogTable;
import org.apache.spark.sql.classic.SparkSession;

/** The base path a call names: its {@code table} (of the session catalog) or its {@code path}. */
final class TableLocation {

  private TableLocation() {}

  /** As Hudi's procedures: the table when given, else the path. */
  static String of(String procedure, String table, String path) {
    if (table != null && !table.isBlank()) {
      return location(procedure, table);
    }
    if (path != null && !path.isBlank()) {
      return path;
    }
    throw new HudiException(
      "CALL " + procedure + ": give the table (table => 'name') or its base path (path => '...')"
    );
  }

  private static String location(String procedure, String table) {
    SparkSession spark = SparkSession.active();
    CatalogTable meta;
    try {
      TableIdentifier ident = spark.sessionState().sqlParser().parseTableIdentifier(table);
      meta = spark.sessionState().catalog().getTableMetadata(ident);
    } catch (Exception e) {
      // ParseException, NoSuchTableException, NoSuchDatabaseException
      throw new HudiException("CALL " + procedure + ": no table " + table + " in the session catalog", e);
    }
    if (meta.storage().locationUri().isEmpty()) {
      throw new HudiException("CALL " + procedure + ": table " + table + " has no location");
    }
    return meta.location().toString();
  }
}
