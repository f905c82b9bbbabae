package io.hudimeta.spark;

import java.time.Instant;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.HashMap;
import java.util.Map;
import org.apache.spark.sql.catalyst.analysis.NoSuchTableException;
import org.apache.spark.sql.catalyst.catalog.CatalogTable;
import org.apache.spark.sql.connector.catalog.DelegatingCatalogExtension;
import org.apache.spark.sql.connector.catalog.Identifier;
import org.apache.spark.sql.connector.catalog.Table;
import org.apache.spark.sql.connector.catalog.V1Table;
import org.apache.spark.sql.internal.SQLConf;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;
import scala.jdk.javaapi.CollectionConverters;

/**
 * Session catalog extension that gives hudi-meta tables SQL time travel (`VERSION AS OF`,
 * `TIMESTAMP AS OF`): Spark's own session catalog refuses time travel for every table, so it is
 * routed here, as other table formats do. Everything else is delegated unchanged.
 * Enable with spark.sql.catalog.spark_catalog=io.hudimeta.spark.HudiCatalog (pyhudi.spark_session does).
 */
public final class HudiCatalog extends DelegatingCatalogExtension {

  private static final DateTimeFormatter INSTANT = DateTimeFormatter.ofPattern("yyyyMMddHHmmssSSS");

  /** Spark leaves a custom session catalog to resolve V2 providers itself: hudi-meta tables here. */
  @Override
  public Table loadTable(Identifier ident) throws NoSuchTableException {
    Map<String, String> options = hudiOptions(ident);
    return options == null ? super.loadTable(ident) : new HudiMetaTable(options, null, null);
  }

  @Override
  public Table loadTable(Identifier ident, String version) throws NoSuchTableException {
    Map<String, String> options = hudiOptions(ident);
    return options == null ? super.loadTable(ident, version) : asOf(options, version);
  }

  @Override
  public Table loadTable(Identifier ident, long timestampMicros) throws NoSuchTableException {
    Map<String, String> options = hudiOptions(ident);
    if (options == null) {
      return super.loadTable(ident, timestampMicros);
    }
    // instant times are wall-clock times of the writer: render the timestamp in the session zone
    Instant at = Instant.ofEpochSecond(0, Math.multiplyExact(timestampMicros, 1000L));
    return asOf(options, INSTANT.format(at.atZone(ZoneId.of(SQLConf.get().sessionLocalTimeZone()))));
  }

  /**
   * The options of a hudi-meta table of the session catalog, or null for any other table: like
   * Spark's V2SessionCatalog, its properties and location as "path", plus its OPTIONS (kept apart
   * when the table was created through the V1 catalog).
   */
  private Map<String, String> hudiOptions(Identifier ident) throws NoSuchTableException {
    Table t = super.loadTable(ident); // the session catalog's own entry (a V1Table for hudi-meta tables)
    if (
      !(t instanceof V1Table v1) ||
      !v1.v1Table().provider().isDefined() ||
      !HudiMetaSource.SHORT_NAME.equalsIgnoreCase(v1.v1Table().provider().get())
    ) {
      return null;
    }
    CatalogTable table = v1.v1Table();
    Map<String, String> options = new HashMap<>(CollectionConverters.asJava(table.properties()));
    options.putAll(CollectionConverters.asJava(table.storage().properties()));
    options.put("path", table.location().toString());
    return options;
  }

  private static Table asOf(Map<String, String> tableOptions, String instant) {
    Map<String, String> options = new HashMap<>(tableOptions);
    options.put(ReadOptions.AS_OF, instant);
    return new HudiMetaTable(
      options,
      null,
      TableSnapshot.load(ReadOptions.parse(new CaseInsensitiveStringMap(options)))
    );
  }
}
