package io.hudimeta.spark.pruning;

import org.apache.spark.sql.sources.AlwaysFalse;
import org.apache.spark.sql.sources.AlwaysTrue;
import org.apache.spark.sql.sources.And;
import org.apache.spark.sql.sources.EqualNullSafe;
import org.apache.spark.sql.sources.EqualTo;
import org.apache.spark.sql.sources.Filter;
import org.apache.spark.sql.sources.GreaterThan;
import org.apache.spark.sql.sources.GreaterThanOrEqual;
import org.apache.spark.sql.sources.In;
import org.apache.spark.sql.sources.IsNotNull;
import org.apache.spark.sql.sources.IsNull;
import org.apache.spark.sql.sources.LessThan;
import org.apache.spark.sql.sources.LessThanOrEqual;
import org.apache.spark.sql.sources.Not;
import org.apache.spark.sql.sources.Or;
import org.apache.spark.sql.sources.StringStartsWith;

/**
 * The one walk over the filters Spark pushes, shared by the pruners (the shape of Iceberg's
 * ExpressionVisitors): {@link #visit} recurses through AND, OR and NOT, and a pruner says only what a leaf
 * predicate gives and how its results combine. Both sides of AND and OR, and the child of NOT, are always
 * visited. Every leaf a pruner does not override, NOT unless it overrides {@link #not}, and a filter kind
 * no pruner reads (StringEndsWith, StringContains...) give {@link #unknown()}: what the pruner cannot decide,
 * so it keeps the partition or slice.
 *
 * @param <R> what a filter gives this pruner
 */
abstract class FilterVisitor<R> {

  /** What a filter this pruner cannot judge gives. */
  abstract R unknown();

  abstract R and(R left, R right);

  abstract R or(R left, R right);

  R not(R child) {
    return unknown();
  }

  R alwaysTrue() {
    return unknown();
  }

  R alwaysFalse() {
    return unknown();
  }

  R equalTo(String column, Object value) {
    return unknown();
  }

  /** {@code value} may be null: {@code column <=> NULL} is {@code column IS NULL}. */
  R equalNullSafe(String column, Object value) {
    return unknown();
  }

  R lessThan(String column, Object value) {
    return unknown();
  }

  R lessThanOrEqual(String column, Object value) {
    return unknown();
  }

  R greaterThan(String column, Object value) {
    return unknown();
  }

  R greaterThanOrEqual(String column, Object value) {
    return unknown();
  }

  /** {@code values} may hold nulls. */
  R in(String column, Object[] values) {
    return unknown();
  }

  R isNull(String column) {
    return unknown();
  }

  R isNotNull(String column) {
    return unknown();
  }

  R startsWith(String column, String prefix) {
    return unknown();
  }

  final R visit(Filter f) {
    if (f instanceof And a) {
      return and(visit(a.left()), visit(a.right()));
    }
    if (f instanceof Or o) {
      return or(visit(o.left()), visit(o.right()));
    }
    if (f instanceof Not n) {
      return not(visit(n.child()));
    }
    if (f instanceof AlwaysTrue) {
      return alwaysTrue();
    }
    if (f instanceof AlwaysFalse) {
      return alwaysFalse();
    }
    if (f instanceof EqualTo e) {
      return equalTo(e.attribute(), e.value());
    }
    if (f instanceof EqualNullSafe e) {
      return equalNullSafe(e.attribute(), e.value());
    }
    if (f instanceof LessThan l) {
      return lessThan(l.attribute(), l.value());
    }
    if (f instanceof LessThanOrEqual l) {
      return lessThanOrEqual(l.attribute(), l.value());
    }
    if (f instanceof GreaterThan g) {
      return greaterThan(g.attribute(), g.value());
    }
    if (f instanceof GreaterThanOrEqual g) {
      return greaterThanOrEqual(g.attribute(), g.value());
    }
    if (f instanceof In in) {
      return in(in.attribute(), in.values());
    }
    if (f instanceof IsNull n) {
      return isNull(n.attribute());
    }
    if (f instanceof IsNotNull n) {
      return isNotNull(n.attribute());
    }
    if (f instanceof StringStartsWith s) {
      return startsWith(s.attribute(), s.value());
    }
    return unknown();
  }
}
