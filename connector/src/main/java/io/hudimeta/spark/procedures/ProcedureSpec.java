package io.hudimeta.spark.procedures;

import java.util.List;
import org.apache.spark.sql.types.StructType;

/**
 * A procedure: Apache Hudi's name, parameters (in Hudi's order) and result columns, and where it runs.
 *
 * @param local the rows computed in the JVM, or null when pyhudi runs it (the py4j callback)
 */
public record ProcedureSpec(String name, String description, List<Param> params, StructType output, RowSource local) {
  /** Rows of a procedure computed in the JVM. */
  @FunctionalInterface
  public interface RowSource {
    List<Object[]> rows(String basePath, Args args);
  }

  public ProcedureSpec {
    params = List.copyOf(params);
  }

  Param param(String name) {
    return params
      .stream()
      .filter(p -> p.name().equals(name))
      .findFirst()
      .orElse(null);
  }
}
