package io.hudimeta.avro;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.Arrays;
import java.util.Collection;
import java.util.Map;
import java.util.UUID;
import org.apache.avro.LogicalTypes;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericFixed;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.generic.IndexedRecord;
import org.apache.avro.util.Utf8;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.catalyst.util.ArrayBasedMapData;
import org.apache.spark.sql.catalyst.util.GenericArrayData;
import org.apache.spark.sql.types.ArrayType;
import org.apache.spark.sql.types.BinaryType;
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
import org.apache.spark.sql.types.MapType;
import org.apache.spark.sql.types.NullType;
import org.apache.spark.sql.types.ShortType;
import org.apache.spark.sql.types.StringType;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.types.TimestampNTZType;
import org.apache.spark.sql.types.TimestampType;
import org.apache.spark.unsafe.types.UTF8String;

/**
 * Converts Avro records of one schema into Spark rows of a requested struct type.
 *
 * <p>Fields are matched by name (exact first, then case-insensitively), so the requested type may
 * prune, reorder or add fields: a field the Avro schema lacks reads as null, which is how older
 * records meet a newer table schema. Widening is allowed where Hudi's schema evolution allows it
 * (int → long/float/double/decimal, long → float/double/decimal, float → double, decimal
 * precision/scale changes, numbers and booleans → string, string ↔ binary); anything else fails
 * when the converter is built, naming the field.
 *
 * <p>Values follow Spark's internal representation: UTF8String, Decimal, GenericArrayData,
 * ArrayBasedMapData, dates as epoch days, timestamps as epoch microseconds (millis × 1000),
 * time-millis/micros as the raw number. The per-field plan is built once in the constructor.
 * Not thread-safe (it remembers the last record schema it checked).
 */
public final class AvroRowConverter {

  /** Converts one non-null Avro value to its Spark internal value. */
  @FunctionalInterface
  private interface Conv {
    Object apply(Object avroValue);
  }

  private final Schema schema;
  private final StructType requested;
  private final Conv root;
  private Schema lastCheckedSchema;

  public AvroRowConverter(Schema avroRecordSchema, StructType requested) {
    this.schema = AvroSchemas.nonNull(avroRecordSchema, "<root>");
    this.requested = requested;
    this.root = build(schema, requested, schema.getName());
    this.lastCheckedSchema = schema;
  }

  /** The row type produced. */
  public StructType requestedType() {
    return requested;
  }

  /** The record as a row of the requested type; {@code record} must have this converter's schema. */
  public InternalRow convert(GenericRecord record) {
    Schema actual = record.getSchema();
    if (actual != lastCheckedSchema) {
      if (!actual.equals(schema)) {
        throw new IllegalArgumentException(
          "record of schema " +
            actual.getFullName() +
            " differs from the schema this converter was built for (" +
            schema.getFullName() +
            "); build one converter per writer schema"
        );
      }
      lastCheckedSchema = actual;
    }
    return (InternalRow) root.apply(record);
  }

  // ---- building the plan -------------------------------------------------------------------

  private static Conv build(Schema avro, DataType target, String path) {
    Schema s = AvroSchemas.nonNull(avro, path);
    if (target instanceof NullType) {
      return v -> null;
    }
    if (target instanceof StructType) {
      return struct(require(s, target, path, Schema.Type.RECORD), (StructType) target, path);
    }
    if (target instanceof ArrayType) {
      return array(require(s, target, path, Schema.Type.ARRAY), (ArrayType) target, path);
    }
    if (target instanceof MapType) {
      return map(require(s, target, path, Schema.Type.MAP), (MapType) target, path);
    }
    if (target instanceof DecimalType) {
      return decimal(s, (DecimalType) target, path);
    }
    if (target instanceof StringType) {
      return string(s, target, path);
    }
    if (target instanceof BinaryType) {
      return binary(s, target, path);
    }
    if (target instanceof TimestampType || target instanceof TimestampNTZType) {
      return timestamp(require(s, target, path, Schema.Type.LONG));
    }
    if (target instanceof DateType) {
      require(s, target, path, Schema.Type.INT);
      return v -> v instanceof LocalDate ? (int) ((LocalDate) v).toEpochDay() : v;
    }
    return number(s, target, path);
  }

  private static Conv number(Schema s, DataType target, String path) {
    Schema.Type t = s.getType();
    boolean intOrLong = t == Schema.Type.INT || t == Schema.Type.LONG;
    if (target instanceof BooleanType && t == Schema.Type.BOOLEAN) {
      return v -> v;
    }
    if (
      (target instanceof IntegerType || target instanceof ShortType || target instanceof ByteType) &&
      t == Schema.Type.INT
    ) {
      // Hudi stores Spark byte and short columns as Avro int.
      if (target instanceof ShortType) {
        return v -> ((Number) v).shortValue();
      }
      return target instanceof ByteType ? v -> ((Number) v).byteValue() : v -> v;
    }
    if (target instanceof LongType && intOrLong) {
      return v -> ((Number) v).longValue();
    }
    if (target instanceof FloatType && (intOrLong || t == Schema.Type.FLOAT)) {
      return v -> ((Number) v).floatValue();
    }
    if (target instanceof DoubleType && (intOrLong || t == Schema.Type.FLOAT || t == Schema.Type.DOUBLE)) {
      return v -> ((Number) v).doubleValue();
    }
    throw mismatch(s, target, path);
  }

  private static Conv struct(Schema record, StructType target, String path) {
    StructField[] fields = target.fields();
    int[] positions = new int[fields.length];
    Conv[] convs = new Conv[fields.length];
    for (int i = 0; i < fields.length; i++) {
      Schema.Field source = findField(record, fields[i].name(), path);
      positions[i] = source == null ? -1 : source.pos();
      convs[i] = source == null ? null : build(source.schema(), fields[i].dataType(), path + "." + fields[i].name());
    }
    return v -> {
      IndexedRecord r = (IndexedRecord) v;
      Object[] values = new Object[positions.length];
      for (int i = 0; i < positions.length; i++) {
        Object raw = positions[i] < 0 ? null : r.get(positions[i]);
        values[i] = raw == null ? null : convs[i].apply(raw);
      }
      return new GenericInternalRow(values);
    };
  }

  /** The Avro field called {@code name}: exact match, else the one case-insensitive match. */
  private static Schema.Field findField(Schema record, String name, String path) {
    Schema.Field exact = record.getField(name);
    if (exact != null) {
      return exact;
    }
    Schema.Field found = null;
    for (Schema.Field f : record.getFields()) {
      if (f.name().equalsIgnoreCase(name)) {
        if (found != null) {
          throw new IllegalArgumentException(
            "field " +
              name +
              " of " +
              path +
              " matches Avro fields " +
              found.name() +
              " and " +
              f.name() +
              " case-insensitively"
          );
        }
        found = f;
      }
    }
    return found;
  }

  private static Conv array(Schema s, ArrayType target, String path) {
    Conv element = build(s.getElementType(), target.elementType(), path + "[]");
    return v -> {
      Collection<?> items = (Collection<?>) v;
      Object[] out = new Object[items.size()];
      int i = 0;
      for (Object item : items) {
        out[i++] = item == null ? null : element.apply(item);
      }
      return new GenericArrayData(out);
    };
  }

  private static Conv map(Schema s, MapType target, String path) {
    if (!(target.keyType() instanceof StringType)) {
      throw new IllegalArgumentException(
        "map at " +
          path +
          " is requested with key type " +
          target.keyType().simpleString() +
          " but Avro map keys are strings"
      );
    }
    Conv value = build(s.getValueType(), target.valueType(), path + "{}");
    return v -> {
      Map<?, ?> entries = (Map<?, ?>) v;
      Object[] keys = new Object[entries.size()];
      Object[] values = new Object[entries.size()];
      int i = 0;
      for (Map.Entry<?, ?> e : entries.entrySet()) {
        keys[i] = utf8(e.getKey());
        values[i++] = e.getValue() == null ? null : value.apply(e.getValue());
      }
      return new ArrayBasedMapData(new GenericArrayData(keys), new GenericArrayData(values));
    };
  }

  private static Conv decimal(Schema s, DecimalType target, String path) {
    int precision = target.precision();
    int scale = target.scale();
    switch (s.getType()) {
      case BYTES:
      case FIXED:
        if (!(s.getLogicalType() instanceof LogicalTypes.Decimal)) {
          throw mismatch(s, target, path);
        }
        AvroSchemas.decimalType((LogicalTypes.Decimal) s.getLogicalType(), path);
        int sourceScale = ((LogicalTypes.Decimal) s.getLogicalType()).getScale();
        return v ->
          Decimal.apply(
            v instanceof BigDecimal ? (BigDecimal) v : new BigDecimal(new BigInteger(bytes(v)), sourceScale),
            precision,
            scale
          );
      case INT:
      case LONG:
        if (s.getLogicalType() != null) {
          throw mismatch(s, target, path);
        }
        return v -> Decimal.apply(BigDecimal.valueOf(((Number) v).longValue()), precision, scale);
      default:
        throw mismatch(s, target, path);
    }
  }

  private static Conv string(Schema s, DataType target, String path) {
    String logical = AvroSchemas.logicalName(s);
    switch (s.getType()) {
      case STRING:
        return AvroRowConverter::utf8;
      case ENUM:
        return v -> UTF8String.fromString(v.toString());
      case BYTES:
        return logical == null ? v -> UTF8String.fromBytes(bytes(v)) : fail(s, target, path);
      case FIXED:
        return "uuid".equals(logical) ? v -> UTF8String.fromString(uuid(bytes(v))) : fail(s, target, path);
      case BOOLEAN:
      case INT:
      case LONG:
      case FLOAT:
      case DOUBLE:
        // Hudi's schema evolution may turn a number column into a string one.
        return logical == null ? v -> UTF8String.fromString(v.toString()) : fail(s, target, path);
      default:
        throw mismatch(s, target, path);
    }
  }

  private static Conv binary(Schema s, DataType target, String path) {
    switch (s.getType()) {
      case BYTES:
      case FIXED:
        return AvroRowConverter::bytes;
      case STRING:
        return v -> v.toString().getBytes(StandardCharsets.UTF_8);
      default:
        throw mismatch(s, target, path);
    }
  }

  private static Conv timestamp(Schema s) {
    String logical = AvroSchemas.logicalName(s);
    boolean millis = "timestamp-millis".equals(logical) || "local-timestamp-millis".equals(logical);
    return v -> {
      if (v instanceof Instant) {
        return ChronoUnit.MICROS.between(Instant.EPOCH, (Instant) v);
      }
      if (v instanceof LocalDateTime) {
        return ChronoUnit.MICROS.between(Instant.EPOCH, ((LocalDateTime) v).toInstant(ZoneOffset.UTC));
      }
      long raw = (Long) v;
      return millis ? Math.multiplyExact(raw, 1000L) : raw;
    };
  }

  // ---- value helpers -----------------------------------------------------------------------

  private static UTF8String utf8(Object v) {
    if (v instanceof Utf8) {
      Utf8 u = (Utf8) v;
      // Copy: the decoder may reuse the Utf8 buffer, and it can be longer than the string.
      return UTF8String.fromBytes(Arrays.copyOf(u.getBytes(), u.getByteLength()));
    }
    return UTF8String.fromString(v.toString());
  }

  private static byte[] bytes(Object v) {
    if (v instanceof ByteBuffer) {
      ByteBuffer b = ((ByteBuffer) v).duplicate();
      byte[] out = new byte[b.remaining()];
      b.get(out);
      return out;
    }
    if (v instanceof GenericFixed) {
      return ((GenericFixed) v).bytes().clone();
    }
    return ((byte[]) v).clone();
  }

  private static String uuid(byte[] b) {
    ByteBuffer buf = ByteBuffer.wrap(b);
    return new UUID(buf.getLong(), buf.getLong()).toString();
  }

  private static Schema require(Schema s, DataType target, String path, Schema.Type expected) {
    if (s.getType() != expected) {
      throw mismatch(s, target, path);
    }
    return s;
  }

  private static Conv fail(Schema s, DataType target, String path) {
    throw mismatch(s, target, path);
  }

  private static IllegalArgumentException mismatch(Schema s, DataType target, String path) {
    String logical = AvroSchemas.logicalName(s);
    return new IllegalArgumentException(
      "cannot read Avro " +
        s.getType() +
        (logical == null ? "" : " (" + logical + ")") +
        " at " +
        path +
        " as Spark " +
        target.simpleString()
    );
  }
}
