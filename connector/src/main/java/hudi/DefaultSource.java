package hudi;

import java.util.Map;
import org.apache.spark.sql.connector.catalog.Table;
import org.apache.spark.sql.connector.catalog.TableProvider;
import org.apache.spark.sql.connector.expressions.Transform;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;

/**
 * What {@code format("hudi")} and {@code USING hudi} find when Apache Hudi's own Spark bundle is not on the
 * classpath: Spark looks a format up by its registered short name, then as a class, then as
 * {@code <name>.DefaultSource}, so this class answers only when no "hudi" source is registered, with a
 * message naming hudi-meta instead of Spark's bare DATA_SOURCE_NOT_FOUND. With Apache Hudi's bundle present its
 * source is found first and this class is never used.
 */
public final class DefaultSource implements TableProvider {

  public static final String MESSAGE =
    "format 'hudi' is Apache Hudi's own Spark datasource, and this session does not have its bundle; " +
    "pyhudi's reader and writer of the same tables is format('hudi-meta') (SQL: USING `hudi-meta`)";

  @Override
  public StructType inferSchema(CaseInsensitiveStringMap options) {
    throw new IllegalArgumentException(MESSAGE);
  }

  @Override
  public Table getTable(StructType schema, Transform[] partitioning, Map<String, String> properties) {
    throw new IllegalArgumentException(MESSAGE);
  }
}
