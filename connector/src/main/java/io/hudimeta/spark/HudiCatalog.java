package io.hudimeta.spark;

import java.time.Instant;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.Map;

import org.apache.spark.sql.catalyst.analysis.NoSuchTableException;
import org.apache.spark.sql.connector.catalog.DelegatingCatalogExtension;
import org.apache.spark.sql.connector.catalog.Identifier;
import org.apache.spark.sql.connector.catalog.Table;
import org.apache.spark.sql.connector.catalog.V1Table;
import org.apache.spark.sql.internal.SQLConf;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;

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
    String path = hudiLocation(ident);
    return path == null ? super.loadTable(ident) : new HudiMetaTable(Map.of("path", path), null, null);
  }

  @Override
  public Table loadTable(Identifier ident, String version) throws NoSuchTableException {
    String path = hudiLocation(ident);
    return path == null ? super.loadTable(ident, version) : asOf(path, version);
  }

  @Override
  public Table loadTable(Identifier ident, long timestampMicros) throws NoSuchTableException {
    String path = hudiLocation(ident);
    if (path == null) {
      return super.loadTable(ident, timestampMicros);
    }
    // instant times are wall-clock times of the writer: render the timestamp in the session zone
    Instant at = Instant.ofEpochSecond(0, Math.multiplyExact(timestampMicros, 1000L));
    return asOf(path, INSTANT.format(at.atZone(ZoneId.of(SQLConf.get().sessionLocalTimeZone()))));
  }

  /** The location of a hudi-meta table of the session catalog, or null for any other table. */
  private String hudiLocation(Identifier ident) throws NoSuchTableException {
    Table t = super.loadTable(ident); // the session catalog's own entry (a V1Table for hudi-meta tables)
    if (t instanceof V1Table v1 && v1.v1Table().provider().isDefined()
        && HudiMetaSource.SHORT_NAME.equalsIgnoreCase(v1.v1Table().provider().get())) {
      return v1.v1Table().location().toString();
    }
    return null;
  }

  private static Table asOf(String path, String instant) {
    Map<String, String> options = Map.of("path", path, ReadOptions.AS_OF, instant);
    return new HudiMetaTable(options, null, TableSnapshot.load(ReadOptions.parse(new CaseInsensitiveStringMap(options))));
  }
}
