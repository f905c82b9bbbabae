package io.hudimeta.spark.procedures;

import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import org.apache.spark.QueryContext;
import org.apache.spark.sql.AnalysisException;
import org.apache.spark.sql.connector.catalog.Identifier;
import org.apache.spark.sql.connector.catalog.procedures.BoundProcedure;
import org.apache.spark.sql.connector.catalog.procedures.UnboundProcedure;
import org.apache.spark.sql.types.StructType;
import scala.Option;

/**
 * Apache Hudi's table procedures for SQL {@code CALL}, served by the session catalog
 * ({@code io.hudimeta.spark.HudiCatalog}). An unqualified {@code CALL show_commits(...)} reaches it with
 * the current namespace; Hudi's {@code CALL system.show_commits(...)} too: the namespace is not looked at.
 */
public final class HudiProcedures {

  private HudiProcedures() {}

  /**
   * The procedure named {@code ident}. An unknown name still loads, as a procedure whose binding fails with
   * the names it could have been: Spark tries an unqualified name along its search path and swallows load
   * errors, ending in UNRESOLVED_ROUTINE, which names no procedure.
   */
  public static UnboundProcedure load(Identifier ident) {
    ProcedureSpec spec = Registry.SPECS.get(ident.name().toLowerCase(Locale.ROOT));
    return spec == null ? new Unknown(ident.name()) : new HudiProcedure(spec);
  }

  /** Every procedure, in {@code namespace} (SHOW PROCEDURES). */
  public static Identifier[] list(String[] namespace) {
    return Registry.SPECS.keySet()
      .stream()
      .map(name -> Identifier.of(namespace, name))
      .toArray(Identifier[]::new);
  }

  /** The procedures pyhudi runs (the others compute their rows in the JVM), each with its result columns. */
  public static Map<String, List<String>> pyhudiColumns() {
    Map<String, List<String>> out = new TreeMap<>();
    Registry.SPECS.values()
      .stream()
      .filter(spec -> spec.local() == null)
      .forEach(spec -> out.put(spec.name(), List.of(spec.output().fieldNames())));
    return out;
  }

  private record Unknown(String name) implements UnboundProcedure {
    @Override
    public String description() {
      return message();
    }

    @Override
    public BoundProcedure bind(StructType inputType) {
      // an AnalysisException reaches the user as it is (checked in Java, so thrown unchecked)
      throw HudiProcedures.<RuntimeException>unchecked(
        new AnalysisException(
          message(),
          Option.empty(),
          Option.empty(),
          Option.empty(),
          Option.empty(),
          scala.collection.immutable.Map$.MODULE$.empty(),
          new QueryContext[0]
        )
      );
    }

    private String message() {
      return "hudi-meta: there is no procedure " + name + "; the procedures are: " + Registry.known();
    }
  }

  @SuppressWarnings("unchecked")
  private static <E extends Exception> E unchecked(Exception e) throws E {
    throw (E) e;
  }
}
