package io.hudimeta.index;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.LocalDate;
import java.time.format.DateTimeParseException;
import org.apache.spark.sql.catalyst.util.DateTimeUtils;
import org.apache.spark.sql.types.BooleanType;
import org.apache.spark.sql.types.ByteType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DateType;
import org.apache.spark.sql.types.IntegerType;
import org.apache.spark.sql.types.LongType;
import org.apache.spark.sql.types.ShortType;
import org.apache.spark.sql.types.StringType;
import org.apache.spark.unsafe.types.UTF8String;

/**
 * The text a secondary index stores for a column value: Hudi writes the string form of the value as
 * its records hold it, so a string as it is, an integer or a boolean as Java prints it, and a date as its
 * Avro int (days since 1970-01-01, e.g. {@code 19743}). For other types (floating point, decimals,
 * timestamps) the stored text depends on details this reader does not pin down, so they are not used.
 */
public final class SecondaryValues {

  private SecondaryValues() {}

  /**
   * Whether values of a column of type {@code t} can be turned into their key text. Strings only when
   * compared bytewise: under another collation a filter also matches values whose text differs.
   */
  public static boolean isIndexable(DataType t) {
    return (
      (t instanceof StringType st && st.supportsBinaryEquality()) ||
      t instanceof ByteType ||
      t instanceof ShortType ||
      t instanceof IntegerType ||
      t instanceof LongType ||
      t instanceof BooleanType ||
      t instanceof DateType
    );
  }

  /**
   * The key text of a filter literal compared with a column of type {@code t} (Spark's external types:
   * String, boxed integers and booleans, java.sql.Date or LocalDate), or null when it cannot be known.
   */
  public static String text(DataType t, Object v) {
    if (!isIndexable(t) || v == null) {
      return null;
    }
    if (t instanceof StringType) {
      return v instanceof String || v instanceof UTF8String ? v.toString() : null;
    }
    if (t instanceof BooleanType) {
      return v instanceof Boolean ? v.toString() : null;
    }
    if (t instanceof DateType) {
      return epochDay(v);
    }
    boolean integral = v instanceof Byte || v instanceof Short || v instanceof Integer || v instanceof Long;
    return integral ? v.toString() : null;
  }

  /** Days since the epoch of a date literal, as Spark counts them (its own inverse of toJavaDate). */
  private static String epochDay(Object v) {
    if (v instanceof LocalDate d) {
      return Long.toString(d.toEpochDay());
    }
    if (v instanceof java.sql.Date d) {
      return Integer.toString(DateTimeUtils.fromJavaDate(d));
    }
    return null;
  }

  /**
   * The key text of a value given as JSON (a lookup from the command line): a date column takes an ISO
   * date ({@code "2024-01-21"}) or its day number; anything else is taken as the text it is, as is every
   * value when the column's type is unknown ({@code t} null).
   *
   * @throws IllegalArgumentException for null, arrays and objects, or a date that does not parse
   */
  public static String fromJson(DataType t, JsonNode v) {
    if (v == null || !v.isValueNode() || v.isNull()) {
      throw new IllegalArgumentException("hudi-meta: secondary-index values are strings, numbers or booleans: " + v);
    }
    if (t instanceof DateType && v.isTextual() && !v.asText().matches("-?\\d+")) {
      try {
        return Long.toString(LocalDate.parse(v.asText()).toEpochDay());
      } catch (DateTimeParseException e) {
        throw new IllegalArgumentException("hudi-meta: '" + v.asText() + "' is not a date (yyyy-MM-dd)", e);
      }
    }
    return v.asText();
  }
}
