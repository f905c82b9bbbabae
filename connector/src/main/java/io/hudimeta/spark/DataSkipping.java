package io.hudimeta.spark;

import io.hudimeta.metadata.ColumnStat;
import io.hudimeta.metadata.MetadataTable;
import io.hudimeta.table.TableConfig;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.spark.sql.catalyst.util.DateTimeUtils;
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
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Data skipping from the metadata table's statistics: drops data partitions whose
 * {@code partition_stats} and file slices whose files' {@code column_stats} prove that no row can
 * satisfy the pushed filters. Anything the statistics cannot decide (no stats, an unknown column,
 * a type or value it cannot place) keeps the partition or slice: Spark re-applies every filter.
 *
 * <p>A filter is judged per file (or partition) with two questions: may some row make it TRUE, and
 * may some row make it FALSE (a row with NULL makes it neither). Keeping both answers makes NOT sound:
 * NOT p may be true only where p may be false. AND/OR combine the answers over-approximately.
 *
 * <p>Floating-point columns: Parquet writers leave NaN out of min/max, and in Spark NaN is larger than
 * every number and equal to itself, so a file with finite min/max may still hold a NaN that satisfies
 * {@code >}/{@code >=}; those comparisons never prune there, {@code =}, {@code <}, {@code <=} and IN do.
 * Strings compare in code point order (Spark's UTF-8 byte order); bounds holding characters at or above
 * U+D800, where that order and Java's UTF-16 order differ, are not trusted.
 *
 * <p>Merge-on-read: a slice's merged rows are whole records from its base file or one of its log files
 * (the reader merges whole records), so a slice is kept when any of its files may match, or lacks stats.
 * For a table with a custom merge mode, whose merges could mix columns of several records, slices with
 * log files are always kept.
 */
final class DataSkipping {

  private static final Logger LOG = LoggerFactory.getLogger(DataSkipping.class);

  /** Some row may make the filter TRUE. */
  static final int MAY_TRUE = 1;
  /** Some row may make the filter FALSE. */
  static final int MAY_FALSE = 2;
  static final int UNKNOWN = MAY_TRUE | MAY_FALSE;
  static final int NEVER = 0;

  private final MetadataTable mdt;
  private final StructType schema;
  private final Filter[] filters;
  private final Set<String> columns;
  private final boolean usePartitionStats;
  private final boolean wholeRecordMerges;
  private final String mode;

  private DataSkipping(
    MetadataTable mdt,
    StructType schema,
    Filter[] filters,
    Set<String> columns,
    boolean usePartitionStats,
    boolean wholeRecordMerges,
    String mode
  ) {
    this.mdt = mdt;
    this.schema = schema;
    this.filters = filters;
    this.columns = columns;
    this.usePartitionStats = usePartitionStats;
    this.wholeRecordMerges = wholeRecordMerges;
    this.mode = mode;
  }

  /**
   * The skipping a query may do.
   *
   * @param enabled            {@code hoodie.enable.data.skipping}
   * @param mdt                the metadata table the plan lists files from, or null when it lists storage
   * @param latestSnapshot     whether the query reads the latest snapshot (partition_stats describe only that)
   */
  static DataSkipping of(
    boolean enabled,
    MetadataTable mdt,
    TableConfig config,
    StructType schema,
    Filter[] filters,
    boolean latestSnapshot
  ) {
    if (!enabled) {
      return off(schema, "off(" + ReadOptions.DATA_SKIPPING + "=false)");
    }
    if (mdt == null) {
      return off(schema, "off(storage-listing)");
    }
    if (!mdt.hasPartition(MetadataTable.COLUMN_STATS)) {
      return off(schema, "off(no-column_stats)");
    }
    boolean partitionStats = latestSnapshot && mdt.hasPartition(MetadataTable.PARTITION_STATS);
    Set<String> columns = new LinkedHashSet<>();
    for (Filter f : filters) {
      collectColumns(f, schema, config.populateMetaFields(), columns);
    }
    boolean wholeRecords = config.recordMergeMode() != TableConfig.MergeMode.CUSTOM;
    String mode = partitionStats ? "column_stats+partition_stats" : "column_stats";
    return new DataSkipping(mdt, schema, filters, columns, partitionStats, wholeRecords, mode);
  }

  private static DataSkipping off(StructType schema, String why) {
    return new DataSkipping(null, schema, new Filter[0], Set.of(), false, true, why);
  }

  /** How skipping applies, for the scan's description ("off(...)" when it does not). */
  String mode() {
    return mode;
  }

  private boolean active() {
    return mdt != null && !columns.isEmpty();
  }

  /** The partitions whose partition_stats do not rule the filters out, in their order. */
  List<String> prunePartitions(List<String> partitions) {
    if (!active() || !usePartitionStats || partitions.isEmpty()) {
      return partitions;
    }
    Map<String, Map<String, ColumnStat>> stats;
    try {
      stats = mdt.partitionStats(partitions, columns);
    } catch (RuntimeException e) {
      LOG.warn("Not pruning partitions of {}: partition_stats cannot be read", mdt.dataBasePath(), e);
      return partitions;
    }
    List<String> kept = new ArrayList<>();
    for (String partition : partitions) {
      Map<String, ColumnStat> s = stats.get(partition);
      if (s == null || mayMatch(s)) {
        kept.add(partition);
      }
    }
    return kept;
  }

  /** The splits of which some file may hold a matching row (per column_stats), in their order. */
  List<SliceSplit> pruneSlices(List<SliceSplit> splits) {
    if (!active() || splits.isEmpty()) {
      return splits;
    }
    Map<String, List<SliceSplit>> byPartition = new LinkedHashMap<>();
    for (SliceSplit s : splits) {
      byPartition.computeIfAbsent(s.partitionPath, k -> new ArrayList<>()).add(s);
    }
    Set<SliceSplit> kept = new LinkedHashSet<>();
    for (Map.Entry<String, List<SliceSplit>> e : byPartition.entrySet()) {
      Map<String, Map<String, ColumnStat>> stats;
      try {
        stats = mdt.columnStats(e.getKey(), columns);
      } catch (RuntimeException ex) {
        LOG.warn(
          "Not skipping files of partition '{}' of {}: column_stats cannot be read",
          e.getKey(),
          mdt.dataBasePath(),
          ex
        );
        kept.addAll(e.getValue());
        continue;
      }
      for (SliceSplit s : e.getValue()) {
        if (mayMatch(s, stats)) {
          kept.add(s);
        }
      }
    }
    List<SliceSplit> out = new ArrayList<>();
    for (SliceSplit s : splits) {
      if (kept.contains(s)) {
        out.add(s);
      }
    }
    return out;
  }

  private boolean mayMatch(SliceSplit split, Map<String, Map<String, ColumnStat>> stats) {
    if (split.logFiles.length > 0 && !wholeRecordMerges) {
      return true;
    }
    List<String> files = new ArrayList<>();
    if (split.baseFile != null) {
      files.add(fileName(split.baseFile));
    }
    for (String log : split.logFiles) {
      files.add(fileName(log));
    }
    for (String file : files) {
      Map<String, ColumnStat> s = stats.get(file);
      if (s == null || mayMatch(s)) {
        return true; // no stats for a file, or the file may hold a matching row
      }
    }
    return false;
  }

  private static String fileName(String path) {
    return path.substring(path.lastIndexOf('/') + 1);
  }

  /** Whether some row described by these stats may satisfy every filter. */
  boolean mayMatch(Map<String, ColumnStat> stats) {
    for (Filter f : filters) {
      if ((eval(f, stats, schema) & MAY_TRUE) == 0) {
        return false;
      }
    }
    return true;
  }

  // ---- evaluation ----

  /** {@link #MAY_TRUE} and/or {@link #MAY_FALSE} for filter {@code f} over rows with these stats. */
  static int eval(Filter f, Map<String, ColumnStat> stats, StructType schema) {
    if (f instanceof And a) {
      int l = eval(a.left(), stats, schema);
      int r = eval(a.right(), stats, schema);
      return (l & r & MAY_TRUE) | ((l | r) & MAY_FALSE);
    }
    if (f instanceof Or o) {
      int l = eval(o.left(), stats, schema);
      int r = eval(o.right(), stats, schema);
      return ((l | r) & MAY_TRUE) | (l & r & MAY_FALSE);
    }
    if (f instanceof Not n) {
      int c = eval(n.child(), stats, schema);
      return ((c & MAY_TRUE) != 0 ? MAY_FALSE : 0) | ((c & MAY_FALSE) != 0 ? MAY_TRUE : 0);
    }
    if (f instanceof AlwaysTrue) {
      return MAY_TRUE;
    }
    if (f instanceof AlwaysFalse) {
      return MAY_FALSE;
    }
    String attr = attribute(f);
    if (attr == null) {
      return UNKNOWN;
    }
    DataType type = columnType(schema, attr);
    ColumnStat s = stats.get(attr);
    if (type == null || s == null) {
      return UNKNOWN;
    }
    return leaf(f, type, s);
  }

  private static String attribute(Filter f) {
    if (f instanceof EqualTo e) {
      return e.attribute();
    }
    if (f instanceof EqualNullSafe e) {
      return e.attribute();
    }
    if (f instanceof GreaterThan g) {
      return g.attribute();
    }
    if (f instanceof GreaterThanOrEqual g) {
      return g.attribute();
    }
    if (f instanceof LessThan l) {
      return l.attribute();
    }
    if (f instanceof LessThanOrEqual l) {
      return l.attribute();
    }
    if (f instanceof In in) {
      return in.attribute();
    }
    if (f instanceof IsNull n) {
      return n.attribute();
    }
    if (f instanceof IsNotNull n) {
      return n.attribute();
    }
    if (f instanceof StringStartsWith s) {
      return s.attribute();
    }
    return null;
  }

  private static void collectColumns(Filter f, StructType schema, boolean metaFieldsWritten, Set<String> out) {
    if (f instanceof And a) {
      collectColumns(a.left(), schema, metaFieldsWritten, out);
      collectColumns(a.right(), schema, metaFieldsWritten, out);
    } else if (f instanceof Or o) {
      collectColumns(o.left(), schema, metaFieldsWritten, out);
      collectColumns(o.right(), schema, metaFieldsWritten, out);
    } else if (f instanceof Not n) {
      collectColumns(n.child(), schema, metaFieldsWritten, out);
    } else {
      String attr = attribute(f);
      if (attr != null && columnType(schema, attr) != null && (metaFieldsWritten || !attr.startsWith("_hoodie_"))) {
        out.add(attr);
      }
    }
  }

  /** The type of a top-level column of a type statistics can decide, or null. */
  private static DataType columnType(StructType schema, String attr) {
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

  private static int leaf(Filter f, DataType type, ColumnStat s) {
    Long nullCount = s.nullCount();
    Long valueCount = s.valueCount();
    boolean nulls = nullCount == null || nullCount > 0;
    boolean values =
      s.min() != null || s.max() != null || nullCount == null || valueCount == null || valueCount > nullCount;
    if (f instanceof IsNull) {
      return (nulls ? MAY_TRUE : 0) | (values ? MAY_FALSE : 0);
    }
    if (f instanceof IsNotNull) {
      return (values ? MAY_TRUE : 0) | (nulls ? MAY_FALSE : 0);
    }
    if (f instanceof EqualNullSafe e) {
      if (e.value() == null) {
        return (nulls ? MAY_TRUE : 0) | (values ? MAY_FALSE : 0);
      }
      int eq = values ? compareLeaf(new EqualTo(e.attribute(), e.value()), type, s) : NEVER;
      return eq | (nulls ? MAY_FALSE : 0);
    }
    if (!values) {
      return NEVER; // no row, or every value null: comparisons are NULL, never TRUE or FALSE
    }
    return compareLeaf(f, type, s);
  }

  /** A comparison over a column with some non-null values. */
  private static int compareLeaf(Filter f, DataType type, ColumnStat s) {
    Object min = canonical(type, s.min());
    Object max = canonical(type, s.max());
    if (min == null || max == null || !trustedBound(min) || !trustedBound(max)) {
      return UNKNOWN;
    }
    boolean fp = floating(type); // a NaN may hide among the values
    if (f instanceof EqualTo e) {
      Object v = literal(type, e.value());
      if (v == null) {
        return UNKNOWN;
      }
      boolean t = compare(min, v) <= 0 && compare(v, max) <= 0;
      boolean fl = fp || compare(min, v) != 0 || compare(max, v) != 0;
      return bits(t, fl);
    }
    if (f instanceof LessThan l) {
      Object v = literal(type, l.value());
      return v == null ? UNKNOWN : bits(compare(min, v) < 0, fp || compare(max, v) >= 0);
    }
    if (f instanceof LessThanOrEqual l) {
      Object v = literal(type, l.value());
      return v == null ? UNKNOWN : bits(compare(min, v) <= 0, fp || compare(max, v) > 0);
    }
    if (f instanceof GreaterThan g) {
      Object v = literal(type, g.value());
      return v == null ? UNKNOWN : bits(fp || compare(max, v) > 0, compare(min, v) <= 0);
    }
    if (f instanceof GreaterThanOrEqual g) {
      Object v = literal(type, g.value());
      return v == null ? UNKNOWN : bits(fp || compare(max, v) >= 0, compare(min, v) < 0);
    }
    if (f instanceof In in) {
      Object[] list = in.values();
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
    if (f instanceof StringStartsWith sw && min instanceof String lo && max instanceof String hi) {
      String p = sw.value();
      if (p == null) {
        return UNKNOWN;
      }
      boolean t = compare(hi, p) >= 0 && (compare(lo, p) <= 0 || lo.startsWith(p));
      boolean fl = !(lo.startsWith(p) && hi.startsWith(p));
      return bits(t, fl);
    }
    return UNKNOWN;
  }

  private static int bits(boolean mayTrue, boolean mayFalse) {
    return (mayTrue ? MAY_TRUE : 0) | (mayFalse ? MAY_FALSE : 0);
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
