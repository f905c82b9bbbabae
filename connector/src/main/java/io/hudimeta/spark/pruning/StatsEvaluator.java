package io.hudimeta.spark.pruning;

import io.hudimeta.metadata.ColumnStat;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.util.Arrays;
import java.util.Map;
import java.util.Set;
import org.apache.spark.sql.catalyst.util.DateTimeUtils;
import org.apache.spark.sql.types.BooleanType;
import org.apache.spark.sql.types.ByteType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DateType;
import org.apache.spark.sql.types.Decimal;
import org.apache.spark.sql.types.DecimalType;
import org.apache.spark.sql.types.DoubleType;
import org.apache.spark.sql.types.FloatType;
import org.apache.spark.sql.types.IntegerType;
import org.apache.spark.sql.types.LongType;
import org.apache.spark.sql.types.ShortType;
import org.apache.spark.sql.types.StringType;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.types.TimestampNTZType;
import org.apache.spark.sql.types.TimestampType;
import org.apache.spark.unsafe.types.UTF8String;

/**
 * A filter judged over the rows one file's (or partition's) statistics describe, for {@link DataSkipping}:
 * {@link #MAY_TRUE} and/or {@link #MAY_FALSE}, whether some row may make it TRUE, and may make it FALSE (a
 * row with NULL makes it neither). Keeping both answers makes NOT sound: NOT p may be true only where p may be
 * false. AND/OR combine the answers over-approximately. A column without stats, of a type or with a value the
 * stats cannot place, gives {@link #UNKNOWN}.
 *
 * <p>Floating-point columns: Parquet writers leave NaN out of min/max, and in Spark NaN is larger than
 * every number and equal to itself, so a file with finite min/max may still hold a NaN that satisfies
 * {@code >}/{@code >=}; those comparisons never prune there, {@code =}, {@code <}, {@code <=} and IN do.
 * Strings compare in code point order (Spark's UTF-8 byte order); bounds holding characters at or above
 * U+D800, where that order and Java's UTF-16 order differ, are not trusted.
 */
final class StatsEvaluator extends FilterVisitor<Integer> {

  /** Some row may make the filter TRUE. */
  static final int MAY_TRUE = 1;
  /** Some row may make the filter FALSE. */
  static final int MAY_FALSE = 2;
  static final int UNKNOWN = MAY_TRUE | MAY_FALSE;
  static final int NEVER = 0;

  private final Map<String, ColumnStat> stats;
  private final StructType schema;

  StatsEvaluator(Map<String, ColumnStat> stats, StructType schema) {
    this.stats = stats;
    this.schema = schema;
  }

  @Override
  Integer unknown() {
    return UNKNOWN;
  }

  @Override
  Integer and(Integer l, Integer r) {
    return (l & r & MAY_TRUE) | ((l | r) & MAY_FALSE);
  }

  @Override
  Integer or(Integer l, Integer r) {
    return ((l | r) & MAY_TRUE) | (l & r & MAY_FALSE);
  }

  @Override
  Integer not(Integer c) {
    return ((c & MAY_TRUE) != 0 ? MAY_FALSE : 0) | ((c & MAY_FALSE) != 0 ? MAY_TRUE : 0);
  }

  @Override
  Integer alwaysTrue() {
    return MAY_TRUE;
  }

  @Override
  Integer alwaysFalse() {
    return MAY_FALSE;
  }

  @Override
  Integer isNull(String column) {
    Column c = column(column);
    return c == null ? UNKNOWN : bits(c.nulls(), c.values());
  }

  @Override
  Integer isNotNull(String column) {
    Column c = column(column);
    return c == null ? UNKNOWN : bits(c.values(), c.nulls());
  }

  @Override
  Integer equalNullSafe(String column, Object value) {
    Column c = column(column);
    if (c == null) {
      return UNKNOWN;
    }
    if (value == null) {
      return bits(c.nulls(), c.values());
    }
    return c.compared((min, max, fp) -> equal(c.type(), min, max, fp, value)) | (c.nulls() ? MAY_FALSE : 0);
  }

  @Override
  Integer equalTo(String column, Object value) {
    Column c = column(column);
    return c == null ? UNKNOWN : c.compared((min, max, fp) -> equal(c.type(), min, max, fp, value));
  }

  @Override
  Integer lessThan(String column, Object value) {
    return ordered(column, value, (min, max, fp, v) -> bits(compare(min, v) < 0, fp || compare(max, v) >= 0));
  }

  @Override
  Integer lessThanOrEqual(String column, Object value) {
    return ordered(column, value, (min, max, fp, v) -> bits(compare(min, v) <= 0, fp || compare(max, v) > 0));
  }

  @Override
  Integer greaterThan(String column, Object value) {
    return ordered(column, value, (min, max, fp, v) -> bits(fp || compare(max, v) > 0, compare(min, v) <= 0));
  }

  @Override
  Integer greaterThanOrEqual(String column, Object value) {
    return ordered(column, value, (min, max, fp, v) -> bits(fp || compare(max, v) >= 0, compare(min, v) < 0));
  }

  @Override
  Integer in(String column, Object[] values) {
    Column c = column(column);
    return c == null ? UNKNOWN : c.compared((min, max, fp) -> in(c.type(), min, max, fp, values));
  }

  @Override
  Integer startsWith(String column, String prefix) {
    Column c = column(column);
    if (c == null) {
      return UNKNOWN;
    }
    return c.compared((min, max, fp) -> {
      if (!(min instanceof String lo) || !(max instanceof String hi) || prefix == null) {
        return UNKNOWN;
      }
      boolean t = compare(hi, prefix) >= 0 && (compare(lo, prefix) <= 0 || lo.startsWith(prefix));
      boolean fl = !(lo.startsWith(prefix) && hi.startsWith(prefix));
      return bits(t, fl);
    });
  }

  /** What the stats say of one column of a type they can decide; null when they say nothing. */
  private Column column(String name) {
    DataType type = columnType(schema, name);
    ColumnStat s = stats.get(name);
    if (type == null || s == null) {
      return null;
    }
    Long nullCount = s.nullCount();
    Long valueCount = s.valueCount();
    boolean nulls = nullCount == null || nullCount > 0;
    boolean values =
      s.min() != null || s.max() != null || nullCount == null || valueCount == null || valueCount > nullCount;
    return new Column(type, s, nulls, values);
  }

  /** One column's stats: its type, whether it may hold NULLs and whether it may hold values. */
  private record Column(DataType type, ColumnStat stat, boolean nulls, boolean values) {
    /**
     * A comparison of the column: {@link #NEVER} without a value (the comparison is NULL, never TRUE or
     * FALSE), {@link #UNKNOWN} without bounds it can trust, else what {@code judge} makes of the bounds.
     */
    int compared(Bounds judge) {
      if (!values) {
        return NEVER;
      }
      Object min = canonical(type, stat.min());
      Object max = canonical(type, stat.max());
      if (min == null || max == null || !trustedBound(min) || !trustedBound(max)) {
        return UNKNOWN;
      }
      return judge.of(min, max, floating(type)); // fp: a NaN may hide among the values
    }
  }

  /** A comparison judged from a column's canonical bounds. */
  private interface Bounds {
    int of(Object min, Object max, boolean fp);
  }

  /** A comparison of the column with a literal, judged from the bounds. */
  private interface Ordered {
    int of(Object min, Object max, boolean fp, Object literal);
  }

  private Integer ordered(String column, Object value, Ordered judge) {
    Column c = column(column);
    if (c == null) {
      return UNKNOWN;
    }
    return c.compared((min, max, fp) -> {
      Object v = literal(c.type(), value);
      return v == null ? UNKNOWN : judge.of(min, max, fp, v);
    });
  }

  private static int equal(DataType type, Object min, Object max, boolean fp, Object value) {
    Object v = literal(type, value);
    if (v == null) {
      return UNKNOWN;
    }
    boolean t = compare(min, v) <= 0 && compare(v, max) <= 0;
    boolean fl = fp || compare(min, v) != 0 || compare(max, v) != 0;
    return bits(t, fl);
  }

  private static int in(DataType type, Object min, Object max, boolean fp, Object[] list) {
    if (list.length == 0) {
      return UNKNOWN;
    }
    boolean hasNull = false;
    boolean t = false;
    boolean allEqual = false;
    for (Object raw : list) {
      if (raw == null) {
        hasNull = true;
        continue;
      }
      Object v = literal(type, raw);
      if (v == null) {
        return UNKNOWN;
      }
      t |= compare(min, v) <= 0 && compare(v, max) <= 0;
      allEqual |= compare(min, v) == 0 && compare(max, v) == 0;
    }
    // with a NULL in the list a non-matching value gives NULL, never FALSE
    return bits(t, !hasNull && (fp || !allEqual));
  }

  private static int bits(boolean mayTrue, boolean mayFalse) {
    return (mayTrue ? MAY_TRUE : 0) | (mayFalse ? MAY_FALSE : 0);
  }

  // ---- which columns the filters compare ----

  /**
   * Collects the columns whose stats the evaluator reads for the filters it visits, in the order they appear:
   * those a leaf compares, of a type stats decide ({@code _hoodie_} columns only when the table writes them).
   */
  static final class Columns extends FilterVisitor<Void> {

    private final StructType schema;
    private final boolean metaFieldsWritten;
    private final Set<String> out;

    Columns(StructType schema, boolean metaFieldsWritten, Set<String> out) {
      this.schema = schema;
      this.metaFieldsWritten = metaFieldsWritten;
      this.out = out;
    }

    private Void add(String column) {
      if (columnType(schema, column) != null && (metaFieldsWritten || !column.startsWith("_hoodie_"))) {
        out.add(column);
      }
      return null;
    }

    @Override
    Void unknown() {
      return null;
    }

    @Override
    Void and(Void l, Void r) {
      return null;
    }

    @Override
    Void or(Void l, Void r) {
      return null;
    }

    @Override
    Void equalTo(String column, Object value) {
      return add(column);
    }

    @Override
    Void equalNullSafe(String column, Object value) {
      return add(column);
    }

    @Override
    Void lessThan(String column, Object value) {
      return add(column);
    }

    @Override
    Void lessThanOrEqual(String column, Object value) {
      return add(column);
    }

    @Override
    Void greaterThan(String column, Object value) {
      return add(column);
    }

    @Override
    Void greaterThanOrEqual(String column, Object value) {
      return add(column);
    }

    @Override
    Void in(String column, Object[] values) {
      return add(column);
    }

    @Override
    Void isNull(String column) {
      return add(column);
    }

    @Override
    Void isNotNull(String column) {
      return add(column);
    }

    @Override
    Void startsWith(String column, String prefix) {
      return add(column);
    }
  }

  /** The type of a top-level column of a type statistics can decide, or null. */
  static DataType columnType(StructType schema, String attr) {
    if (schema.getFieldIndex(attr).isEmpty()) {
      return null;
    }
    StructField field = schema.apply(attr);
    DataType t = field.dataType();
    boolean supported =
      t instanceof BooleanType ||
      integral(t) ||
      floating(t) ||
      t instanceof DecimalType ||
      t instanceof StringType ||
      t instanceof DateType ||
      t instanceof TimestampType ||
      t instanceof TimestampNTZType;
    // a string column under a non-binary collation does not compare in code point order
    if (t instanceof StringType st && !st.supportsBinaryOrdering()) {
      return null;
    }
    return supported ? t : null;
  }

  private static boolean integral(DataType t) {
    return t instanceof ByteType || t instanceof ShortType || t instanceof IntegerType || t instanceof LongType;
  }

  private static boolean floating(DataType t) {
    return t instanceof FloatType || t instanceof DoubleType;
  }

  /** A filter literal in the column's comparison domain; null when absent, NaN or not placeable. */
  private static Object literal(DataType type, Object value) {
    Object v = canonical(type, value);
    return v instanceof Double d && d.isNaN() ? null : v;
  }

  /** Whether a canonical min/max bound can be used (not NaN, not a string Java and Spark order differently). */
  private static boolean trustedBound(Object v) {
    if (v instanceof Double d) {
      return !d.isNaN();
    }
    if (v instanceof String s) {
      for (int i = 0; i < s.length(); i++) {
        if (s.charAt(i) >= '\uD800') {
          return false;
        }
      }
    }
    return true;
  }

  /**
   * A stat value or filter literal in the comparison domain of the column's type: Boolean, Long
   * (integral; days for dates; microseconds for timestamps), Double (floating), BigDecimal or String;
   * null when the value's class does not belong to the type (e.g. a column whose type changed).
   */
  static Object canonical(DataType type, Object v) {
    if (v == null) {
      return null;
    }
    try {
      if (type instanceof BooleanType) {
        return v instanceof Boolean ? v : null;
      }
      if (integral(type)) {
        return isIntegral(v) ? ((Number) v).longValue() : null;
      }
      if (floating(type)) {
        return v instanceof Double || v instanceof Float || isIntegral(v) ? ((Number) v).doubleValue() : null;
      }
      if (type instanceof DecimalType) {
        if (v instanceof BigDecimal d) {
          return d;
        }
        if (v instanceof Decimal d) {
          return d.toJavaBigDecimal();
        }
        return v instanceof scala.math.BigDecimal d ? d.bigDecimal() : null;
      }
      if (type instanceof StringType) {
        return v instanceof String || v instanceof UTF8String ? v.toString() : null;
      }
      if (type instanceof DateType) {
        if (v instanceof LocalDate d) {
          return d.toEpochDay();
        }
        return v instanceof java.sql.Date d ? (long) DateTimeUtils.fromJavaDate(d) : null;
      }
      if (type instanceof TimestampType) {
        if (v instanceof Instant i) {
          return DateTimeUtils.instantToMicros(i);
        }
        return v instanceof java.sql.Timestamp t ? DateTimeUtils.fromJavaTimestamp(t) : null;
      }
      if (type instanceof TimestampNTZType) {
        return v instanceof LocalDateTime t ? DateTimeUtils.localDateTimeToMicros(t) : null;
      }
    } catch (ArithmeticException e) {
      return null; // outside Spark's range
    }
    return null;
  }

  private static boolean isIntegral(Object v) {
    return v instanceof Long || v instanceof Integer || v instanceof Short || v instanceof Byte;
  }

  /** Order of two canonical values of one type: -0.0 equals 0.0 (as in Spark), strings by code point. */
  @SuppressWarnings({ "unchecked", "rawtypes" })
  static int compare(Object a, Object b) {
    if (a instanceof Double x && b instanceof Double y) {
      double p = x;
      double q = y;
      return p < q ? -1 : p > q ? 1 : 0;
    }
    if (a instanceof String x && b instanceof String y) {
      return Integer.signum(
        Arrays.compareUnsigned(x.getBytes(StandardCharsets.UTF_8), y.getBytes(StandardCharsets.UTF_8))
      );
    }
    return Integer.signum(((Comparable) a).compareTo(b));
  }
}
