package io.hudimeta.spark.sql;

import io.hudimeta.spark.source.HudiMetaTable;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import org.apache.spark.sql.catalyst.expressions.Alias;
import org.apache.spark.sql.catalyst.expressions.Attribute;
import org.apache.spark.sql.catalyst.expressions.Cast;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.catalyst.expressions.Literal;
import org.apache.spark.sql.catalyst.expressions.NamedExpression;
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan;
import org.apache.spark.sql.catalyst.plans.logical.Project;
import org.apache.spark.sql.types.StructField;

/**
 * The static partition values of a positional {@code INSERT ... PARTITION (c = v) SELECT ...}. Spark's
 * ResolveInsertInto puts each value at its column's position among the relation's columns, Hudi's five
 * meta columns included, and the query's columns in the other positions in order: the query's columns end
 * up first, the values after them, wherever the partition column is among the data columns (a column added
 * by ALTER TABLE comes after it). DmlRewrite lines the query's columns up with the data columns; these
 * values go to their own columns.
 */
final class StaticPartitions {

  private StaticPartitions() {}

  /** Partition column (lower case) -> the query's output holding its static value; empty when none. */
  static Map<String, Attribute> of(LogicalPlan query, HudiMetaTable table) {
    Map<String, Attribute> out = new HashMap<>();
    if (!(query instanceof Project project)) {
      return out;
    }
    Map<String, Boolean> partitionColumns = new HashMap<>();
    for (StructField f : table.partitionSchema().fields()) {
      partitionColumns.put(f.name().toLowerCase(Locale.ROOT), true);
    }
    for (NamedExpression e : Catalyst.list(project.projectList())) {
      String name = e.name().toLowerCase(Locale.ROOT);
      if (e instanceof Alias a && partitionColumns.containsKey(name) && constant(a.child())) {
        out.put(name, a.toAttribute());
      }
    }
    return out;
  }

  private static boolean constant(Expression e) {
    return e instanceof Literal || (e instanceof Cast c && c.child() instanceof Literal);
  }
}
