package io.hudimeta.spark.cdc;

import static org.apache.spark.sql.functions.udf;

import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.LocalDate;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.api.java.UDF1;
import org.apache.spark.sql.catalyst.util.DateTimeUtils;
import org.apache.spark.sql.expressions.UserDefinedFunction;
import org.apache.spark.sql.types.ArrayType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.MapType;
import org.apache.spark.sql.types.StructType;

/**
 * The text of a CDC image as Apache Hudi's CDC reader gives it: the Avro record's {@code toString}
 * ({@code GenericData.toString}: {@code {"id": 0, "name": "a"}}, a space after {@code :} and {@code ,}; strings
 * escaped as Avro escapes them; NaN and infinities quoted; dates as epoch days and timestamps as epoch
 * microseconds, the Avro values Hudi holds), and an absent image as the text {@code null}, not SQL NULL.
 * Found by running Apache Hudi 1.0.2 and 1.2.0 on our tables (docs/apache-hudi.md).
 */
final class CdcImages {

  private CdcImages() {}

  /** The image text of a struct column of type {@code type} ({@code "null"} when the struct is null). */
  static Column text(Column image, StructType type) {
    UserDefinedFunction format = udf(
      (UDF1<Row, String>) row -> {
        StringBuilder out = new StringBuilder();
        value(row, type, out);
        return out.toString();
      },
      DataTypes.StringType
    );
    return format.apply(image);
  }

  private static void value(Object v, DataType type, StringBuilder out) {
    if (v == null) {
      out.append("null");
    } else if (type instanceof StructType s) {
      record((Row) v, s, out);
    } else if (type instanceof ArrayType a) {
      list(listOf(v), a.elementType(), out);
    } else if (type instanceof MapType m) {
      map(mapOf(v), m, out);
    } else if (v instanceof String s) {
      out.append('"');
      escape(s, out);
      out.append('"');
    } else if (v instanceof byte[] b) {
      out.append("{\"bytes\": \"");
      escape(new String(b, StandardCharsets.ISO_8859_1), out);
      out.append("\"}");
    } else if (v instanceof Double d && (d.isNaN() || d.isInfinite())) {
      out.append('"').append(d).append('"');
    } else if (v instanceof Float f && (f.isNaN() || f.isInfinite())) {
      out.append('"').append(f).append('"');
    } else {
      out.append(avroValue(v));
    }
  }

  private static void record(Row row, StructType type, StringBuilder out) {
    out.append('{');
    for (int i = 0; i < type.fields().length; i++) {
      if (i > 0) {
        out.append(", ");
      }
      out.append('"');
      escape(type.fields()[i].name(), out);
      out.append("\": ");
      value(row.get(i), type.fields()[i].dataType(), out);
    }
    out.append('}');
  }

  private static void list(List<?> items, DataType element, StringBuilder out) {
    out.append('[');
    for (int i = 0; i < items.size(); i++) {
      if (i > 0) {
        out.append(", ");
      }
      value(items.get(i), element, out);
    }
    out.append(']');
  }

  private static void map(Map<?, ?> entries, MapType type, StringBuilder out) {
    out.append('{');
    int n = 0;
    for (Map.Entry<?, ?> e : entries.entrySet()) {
      if (n++ > 0) {
        out.append(", ");
      }
      value(String.valueOf(e.getKey()), DataTypes.StringType, out);
      out.append(": ");
      value(e.getValue(), type.valueType(), out);
    }
    out.append('}');
  }

  /** The value Hudi's Avro record holds for a Spark value: epoch days for dates, epoch micros for timestamps. */
  private static Object avroValue(Object v) {
    if (v instanceof java.sql.Date d) {
      return DateTimeUtils.fromJavaDate(d);
    }
    if (v instanceof LocalDate d) {
      return d.toEpochDay();
    }
    if (v instanceof java.sql.Timestamp t) {
      return DateTimeUtils.fromJavaTimestamp(t);
    }
    if (v instanceof Instant t) {
      return DateTimeUtils.instantToMicros(t);
    }
    if (v instanceof BigDecimal d) {
      return d.toPlainString();
    }
    return v;
  }

  private static List<?> listOf(Object v) {
    return v instanceof List<?> l ? l : scala.jdk.javaapi.CollectionConverters.asJava((scala.collection.Seq<?>) v);
  }

  private static Map<?, ?> mapOf(Object v) {
    return v instanceof Map<?, ?> m ? m : scala.jdk.javaapi.CollectionConverters.asJava((scala.collection.Map<?, ?>) v);
  }

  /** Avro's {@code GenericData.writeEscapedString} (adapted there from json-simple). */
  private static void escape(String s, StringBuilder out) {
    for (int i = 0; i < s.length(); i++) {
      char ch = s.charAt(i);
      switch (ch) {
        case '"' -> out.append("\\\"");
        case '\\' -> out.append("\\\\");
        case '\b' -> out.append("\\b");
        case '\f' -> out.append("\\f");
        case '\n' -> out.append("\\n");
        case '\r' -> out.append("\\r");
        case '\t' -> out.append("\\t");
        default -> {
          if (ch <= '\u001F' || (ch >= '\u007F' && ch <= '\u009F') || (ch >= '\u2000' && ch <= '\u20FF')) {
            String hex = Integer.toHexString(ch);
            out
              .append("\\u")
              .append("0".repeat(4 - hex.length()))
              .append(hex.toUpperCase());
          } else {
            out.append(ch);
          }
        }
      }
    }
  }
}
