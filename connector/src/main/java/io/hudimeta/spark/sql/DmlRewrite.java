package io.hudimeta.spark.sql;

import io.hudimeta.spark.options.WriteOptions;
import io.hudimeta.spark.source.HudiMetaTable;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.apache.spark.sql.catalyst.expressions.Attribute;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.catalyst.expressions.NamedExpression;
import org.apache.spark.sql.catalyst.plans.logical.AppendData;
import org.apache.spark.sql.catalyst.plans.logical.DeleteFromTable;
import org.apache.spark.sql.catalyst.plans.logical.Filter;
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan;
import org.apache.spark.sql.catalyst.plans.logical.MergeIntoTable;
import org.apache.spark.sql.catalyst.plans.logical.OverwritePartitionsDynamic;
import org.apache.spark.sql.catalyst.plans.logical.Project;
import org.apache.spark.sql.catalyst.plans.logical.UpdateTable;
import org.apache.spark.sql.catalyst.plans.logical.V2WriteCommand;
import org.apache.spark.sql.catalyst.rules.Rule;
import org.apache.spark.sql.execution.datasources.v2.DataSourceV2Relation;

/**
 * SQL DML on hudi-meta tables as one Hudi write each: UPDATE becomes an upsert of the matching rows
 * with their new values, DELETE a delete of the matching keys, MERGE an upsert of what its clauses
 * produce (deletes flagged, see {@link MergePlan}). The write is an AppendData through the table's
 * V1Write, so pyhudi writes it like any DataFrame; no rewrite of untouched rows or files. Each answers
 * with the rows it changed ({@link RowCounts}).
 * Positional INSERTs are lined up with the table's data columns (the _hoodie_ columns are Hudi's);
 * a dynamic partition overwrite is an insert_overwrite.
 */
public final class DmlRewrite extends Rule<LogicalPlan> {

  @Override
  public LogicalPlan apply(LogicalPlan plan) {
    if (plan instanceof UpdateTable u && u.resolved()) {
      DataSourceV2Relation r = Catalyst.hudiRelation(u.table());
      return r == null ? plan : new RowCounts(update(u, r), RowCounts.Kind.UPDATE);
    }
    if (plan instanceof DeleteFromTable d && d.resolved()) {
      DataSourceV2Relation r = Catalyst.hudiRelation(d.table());
      return r == null ? plan : new RowCounts(delete(d, r), RowCounts.Kind.DELETE);
    }
    if (plan instanceof MergeIntoTable m) {
      DataSourceV2Relation r = Catalyst.hudiRelation(m.targetTable());
      if (r == null) {
        return plan;
      }
      HudiMetaTable table = Catalyst.table(r);
      if (!table.isResolvedBySpark()) {
        return MergePlan.withTarget(m, Catalyst.withTable(m.targetTable(), table.resolvedBySpark(true)));
      }
      LogicalPlan merge = MergePlan.rewrite(m, r); // a MERGE still being resolved, or its write
      return merge instanceof MergeIntoTable ? merge : new RowCounts(merge, RowCounts.Kind.MERGE);
    }
    if (plan instanceof V2WriteCommand w && w.query().resolved()) {
      DataSourceV2Relation r = w.table() instanceof DataSourceV2Relation v ? Catalyst.hudiRelation(v) : null;
      LogicalPlan lined = r == null ? plan : w.isByName() ? castByName(w, r) : lineUp(w, r);
      // dynamic partition overwrite is Hudi's insert_overwrite (Spark runs it only through V2 batch writes)
      return lined == plan && r != null && w instanceof OverwritePartitionsDynamic
        ? write(r, w.query(), "insert_overwrite")
        : lined;
    }
    return plan;
  }

  private static LogicalPlan update(UpdateTable u, DataSourceV2Relation relation) {
    HudiMetaTable table = Catalyst.table(relation);
    Map<String, Expression> assigned = KeyRules.byColumn(Catalyst.list(u.assignments()), "UPDATE");
    KeyRules.checkUpdate(table, assigned);
    List<NamedExpression> columns = new ArrayList<>();
    for (Attribute c : Catalyst.dataColumns(relation)) {
      Expression value = assigned.get(c.name().toLowerCase(Locale.ROOT));
      columns.add(value == null ? c : Catalyst.alias(Catalyst.cast(value, c.dataType()), c.name()));
    }
    LogicalPlan rows = new Filter(Catalyst.isTrue(u.condition()), u.table());
    return write(relation, new Project(Catalyst.seq(columns), rows), "upsert");
  }

  private static LogicalPlan delete(DeleteFromTable d, DataSourceV2Relation relation) {
    KeyRules.recordKeys(Catalyst.table(relation), "DELETE");
    List<NamedExpression> columns = new ArrayList<>(Catalyst.dataColumns(relation));
    return write(relation, new Project(Catalyst.seq(columns), new Filter(d.condition(), d.table())), "delete");
  }

  /** One Hudi write of {@code rows} (data columns by name) with {@code operation}. */
  static LogicalPlan write(DataSourceV2Relation relation, LogicalPlan rows, String operation) {
    scala.collection.immutable.Map<String, String> options = scala.collection.immutable.Map$.MODULE$.<
      String,
      String
    >empty().updated(WriteOptions.OPERATION, operation);
    return AppendData.byName(relation, rows, options, false);
  }

  /**
   * A by-name INSERT's columns (INSERT INTO t (a, b) ...) cast to the types of the table's columns of those
   * names, as a positional one's are; columns of other names are left to the writer's schema rules.
   */
  private static LogicalPlan castByName(V2WriteCommand w, DataSourceV2Relation relation) {
    Map<String, Attribute> target = new HashMap<>();
    for (Attribute t : Catalyst.dataColumns(relation)) {
      target.put(t.name().toLowerCase(Locale.ROOT), t);
    }
    List<NamedExpression> columns = new ArrayList<>();
    boolean same = true;
    for (Attribute g : Catalyst.list(w.query().output())) {
      Attribute t = target.get(g.name().toLowerCase(Locale.ROOT));
      if (t == null || g.dataType().sameType(t.dataType())) {
        columns.add(g);
      } else {
        same = false;
        columns.add(Catalyst.alias(Catalyst.cast(g, t.dataType()), g.name()));
      }
    }
    return same ? (LogicalPlan) w : (LogicalPlan) w.withNewQuery(new Project(Catalyst.seq(columns), w.query()));
  }

  /**
   * A positional INSERT's columns, named and cast as the table's data columns in order (Spark
   * leaves that to tables that accept any schema, as hudi-meta tables do for DataFrame writes).
   */
  private static LogicalPlan lineUp(V2WriteCommand w, DataSourceV2Relation relation) {
    List<Attribute> target = Catalyst.dataColumns(relation);
    Map<String, Attribute> statics = StaticPartitions.of(w.query(), Catalyst.table(relation));
    List<Attribute> given = new ArrayList<>();
    for (Attribute a : Catalyst.list(w.query().output())) {
      if (!statics.containsValue(a)) {
        given.add(a);
      }
    }
    if (given.size() + statics.size() > target.size()) {
      throw new IllegalArgumentException(
        "hudi-meta: INSERT INTO " +
          Catalyst.table(relation).name() +
          " gives " +
          (given.size() + statics.size()) +
          " column(s) for its " +
          target.size() +
          " data columns (" +
          String.join(", ", target.stream().map(Attribute::name).toList()) +
          "); give at most one value per column, in that order"
      );
    }
    List<NamedExpression> columns = new ArrayList<>();
    boolean same = true;
    int next = 0;
    for (Attribute t : target) {
      Attribute g = statics.get(t.name().toLowerCase(Locale.ROOT));
      if (g == null && next < given.size()) {
        g = given.get(next++);
      }
      if (g == null) {
        // as Spark fills a column an INSERT leaves out: with its default, null
        same = false;
        columns.add(Catalyst.alias(Catalyst.nullOf(t.dataType()), t.name()));
        continue;
      }
      same &= g.name().equals(t.name()) && g.dataType().sameType(t.dataType());
      columns.add(Catalyst.alias(Catalyst.cast(g, t.dataType()), t.name()));
    }
    // once lined up the names and types match and the plan is left as it is (the rule runs to a fixed point)
    return same ? (LogicalPlan) w : (LogicalPlan) w.withNewQuery(new Project(Catalyst.seq(columns), w.query()));
  }
}
