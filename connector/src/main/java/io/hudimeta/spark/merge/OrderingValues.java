package io.hudimeta.spark.merge;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.nio.ByteBuffer;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.Decimal;
import org.apache.spark.sql.types.DecimalType;
import org.apache.spark.unsafe.types.UTF8String;

/** Ordering values from delete blocks (Java objects) made comparable with the column's values. */
final class OrderingValues {

  private OrderingValues() {}

  @SuppressWarnings("rawtypes")
  static Comparable normalize(Object v, DataType type) {
    if (v == null || type == null) {
      return null;
    }
    if (type == DataTypes.StringType) {
      return UTF8String.fromString(v.toString());
    }
    if (type == DataTypes.LongType || type == DataTypes.TimestampType || type == DataTypes.TimestampNTZType) {
      return ((Number) v).longValue();
    }
    if (type == DataTypes.IntegerType || type == DataTypes.DateType) {
      return ((Number) v).intValue();
    }
    if (type == DataTypes.ShortType) {
      return ((Number) v).shortValue();
    }
    if (type == DataTypes.ByteType) {
      return ((Number) v).byteValue();
    }
    if (type == DataTypes.DoubleType) {
      return ((Number) v).doubleValue();
    }
    if (type == DataTypes.FloatType) {
      return ((Number) v).floatValue();
    }
    if (type instanceof DecimalType) {
      DecimalType d = (DecimalType) type;
      BigDecimal big = v instanceof BigDecimal ? (BigDecimal) v : new BigDecimal(v.toString());
      return Decimal.apply(big.setScale(d.scale(), RoundingMode.HALF_UP), d.precision(), d.scale());
    }
    if (type == DataTypes.BooleanType) {
      return (Boolean) v;
    }
    if (v instanceof ByteBuffer) {
      return UTF8String.fromBytes(((ByteBuffer) v).array());
    }
    return v instanceof Comparable ? (Comparable) v : v.toString();
  }
}
