package io.hudimeta.spark;

import java.util.Map;

import org.apache.spark.sql.connector.catalog.Table;
import org.apache.spark.sql.connector.catalog.TableProvider;
import org.apache.spark.sql.connector.expressions.Transform;
import org.apache.spark.sql.sources.DataSourceRegister;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;

/** Entry point of format("hudi-meta"). */
public final class HudiMetaSource implements TableProvider, DataSourceRegister {
  public static final String SHORT_NAME = "hudi-meta";

  @Override
  public String shortName() {
    return SHORT_NAME;
  }

  @Override
  public StructType inferSchema(CaseInsensitiveStringMap options) {
    return TableSnapshot.load(ReadOptions.parse(options)).schema();
  }

  @Override
  public Table getTable(StructType schema, Transform[] partitioning, Map<String, String> properties) {
    return new HudiMetaTable(TableSnapshot.load(ReadOptions.parse(new CaseInsensitiveStringMap(properties))));
  }
}
