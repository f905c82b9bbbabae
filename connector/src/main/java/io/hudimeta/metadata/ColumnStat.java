package io.hudimeta.metadata;

import java.math.BigDecimal;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;

/**
 * Statistics of one column in one file ({@code column_stats}, type 3) or one data partition
 * ({@code partition_stats}, type 6), with min/max unwrapped to plain Java values.
 *
 * <p>Value types: Boolean, Integer, Long, Float, Double, String, byte[] (BytesWrapper), LocalDate
 * (DateWrapper, LocalDateWrapper), BigDecimal (DecimalWrapper), Long (TimeMicrosWrapper, epoch-free
 * micros of day), java.time.Instant (TimestampMicrosWrapper), List (v9 ArrayWrapper). When the record
 * carries a v9 {@code valueType} the primitive is interpreted by it (see {@link #valueType}):
 * DATE → LocalDate, DECIMAL → BigDecimal (scale from {@code valueTypeInfo} "precision,scale"),
 * TIME_MILLIS/MICROS → LocalTime, TIMESTAMP_* → Instant, LOCAL_TIMESTAMP_* → LocalDateTime.
 * Without a valueType (table version 8) values are exactly what the wrapper held.
 *
 * @param fileName      file name (column_stats) or partition path (partition_stats)
 * @param min           smallest value, null when unknown or all null
 * @param max           largest value, null when unknown or all null
 * @param nullCount     null values, or null when not recorded
 * @param valueCount    values including nulls, or null when not recorded
 * @param valueType     v9 {@code HoodieValueTypeInfo.typeOrdinal} (Hudi's ValueType enum: 2 boolean, 3 int,
 *                      4 long, 5 float, 6 double, 7 string, 8 bytes, 9 fixed, 10 decimal, 11 uuid, 12 date,
 *                      13/14 time millis/micros, 15/16/17 timestamp millis/micros/nanos, 18/19/20 local
 *                      timestamp millis/micros/nanos), or null in v8 records
 * @param valueTypeInfo v9 {@code additionalInfo} (decimal: "precision,scale"), or null
 */
public record ColumnStat(
  String fileName,
  String columnName,
  Object min,
  Object max,
  Long nullCount,
  Long valueCount,
  Long totalSize,
  Long totalUncompressedSize,
  boolean isTightBound,
  Integer valueType,
  String valueTypeInfo
) {
  /**
   * Hudi's merge of two records of the same key (older first, both not deleted): a newer record
   * computed over all the data ({@code isTightBound}) replaces the older one; otherwise the smaller
   * min, the larger max, summed counts and the newer record's other fields.
   */
  static ColumnStat merge(ColumnStat older, ColumnStat newer) {
    if (newer.isTightBound) {
      return newer;
    }
    return new ColumnStat(
      newer.fileName,
      newer.columnName,
      pick(older.min, newer.min, true),
      pick(older.max, newer.max, false),
      sum(older.nullCount, newer.nullCount),
      sum(older.valueCount, newer.valueCount),
      sum(older.totalSize, newer.totalSize),
      sum(older.totalUncompressedSize, newer.totalUncompressedSize),
      newer.isTightBound,
      newer.valueType,
      newer.valueTypeInfo
    );
  }

  private static Long sum(Long a, Long b) {
    if (a == null) {
      return b;
    }
    return b == null ? a : a + b;
  }

  private static Object pick(Object a, Object b, boolean smaller) {
    if (a == null) {
      return b;
    }
    if (b == null) {
      return a;
    }
    Integer c = compare(a, b);
    if (c == null) {
      return b; // values of different kinds (a column type change): keep the newer one
    }
    return smaller == c <= 0 ? a : b;
  }

  /** Natural order of two stat values of the same kind (byte[] unsigned), null when incomparable. */
  @SuppressWarnings({ "unchecked", "rawtypes" })
  public static Integer compare(Object a, Object b) {
    if (a instanceof byte[] x && b instanceof byte[] y) {
      return Arrays.compareUnsigned(x, y);
    }
    if (a instanceof BigDecimal x && b instanceof BigDecimal y) {
      return x.compareTo(y);
    }
    if (a instanceof List || b instanceof List || a.getClass() != b.getClass() || !(a instanceof Comparable)) {
      return null;
    }
    return ((Comparable) a).compareTo(b);
  }

  @Override
  public boolean equals(Object o) {
    if (!(o instanceof ColumnStat s)) {
      return false;
    }
    return (
      isTightBound == s.isTightBound &&
      Objects.equals(fileName, s.fileName) &&
      Objects.equals(columnName, s.columnName) &&
      Objects.deepEquals(min, s.min) &&
      Objects.deepEquals(max, s.max) &&
      Objects.equals(nullCount, s.nullCount) &&
      Objects.equals(valueCount, s.valueCount) &&
      Objects.equals(totalSize, s.totalSize) &&
      Objects.equals(totalUncompressedSize, s.totalUncompressedSize) &&
      Objects.equals(valueType, s.valueType) &&
      Objects.equals(valueTypeInfo, s.valueTypeInfo)
    );
  }

  @Override
  public int hashCode() {
    return Objects.hash(fileName, columnName, nullCount, valueCount, valueType);
  }
}
