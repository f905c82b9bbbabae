package io.hudimeta.avro;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import org.apache.avro.LogicalType;
import org.apache.avro.LogicalTypes;
import org.apache.avro.Schema;
import org.apache.spark.sql.types.ArrayType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.DecimalType;
import org.apache.spark.sql.types.MapType;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;

/**
 * Avro schema utilities: parsing Hudi-written schema JSON and mapping Avro types to Spark types.
 *
 * <p>Mapping: a union of null and one type is that type, nullable; other unions are rejected.
 * Records become structs, arrays arrays, maps maps with string keys, enums strings, fixed and bytes
 * binary. Logical types: decimal (bytes or fixed) → DecimalType(p,s); date → DateType;
 * timestamp-millis/micros → TimestampType; local-timestamp-millis/micros → TimestampNTZType;
 * time-millis/micros → LongType (the raw Avro number); uuid → StringType. Other logical types map
 * like their underlying type.
 */
public final class AvroSchemas {

  private AvroSchemas() {}

  /** Parses schema JSON; default values are not validated, as writers have produced odd ones. */
  public static Schema parse(String json) {
    return new Schema.Parser().setValidateDefaults(false).parse(json);
  }

  /** The Spark struct type of an Avro record schema (possibly wrapped in a nullable union). */
  public static StructType toStructType(Schema schema) {
    DataType type = toSparkType(schema);
    if (!(type instanceof StructType)) {
      throw new IllegalArgumentException("expected an Avro record schema but got " + schema.getType() + ": " + schema);
    }
    return (StructType) type;
  }

  /** The Spark type of an Avro schema; nullability is reported by {@link #isNullable}. */
  public static DataType toSparkType(Schema schema) {
    return new Mapper().map(schema, schema.getFullName());
  }

  /** True for a union that contains null (or the null type itself). */
  public static boolean isNullable(Schema schema) {
    if (schema.getType() == Schema.Type.NULL) {
      return true;
    }
    if (schema.getType() != Schema.Type.UNION) {
      return false;
    }
    for (Schema branch : schema.getTypes()) {
      if (branch.getType() == Schema.Type.NULL) {
        return true;
      }
    }
    return false;
  }

  /**
   * The schema without its null branch: a union of null and one type gives that type, any other
   * schema is returned as is. Unions with several non-null branches are rejected.
   */
  public static Schema nonNull(Schema schema, String path) {
    if (schema.getType() != Schema.Type.UNION) {
      return schema;
    }
    List<Schema> types = new ArrayList<>();
    for (Schema branch : schema.getTypes()) {
      if (branch.getType() != Schema.Type.NULL) {
        types.add(branch);
      }
    }
    if (types.size() == 1) {
      return types.get(0);
    }
    if (types.isEmpty()) {
      return Schema.create(Schema.Type.NULL);
    }
    throw new IllegalArgumentException(
      "Avro union " + schema + " at " + path + " is not supported: only unions of null and one type map to Spark"
    );
  }

  /** Name of the logical type, or null ("local-timestamp-*" included, whatever the Avro version). */
  static String logicalName(Schema schema) {
    LogicalType logical = schema.getLogicalType();
    return logical != null ? logical.getName() : schema.getProp(LogicalType.LOGICAL_TYPE_PROP);
  }

  /** Walks a schema once, tracking the record names on the path to reject recursive records. */
  private static final class Mapper {

    private final Deque<String> recordsOnPath = new ArrayDeque<>();

    DataType map(Schema schema, String path) {
      Schema s = nonNull(schema, path);
      switch (s.getType()) {
        case NULL:
          return DataTypes.NullType;
        case BOOLEAN:
          return DataTypes.BooleanType;
        case INT:
          return fromInt(s);
        case LONG:
          return fromLong(s);
        case FLOAT:
          return DataTypes.FloatType;
        case DOUBLE:
          return DataTypes.DoubleType;
        case STRING:
        case ENUM:
          return DataTypes.StringType;
        case BYTES:
        case FIXED:
          return fromBinary(s, path);
        case RECORD:
          return struct(s, path);
        case ARRAY:
          Schema items = s.getElementType();
          return ArrayType.apply(map(items, path + "[]"), isNullable(items));
        case MAP:
          Schema values = s.getValueType();
          return MapType.apply(DataTypes.StringType, map(values, path + "{}"), isNullable(values));
        default:
          throw new IllegalArgumentException("Avro type " + s.getType() + " at " + path + " has no Spark equivalent");
      }
    }

    private static DataType fromInt(Schema s) {
      String logical = logicalName(s);
      if ("date".equals(logical)) {
        return DataTypes.DateType;
      }
      return "time-millis".equals(logical) ? DataTypes.LongType : DataTypes.IntegerType;
    }

    private static DataType fromLong(Schema s) {
      String logical = logicalName(s);
      if ("timestamp-millis".equals(logical) || "timestamp-micros".equals(logical)) {
        return DataTypes.TimestampType;
      }
      if ("local-timestamp-millis".equals(logical) || "local-timestamp-micros".equals(logical)) {
        return DataTypes.TimestampNTZType;
      }
      return DataTypes.LongType;
    }

    private static DataType fromBinary(Schema s, String path) {
      LogicalType logical = s.getLogicalType();
      if (logical instanceof LogicalTypes.Decimal) {
        return decimalType((LogicalTypes.Decimal) logical, path);
      }
      return "uuid".equals(logicalName(s)) ? DataTypes.StringType : DataTypes.BinaryType;
    }

    private StructType struct(Schema record, String path) {
      String name = record.getFullName();
      if (recordsOnPath.contains(name)) {
        throw new IllegalArgumentException(
          "recursive Avro record " + name + " at " + path + " has no Spark equivalent"
        );
      }
      recordsOnPath.push(name);
      List<StructField> fields = new ArrayList<>();
      for (Schema.Field f : record.getFields()) {
        DataType type = map(f.schema(), path + "." + f.name());
        fields.add(DataTypes.createStructField(f.name(), type, isNullable(f.schema())));
      }
      recordsOnPath.pop();
      return DataTypes.createStructType(fields);
    }
  }

  static DecimalType decimalType(LogicalTypes.Decimal decimal, String path) {
    if (decimal.getPrecision() > DecimalType.MAX_PRECISION()) {
      throw new IllegalArgumentException(
        "Avro decimal(" +
          decimal.getPrecision() +
          "," +
          decimal.getScale() +
          ") at " +
          path +
          " exceeds Spark's maximum precision " +
          DecimalType.MAX_PRECISION()
      );
    }
    return DataTypes.createDecimalType(decimal.getPrecision(), decimal.getScale());
  }
}
