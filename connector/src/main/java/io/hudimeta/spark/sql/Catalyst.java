package io.hudimeta.spark.sql;

import io.hudimeta.spark.source.HudiMetaTable;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.sql.catalyst.analysis.EliminateSubqueryAliases;
import org.apache.spark.sql.catalyst.expressions.Alias;
import org.apache.spark.sql.catalyst.expressions.And;
import org.apache.spark.sql.catalyst.expressions.Attribute;
import org.apache.spark.sql.catalyst.expressions.CaseWhen;
import org.apache.spark.sql.catalyst.expressions.Cast;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.catalyst.expressions.Literal;
import org.apache.spark.sql.catalyst.expressions.NamedExpression;
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan;
import org.apache.spark.sql.catalyst.plans.logical.SubqueryAlias;
import org.apache.spark.sql.execution.datasources.v2.DataSourceV2Relation;
import org.apache.spark.sql.internal.SQLConf;
import org.apache.spark.sql.types.DataType;
import scala.Option;
import scala.Tuple2;
import scala.collection.immutable.Seq;
import scala.jdk.javaapi.CollectionConverters;

/** Building and taking apart Catalyst plans from Java: what Scala's pattern matching does there. */
final class Catalyst {

  private Catalyst() {}

  static <T> Seq<T> seq(List<T> items) {
    return CollectionConverters.asScala(items).toList();
  }

  static <T> List<T> list(scala.collection.Seq<T> items) {
    return new ArrayList<>(CollectionConverters.asJava(items));
  }

  /** The hudi-meta relation a plan reads (through aliases), or null for any other plan. */
  static DataSourceV2Relation hudiRelation(LogicalPlan plan) {
    LogicalPlan inner = EliminateSubqueryAliases.apply(plan);
    if (inner instanceof DataSourceV2Relation r && r.table() instanceof HudiMetaTable) {
      return r;
    }
    return null;
  }

  /** {@code plan} (a relation, maybe aliased) reading {@code table} instead: same columns, same alias. */
  static LogicalPlan withTable(LogicalPlan plan, HudiMetaTable table) {
    if (plan instanceof SubqueryAlias a) {
      return new SubqueryAlias(a.identifier(), withTable(a.child(), table));
    }
    DataSourceV2Relation r = (DataSourceV2Relation) plan;
    return new DataSourceV2Relation(table, r.output(), r.catalog(), r.identifier(), r.options(), r.timeTravelSpec());
  }

  static HudiMetaTable table(DataSourceV2Relation relation) {
    return (HudiMetaTable) relation.table();
  }

  /** The relation's columns a user writes: all but Hudi's meta columns. */
  static List<Attribute> dataColumns(LogicalPlan relation) {
    List<Attribute> out = new ArrayList<>();
    for (Attribute a : list(relation.output())) {
      if (!HudiMetaTable.isMetaColumn(a.name())) {
        out.add(a);
      }
    }
    return out;
  }

  static NamedExpression alias(Expression value, String name) {
    return new Alias(value, name, NamedExpression.newExprId(), seq(List.of()), Option.empty(), seq(List.of()));
  }

  /** {@code value} as {@code type}, as an INSERT casts (the session's ANSI setting decides overflow). */
  static Expression cast(Expression value, DataType type) {
    if (value.dataType().sameType(type)) {
      return value;
    }
    return new Cast(value, type, Option.apply(SQLConf.get().sessionLocalTimeZone()));
  }

  static Expression caseWhen(List<Tuple2<Expression, Expression>> branches, Expression otherwise) {
    return new CaseWhen(seq(branches), Option.apply(otherwise));
  }

  static Expression and(Expression a, Expression b) {
    return a == null ? b : new And(a, b);
  }

  static Expression isTrue(Option<Expression> condition) {
    return condition.isDefined()
      ? condition.get()
      : Literal.create(true, org.apache.spark.sql.types.DataTypes.BooleanType);
  }

  static Expression nullOf(DataType type) {
    return Literal.create(null, type);
  }
}
