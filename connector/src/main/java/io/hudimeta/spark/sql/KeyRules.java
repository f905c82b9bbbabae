package io.hudimeta.spark.sql;

import io.hudimeta.spark.options.WriteOptions;
import io.hudimeta.spark.source.HudiMetaTable;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.apache.spark.sql.catalyst.expressions.And;
import org.apache.spark.sql.catalyst.expressions.Attribute;
import org.apache.spark.sql.catalyst.expressions.EqualNullSafe;
import org.apache.spark.sql.catalyst.expressions.EqualTo;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.catalyst.plans.logical.Assignment;

/**
 * What SQL DML may do to a table's keys, checked before any instant is requested: a Hudi write is
 * keyed by its record key and placed by its partition path.
 */
final class KeyRules {

  private KeyRules() {}

  /** The table's record key columns; an error naming the fix when it has none. */
  static List<String> recordKeys(HudiMetaTable table, String statement) {
    List<String> keys = table.config().recordKeyFields();
    if (keys.isEmpty()) {
      throw new IllegalArgumentException(
        "hudi-meta: " +
          statement +
          " needs a primary key, and table " +
          table.config().tableName() +
          " has none (hoodie.table.recordkey.fields is not set); create the table with " +
          "TBLPROPERTIES (primaryKey = '<column>') and write its rows again"
      );
    }
    return keys;
  }

  /** May updates of this table change a record's partition? */
  static boolean partitionMayChange(HudiMetaTable table) {
    Map<String, String> options = table.writeOptions();
    String index = options.getOrDefault(WriteOptions.INDEX_TYPE, "");
    return (
      "RECORD_INDEX".equalsIgnoreCase(index) && "true".equalsIgnoreCase(options.get(WriteOptions.UPDATE_PARTITION_PATH))
    );
  }

  /** Assignments by target column name; an error for a nested field or an unknown target. */
  static Map<String, Expression> byColumn(List<Assignment> assignments, String statement) {
    Map<String, Expression> out = new LinkedHashMap<>();
    for (Assignment a : assignments) {
      if (!(a.key() instanceof Attribute column)) {
        throw new IllegalArgumentException(
          "hudi-meta: " + statement + " sets " + a.key().sql() + "; only top-level columns can be set"
        );
      }
      out.put(column.name().toLowerCase(Locale.ROOT), a.value());
    }
    return out;
  }

  /** UPDATE ... SET: never the record key; the partition columns only where records may move. */
  static void checkUpdate(HudiMetaTable table, Map<String, Expression> assigned) {
    for (String key : recordKeys(table, "UPDATE")) {
      if (assigned.containsKey(key.toLowerCase(Locale.ROOT))) {
        throw new IllegalArgumentException(
          "hudi-meta: UPDATE cannot set the primary key column " +
            key +
            " of " +
            table.config().tableName() +
            "; a record's key is its identity: DELETE the row and INSERT it with the new key"
        );
      }
    }
    if (partitionMayChange(table)) {
      return;
    }
    for (String part : table.config().partitionFields()) {
      if (assigned.containsKey(part.toLowerCase(Locale.ROOT))) {
        throw new IllegalArgumentException(partitionChangeMessage(table, part, "UPDATE"));
      }
    }
  }

  static String partitionChangeMessage(HudiMetaTable table, String column, String statement) {
    return (
      "hudi-meta: " +
      statement +
      " would move rows of " +
      table.config().tableName() +
      " to another partition (it sets partition column " +
      column +
      "); allow it with hoodie.index.type=RECORD_INDEX and " +
      WriteOptions.UPDATE_PARTITION_PATH +
      "=true (a global index finds the row's old partition), or leave the column unchanged"
    );
  }

  /**
   * MERGE's ON condition as Hudi requires it: equalities between each record key column of the
   * target and an expression of the source, nothing else. Returns key name -> source expression.
   */
  static Map<String, Expression> mergeKeys(HudiMetaTable table, Expression condition, List<Attribute> targetColumns) {
    List<String> keys = recordKeys(table, "MERGE INTO");
    Map<String, Expression> matched = new LinkedHashMap<>();
    for (Expression conjunct : conjuncts(condition)) {
      Expression[] sides = equality(conjunct);
      String key = sides == null ? null : keyOf(sides[0], keys, targetColumns);
      Expression source = sides == null ? null : sides[1];
      if (sides != null && key == null) {
        key = keyOf(sides[1], keys, targetColumns);
        source = sides[0];
      }
      if (key == null || refersTo(source, targetColumns)) {
        throw new IllegalArgumentException(mergeConditionMessage(table, keys, condition));
      }
      matched.put(key.toLowerCase(Locale.ROOT), source);
    }
    if (matched.size() != keys.size()) {
      throw new IllegalArgumentException(mergeConditionMessage(table, keys, condition));
    }
    return matched;
  }

  private static String mergeConditionMessage(HudiMetaTable table, List<String> keys, Expression condition) {
    return (
      "hudi-meta: MERGE INTO " +
      table.config().tableName() +
      " must join on its primary key (" +
      String.join(", ", keys) +
      ") and nothing else, e.g. ON t." +
      keys.get(0) +
      " = s." +
      keys.get(0) +
      "; found ON " +
      condition.sql() +
      ". Move other conditions into WHEN MATCHED AND <condition>"
    );
  }

  private static List<Expression> conjuncts(Expression e) {
    List<Expression> out = new ArrayList<>();
    if (e instanceof And and) {
      out.addAll(conjuncts(and.left()));
      out.addAll(conjuncts(and.right()));
    } else {
      out.add(e);
    }
    return out;
  }

  private static Expression[] equality(Expression e) {
    if (e instanceof EqualTo eq) {
      return new Expression[] { eq.left(), eq.right() };
    }
    if (e instanceof EqualNullSafe eq) {
      return new Expression[] { eq.left(), eq.right() };
    }
    return null;
  }

  /** The record key column `e` is (a target column of that name), or null. */
  private static String keyOf(Expression e, List<String> keys, List<Attribute> targetColumns) {
    if (!(e instanceof Attribute a) || targetColumns.stream().noneMatch(t -> t.exprId().equals(a.exprId()))) {
      return null;
    }
    return keys
      .stream()
      .filter(k -> k.equalsIgnoreCase(a.name()))
      .findFirst()
      .orElse(null);
  }

  private static boolean refersTo(Expression e, List<Attribute> columns) {
    for (Attribute ref : Catalyst.list(e.references().toSeq())) {
      if (columns.stream().anyMatch(c -> c.exprId().equals(ref.exprId()))) {
        return true;
      }
    }
    return false;
  }
}
