package io.hudimeta.spark;

import io.hudimeta.spark.options.OptionKeys;
import io.hudimeta.spark.options.ReadOptions;
import io.hudimeta.spark.plan.TableSnapshot;
import io.hudimeta.spark.procedures.HudiProcedures;
import io.hudimeta.spark.source.HudiMetaSource;
import io.hudimeta.spark.source.HudiMetaTable;
import io.hudimeta.spark.sql.SqlTables;
import java.time.Instant;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.HashMap;
import java.util.Map;
import org.apache.spark.sql.catalyst.analysis.NoSuchNamespaceException;
import org.apache.spark.sql.catalyst.analysis.NoSuchTableException;
import org.apache.spark.sql.catalyst.analysis.TableAlreadyExistsException;
import org.apache.spark.sql.catalyst.catalog.CatalogTable;
import org.apache.spark.sql.connector.catalog.Column;
import org.apache.spark.sql.connector.catalog.DelegatingCatalogExtension;
import org.apache.spark.sql.connector.catalog.Identifier;
import org.apache.spark.sql.connector.catalog.Table;
import org.apache.spark.sql.connector.catalog.TableCatalog;
import org.apache.spark.sql.connector.catalog.TableChange;
import org.apache.spark.sql.connector.catalog.V1Table;
import org.apache.spark.sql.connector.expressions.Transform;
import org.apache.spark.sql.execution.datasources.DataSource;
import org.apache.spark.sql.internal.SQLConf;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;
import scala.jdk.javaapi.CollectionConverters;

/**
 * Session catalog extension for hudi-meta tables: SQL time travel (`VERSION AS OF`, `TIMESTAMP AS
 * OF`), which Spark's own session catalog refuses for every table, CREATE TABLE that creates the
 * Hudi table too (with Hudi's SQL table properties, see SqlTables), and ALTER TABLE ADD COLUMNS as
 * a schema commit. Other tables are delegated unchanged.
 * Enable with spark.sql.catalog.spark_catalog=io.hudimeta.spark.HudiCatalog (pyhudi.spark_session does).
 */
public final class HudiCatalog
  extends DelegatingCatalogExtension
  implements org.apache.spark.sql.connector.catalog.ProcedureCatalog
{

  private static final DateTimeFormatter INSTANT = DateTimeFormatter.ofPattern("yyyyMMddHHmmssSSS");

  /** Spark leaves a custom session catalog to resolve V2 providers itself: hudi-meta tables here. */
  @Override
  public Table loadTable(Identifier ident) throws NoSuchTableException {
    Map<String, String> options = hudiOptions(ident);
    return options == null ? super.loadTable(ident) : new HudiMetaTable(options, null, null);
  }

  @Override
  public Table createTable(Identifier ident, Column[] columns, Transform[] partitions, Map<String, String> properties)
    throws TableAlreadyExistsException, NoSuchNamespaceException {
    String provider = properties.get(TableCatalog.PROP_PROVIDER);
    if (!HudiMetaSource.SHORT_NAME.equalsIgnoreCase(provider)) {
      if ("hudi".equalsIgnoreCase(provider) && hudiIsOnlyTheHint()) {
        throw new IllegalArgumentException(hudi.DefaultSource.MESSAGE);
      }
      return super.createTable(ident, columns, partitions, properties);
    }
    SqlTables.Entry entry = SqlTables.entry(ident, columns, partitions, properties);
    Table created = super.createTable(ident, entry.columns(), partitions, entry.properties());
    if (!entry.exists()) {
      try {
        SqlTables.create(ident, entry, partitions);
      } catch (RuntimeException e) {
        super.dropTable(ident); // no catalog entry without its table
        throw e;
      }
    }
    return created;
  }

  /** Whether "hudi" resolves to {@link hudi.DefaultSource} only (Apache Hudi's bundle is not loaded). */
  private static boolean hudiIsOnlyTheHint() {
    try {
      return DataSource.lookupDataSource("hudi", SQLConf.get()) == hudi.DefaultSource.class;
    } catch (RuntimeException e) {
      return false;
    }
  }

  @Override
  public Table alterTable(Identifier ident, TableChange... changes) throws NoSuchTableException {
    if (hudiOptions(ident) == null || !(loadTable(ident) instanceof HudiMetaTable table)) {
      return super.alterTable(ident, changes);
    }
    SqlTables.alter(table, changes);
    // the columns live in the Hudi table (loadTable reads them there); the catalog keeps the properties
    TableChange[] rest = java.util.Arrays.stream(changes)
      .filter(c -> !(c instanceof TableChange.AddColumn))
      .toArray(TableChange[]::new);
    return rest.length == 0 ? loadTable(ident) : super.alterTable(ident, rest);
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
    // SET hoodie.* in the session reaches SQL writes, as in Apache Hudi's Spark SQL
    CollectionConverters.asJava(SQLConf.get().getAllConfs()).forEach((k, v) -> {
      if (k.startsWith(OptionKeys.PREFIX)) {
        options.put(k, v);
      }
    });
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

  /** SQL {@code CALL}: Apache Hudi's table procedures ({@link HudiProcedures}). */
  @Override
  public org.apache.spark.sql.connector.catalog.procedures.UnboundProcedure loadProcedure(Identifier ident) {
    return HudiProcedures.load(ident);
  }

  @Override
  public Identifier[] listProcedures(String[] namespace) {
    return HudiProcedures.list(namespace);
  }
}
