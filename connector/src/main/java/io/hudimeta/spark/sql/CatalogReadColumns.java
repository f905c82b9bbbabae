package io.hudimeta.spark.sql;

import io.hudimeta.spark.source.HudiMetaTable;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.sql.catalyst.expressions.Attribute;
import org.apache.spark.sql.catalyst.expressions.NamedExpression;
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan;
import org.apache.spark.sql.catalyst.plans.logical.Project;
import org.apache.spark.sql.catalyst.rules.Rule;
import org.apache.spark.sql.execution.datasources.v2.DataSourceV2Relation;
import scala.runtime.AbstractFunction1;

/**
 * A catalog table read with options that change its columns: {@code spark.read.options(...).table(name)}
 * or SQL {@code FROM t WITH (...)} asking for the CDC format. Spark makes the relation with the columns the
 * catalog's table has (the snapshot's) and passes the read options only to the scan, whose rows are
 * op/ts_ms/before/after; this rule gives the relation the columns of the table as that read sees it, and a
 * {@code SELECT *} Spark expanded over the old columns the new ones.
 */
public final class CatalogReadColumns extends Rule<LogicalPlan> {

  @Override
  public LogicalPlan apply(LogicalPlan plan) {
    return rewrite(plan);
  }

  private static LogicalPlan rewrite(LogicalPlan plan) {
    if (plan instanceof DataSourceV2Relation r) {
      return asRead(r);
    }
    LogicalPlan out = plan.mapChildren(
      new AbstractFunction1<>() {
        @Override
        public LogicalPlan apply(LogicalPlan child) {
          return rewrite(child);
        }
      }
    );
    if (out instanceof Project p && plan instanceof Project before && expandsAll(before)) {
      // SELECT * over the relation's old columns: the star over its new ones
      List<NamedExpression> all = new ArrayList<>(Catalyst.list(p.child().output()));
      return new Project(Catalyst.seq(all), p.child());
    }
    return out;
  }

  /** Whether {@code r} reads a hudi-meta table as CDC and still has the table's own columns. */
  private static boolean lacksReadColumns(DataSourceV2Relation r) {
    return (
      r.table() instanceof HudiMetaTable &&
      HudiMetaTable.readsChanges(r.options()) &&
      !r.output().exists(a -> a.name().equals("op"))
    );
  }

  private static LogicalPlan asRead(DataSourceV2Relation r) {
    if (!lacksReadColumns(r)) {
      return r;
    }
    return DataSourceV2Relation.create(
      ((HudiMetaTable) r.table()).forRead(r.options()),
      r.catalog(),
      r.identifier(),
      r.options(),
      r.timeTravelSpec()
    );
  }

  /** A Project listing exactly the columns of a CDC-read relation it stands on whose columns are not CDC's yet. */
  private static boolean expandsAll(Project p) {
    DataSourceV2Relation r = Catalyst.hudiRelation(p.child());
    if (r == null || !lacksReadColumns(r)) {
      // asked without loading the read's snapshot
      return false;
    }
    List<Attribute> columns = new ArrayList<>(Catalyst.list(r.output()));
    List<NamedExpression> listed = Catalyst.list(p.projectList());
    return (
      listed.size() == columns.size() &&
      listed.stream().map(NamedExpression::exprId).toList().equals(columns.stream().map(Attribute::exprId).toList())
    );
  }
}
