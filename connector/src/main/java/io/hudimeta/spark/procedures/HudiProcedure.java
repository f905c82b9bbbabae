package io.hudimeta.spark.procedures;

import io.hudimeta.spark.bridge.WriteClients;
import java.util.Iterator;
import java.util.List;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.connector.catalog.procedures.BoundProcedure;
import org.apache.spark.sql.connector.catalog.procedures.ProcedureParameter;
import org.apache.spark.sql.connector.catalog.procedures.UnboundProcedure;
import org.apache.spark.sql.connector.read.LocalScan;
import org.apache.spark.sql.connector.read.Scan;
import org.apache.spark.sql.types.StructType;

/**
 * One procedure as Spark calls it: bound to its fixed parameters whatever the input, run when the
 * {@code CALL} is analysed (Spark's InvokeProcedures), its rows returned as a local relation.
 */
final class HudiProcedure implements UnboundProcedure, BoundProcedure {

  private final ProcedureSpec spec;

  HudiProcedure(ProcedureSpec spec) {
    this.spec = spec;
  }

  @Override
  public String name() {
    return spec.name();
  }

  @Override
  public String description() {
    return spec.description() + ": " + Registry.signature(spec);
  }

  @Override
  public BoundProcedure bind(StructType inputType) {
    return this; // one signature per procedure; Spark matches names and casts values to it
  }

  @Override
  public ProcedureParameter[] parameters() {
    return spec
      .params()
      .stream()
      .map(Param::toSpark)
      .toArray(ProcedureParameter[]::new);
  }

  @Override
  public boolean isDeterministic() {
    return false;
  }

  @Override
  public Iterator<Scan> call(InternalRow input) {
    Args args = Args.of(spec, input);
    String path = TableLocation.of(spec.name(), args.string("table"), args.string("path"));
    List<InternalRow> rows =
      spec.local() != null
        ? ResultRows.of(spec.output(), spec.local().rows(path, args))
        : ResultRows.fromJson(spec.output(), inPyhudi(path, args));
    return List.<Scan>of(new Result(spec.output(), rows.toArray(new InternalRow[0]))).iterator();
  }

  /** Runs the procedure in pyhudi; its failure is raised as pyhudi's one-line message (CallbackErrors). */
  private String inPyhudi(String path, Args args) {
    return WriteClients.get().procedure(spec.name(), path, args.forPython());
  }

  private record Result(StructType readSchema, InternalRow[] rows) implements LocalScan {}
}
