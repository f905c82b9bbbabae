package io.hudimeta.spark.sql;

import io.hudimeta.spark.source.HudiMetaTable;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.apache.spark.sql.catalyst.expressions.Attribute;
import org.apache.spark.sql.catalyst.expressions.EqualNullSafe;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.catalyst.expressions.If;
import org.apache.spark.sql.catalyst.expressions.IsNotNull;
import org.apache.spark.sql.catalyst.expressions.IsNull;
import org.apache.spark.sql.catalyst.expressions.Literal;
import org.apache.spark.sql.catalyst.expressions.NamedExpression;
import org.apache.spark.sql.catalyst.expressions.Not;
import org.apache.spark.sql.catalyst.expressions.RaiseError;
import org.apache.spark.sql.catalyst.plans.Inner$;
import org.apache.spark.sql.catalyst.plans.JoinType;
import org.apache.spark.sql.catalyst.plans.LeftOuter$;
import org.apache.spark.sql.catalyst.plans.logical.Assignment;
import org.apache.spark.sql.catalyst.plans.logical.DeleteAction;
import org.apache.spark.sql.catalyst.plans.logical.Filter;
import org.apache.spark.sql.catalyst.plans.logical.InsertAction;
import org.apache.spark.sql.catalyst.plans.logical.Join;
import org.apache.spark.sql.catalyst.plans.logical.JoinHint;
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan;
import org.apache.spark.sql.catalyst.plans.logical.MergeAction;
import org.apache.spark.sql.catalyst.plans.logical.MergeIntoTable;
import org.apache.spark.sql.catalyst.plans.logical.Project;
import org.apache.spark.sql.catalyst.plans.logical.UpdateAction;
import org.apache.spark.sql.execution.datasources.v2.DataSourceV2Relation;
import org.apache.spark.sql.internal.SQLConf;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import scala.Option;
import scala.Tuple2;

/**
 * MERGE INTO a hudi-meta table as one upsert: the source joined to the target on the record key
 * (an outer join when rows may be inserted), each row taking the first WHEN clause that holds, and
 * rows of DELETE clauses flagged in {@link #DELETE_FLAG}, which pyhudi applies as deletes and never
 * writes. Rows no clause takes are not written.
 */
final class MergePlan {

  /** pyhudi's per-row delete flag of SQL writes (not a table column: _hoodie_ columns are not data). */
  static final String DELETE_FLAG = "_hoodie_sql_delete";
  private static final String MATCHED = "__hudi_matched";

  private final HudiMetaTable table;
  private final List<Attribute> columns;
  private final Attribute matched;

  private MergePlan(HudiMetaTable table, List<Attribute> columns, Attribute matched) {
    this.table = table;
    this.columns = columns;
    this.matched = matched;
  }

  static LogicalPlan rewrite(MergeIntoTable m, DataSourceV2Relation relation) {
    if (!m.targetTable().resolved() || !m.sourceTable().resolved()) {
      return m;
    }
    if (MergeStarMarkers.hasMarkers(m)) {
      return expandStars(m);
    }
    return m.resolved() ? build(m, relation) : m;
  }

  private static LogicalPlan build(MergeIntoTable m, DataSourceV2Relation relation) {
    HudiMetaTable table = Catalyst.table(relation);
    if (!m.notMatchedBySourceActions().isEmpty()) {
      throw new IllegalArgumentException(
        "hudi-meta: MERGE INTO " +
          table.config().tableName() +
          ": WHEN NOT MATCHED BY SOURCE is not supported; use a DELETE statement"
      );
    }
    Map<String, Expression> keys = KeyRules.mergeKeys(
      table,
      m.mergeCondition(),
      Catalyst.list(m.targetTable().output())
    );
    NamedExpression flag = Catalyst.alias(Literal.create(true, DataTypes.BooleanType), MATCHED);
    List<NamedExpression> targetColumns = new ArrayList<>(Catalyst.list(m.targetTable().output()));
    targetColumns.add(flag);
    LogicalPlan target = new Project(Catalyst.seq(targetColumns), m.targetTable());
    JoinType join = m.notMatchedActions().isEmpty() ? Inner$.MODULE$ : LeftOuter$.MODULE$;
    LogicalPlan joined = new Join(m.sourceTable(), target, join, Option.apply(m.mergeCondition()), JoinHint.NONE());
    MergePlan plan = new MergePlan(table, Catalyst.dataColumns(m.targetTable()), flag.toAttribute());
    LogicalPlan into = Catalyst.withTable(relation, table.resolvedBySpark(false));
    return DmlRewrite.write((DataSourceV2Relation) into, plan.rows(m, keys, joined), "upsert");
  }

  /** {@code m} merging into {@code target}, everything else as it was. */
  static MergeIntoTable withTarget(MergeIntoTable m, LogicalPlan target) {
    return new MergeIntoTable(
      target,
      m.sourceTable(),
      m.mergeCondition(),
      m.matchedActions(),
      m.notMatchedActions(),
      m.notMatchedBySourceActions(),
      m.withSchemaEvolution()
    );
  }

  /** The written rows: data columns and the delete flag, for rows some clause takes. */
  private LogicalPlan rows(MergeIntoTable m, Map<String, Expression> keys, LogicalPlan joined) {
    List<Clause> clauses = new ArrayList<>();
    for (MergeAction a : Catalyst.list(m.matchedActions())) {
      clauses.add(Clause.of(Catalyst.and(new IsNotNull(matched), Catalyst.isTrue(a.condition())), a));
    }
    for (MergeAction a : Catalyst.list(m.notMatchedActions())) {
      clauses.add(Clause.of(Catalyst.and(new IsNull(matched), Catalyst.isTrue(a.condition())), a));
    }
    List<NamedExpression> out = new ArrayList<>();
    for (Attribute c : columns) {
      out.add(Catalyst.alias(column(clauses, c, keys), c.name()));
    }
    Expression taken = null;
    List<Tuple2<Expression, Expression>> deleted = new ArrayList<>();
    for (Clause clause : clauses) {
      taken = taken == null ? clause.when : new org.apache.spark.sql.catalyst.expressions.Or(taken, clause.when);
      deleted.add(
        new Tuple2<>(clause.when, Literal.create(clause.action instanceof DeleteAction, DataTypes.BooleanType))
      );
    }
    out.add(Catalyst.alias(Catalyst.caseWhen(deleted, Literal.create(false, DataTypes.BooleanType)), DELETE_FLAG));
    return new Project(Catalyst.seq(out), new Filter(taken, joined));
  }

  /** A WHEN clause: when it takes a row, its action, and what it sets (by lower-cased column name). */
  private record Clause(Expression when, MergeAction action, Map<String, Expression> assigned) {
    static Clause of(Expression when, MergeAction action) {
      Map<String, Expression> assigned =
        action instanceof DeleteAction ? Map.of() : KeyRules.byColumn(assignments(action), "MERGE INTO");
      return new Clause(when, action, assigned);
    }
  }

  /** One data column: the value of the first clause that holds. */
  private Expression column(List<Clause> clauses, Attribute c, Map<String, Expression> keys) {
    List<Tuple2<Expression, Expression>> branches = new ArrayList<>();
    for (Clause clause : clauses) {
      branches.add(new Tuple2<>(clause.when, value(clause, c, keys)));
    }
    return Catalyst.caseWhen(branches, Catalyst.nullOf(c.dataType()));
  }

  private Expression value(Clause clause, Attribute c, Map<String, Expression> keys) {
    String name = c.name().toLowerCase(Locale.ROOT);
    if (clause.action instanceof DeleteAction) {
      return c; // the target row as it is: its key and partition say what to delete
    }
    Expression given = clause.assigned.get(name);
    if (clause.action instanceof InsertAction) {
      return given == null ? Catalyst.nullOf(c.dataType()) : Catalyst.cast(given, c.dataType());
    }
    if (given == null) {
      return c;
    }
    if (keys.containsKey(name)) {
      // the key may only be set to what it was matched with: the record stays the same record
      if (!given.semanticEquals(keys.get(name)) && !given.semanticEquals(c)) {
        throw new IllegalArgumentException(
          "hudi-meta: MERGE INTO " +
            table.config().tableName() +
            " sets primary key column " +
            c.name() +
            " to " +
            given.sql() +
            "; a matched row keeps its key (set it to the ON expression or leave it out)"
        );
      }
      return c;
    }
    Expression value = Catalyst.cast(given, c.dataType());
    boolean partition = table
      .config()
      .partitionFields()
      .stream()
      .anyMatch(p -> p.equalsIgnoreCase(c.name()));
    return partition && !KeyRules.partitionMayChange(table) ? samePartition(value, c) : value;
  }

  /** A partition value that must not change: an error naming the fix when a row's would. */
  private Expression samePartition(Expression value, Attribute column) {
    DataType type = column.dataType();
    String message = KeyRules.partitionChangeMessage(table, column.name(), "MERGE INTO");
    Expression fail = Catalyst.cast(new RaiseError(Literal.create(message, DataTypes.StringType)), type);
    return new If(new Not(new EqualNullSafe(value, column)), fail, value);
  }

  private static List<Assignment> assignments(MergeAction action) {
    if (action instanceof UpdateAction u) {
      return Catalyst.list(u.assignments());
    }
    return Catalyst.list(((InsertAction) action).assignments());
  }

  /** UPDATE SET * / INSERT * over the table's data columns, from the source's columns of those names. */
  private static LogicalPlan expandStars(MergeIntoTable m) {
    List<Assignment> star = new ArrayList<>();
    boolean caseSensitive = SQLConf.get().caseSensitiveAnalysis();
    List<Attribute> source = Catalyst.list(m.sourceTable().output());
    for (Attribute t : Catalyst.dataColumns(m.targetTable())) {
      Attribute s = source
        .stream()
        .filter(a -> caseSensitive ? a.name().equals(t.name()) : a.name().equalsIgnoreCase(t.name()))
        .findFirst()
        .orElseThrow(() ->
          new IllegalArgumentException(
            "hudi-meta: MERGE INTO ... UPDATE SET * / INSERT * needs a source column for every column of the " +
              "table; the source has no column " +
              t.name() +
              " (its columns: " +
              String.join(", ", source.stream().map(Attribute::name).toList()) +
              "). Add it to the source or list the columns to set"
          )
        );
      star.add(new Assignment(t, s));
    }
    return MergeStarMarkers.expand(m, Catalyst.seq(star));
  }
}
