package io.hudimeta.spark.procedures;

import org.apache.spark.sql.connector.catalog.procedures.ProcedureParameter;
import org.apache.spark.sql.types.DataType;

/**
 * One argument of a procedure, as Apache Hudi names it. Every parameter is optional to Spark (a required
 * one defaults to NULL and is checked by {@link HudiProcedure}): Spark refuses a required parameter after an
 * optional one, and Hudi's signatures keep their own order (positional calls depend on it).
 *
 * @param defaultSql the default as a SQL literal ("NULL" when there is none)
 */
public record Param(String name, DataType type, boolean required, String defaultSql) {
  public static Param required(String name, DataType type) {
    return new Param(name, type, true, "NULL");
  }

  public static Param optional(String name, DataType type) {
    return new Param(name, type, false, "NULL");
  }

  public static Param optional(String name, DataType type, String defaultSql) {
    return new Param(name, type, false, defaultSql);
  }

  ProcedureParameter toSpark() {
    return ProcedureParameter.in(name, type).defaultValue(defaultSql).build();
  }
}
