package io.hudimeta.spark.merge;

import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.types.BinaryType;
import org.apache.spark.sql.types.BooleanType;
import org.apache.spark.sql.types.ByteType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DateType;
import org.apache.spark.sql.types.DecimalType;
import org.apache.spark.sql.types.DoubleType;
import org.apache.spark.sql.types.FloatType;
import org.apache.spark.sql.types.IntegerType;
import org.apache.spark.sql.types.LongType;
import org.apache.spark.sql.types.ShortType;
import org.apache.spark.sql.types.StringType;
import org.apache.spark.sql.types.TimestampNTZType;
import org.apache.spark.sql.types.TimestampType;
import org.apache.spark.sql.vectorized.ColumnVector;
import org.apache.spark.sql.vectorized.ColumnarArray;
import org.apache.spark.sql.vectorized.ColumnarMap;
import org.apache.spark.unsafe.types.UTF8String;

/**
 * One column of a merged batch: each row is a row of a base-file batch or a merged log record, as {@code source}
 * says (a base row index, or {@code -1 - i} for {@code patches[i]}). Nothing is copied: untouched rows are read
 * from the base vector, so a batch with a few updated rows costs an index array. Atomic types only
 * ({@link #supports}): a nested value would have to come back as a ColumnarArray, which a row cannot give.
 */
final class PatchedVector extends ColumnVector {

  private final ColumnVector base;
  private final InternalRow[] patches;
  private final int ordinal;
  private final int[] source;

  PatchedVector(DataType type, ColumnVector base, InternalRow[] patches, int ordinal, int[] source) {
    super(type);
    this.base = base;
    this.patches = patches;
    this.ordinal = ordinal;
    this.source = source;
  }

  /** Whether columns of this type can be patched (and so whether a merged scan can hand out batches). */
  static boolean supports(DataType type) {
    return (
      type instanceof BooleanType ||
      type instanceof ByteType ||
      type instanceof ShortType ||
      type instanceof IntegerType ||
      type instanceof LongType ||
      type instanceof FloatType ||
      type instanceof DoubleType ||
      type instanceof DateType ||
      type instanceof TimestampType ||
      type instanceof TimestampNTZType ||
      type instanceof StringType ||
      type instanceof BinaryType ||
      type instanceof DecimalType
    );
  }

  private InternalRow patch(int s) {
    return patches[-1 - s];
  }

  @Override
  public void close() {}

  @Override
  public boolean hasNull() {
    return true; // not known without a pass; readers then check isNullAt
  }

  @Override
  public int numNulls() {
    int n = 0;
    for (int r = 0; r < source.length; r++) {
      n += isNullAt(r) ? 1 : 0;
    }
    return n;
  }

  @Override
  public boolean isNullAt(int rowId) {
    int s = source[rowId];
    return s >= 0 ? base.isNullAt(s) : patch(s).isNullAt(ordinal);
  }

  @Override
  public boolean getBoolean(int rowId) {
    int s = source[rowId];
    return s >= 0 ? base.getBoolean(s) : patch(s).getBoolean(ordinal);
  }

  @Override
  public byte getByte(int rowId) {
    int s = source[rowId];
    return s >= 0 ? base.getByte(s) : patch(s).getByte(ordinal);
  }

  @Override
  public short getShort(int rowId) {
    int s = source[rowId];
    return s >= 0 ? base.getShort(s) : patch(s).getShort(ordinal);
  }

  @Override
  public int getInt(int rowId) {
    int s = source[rowId];
    return s >= 0 ? base.getInt(s) : patch(s).getInt(ordinal);
  }

  @Override
  public long getLong(int rowId) {
    int s = source[rowId];
    return s >= 0 ? base.getLong(s) : patch(s).getLong(ordinal);
  }

  @Override
  public float getFloat(int rowId) {
    int s = source[rowId];
    return s >= 0 ? base.getFloat(s) : patch(s).getFloat(ordinal);
  }

  @Override
  public double getDouble(int rowId) {
    int s = source[rowId];
    return s >= 0 ? base.getDouble(s) : patch(s).getDouble(ordinal);
  }

  @Override
  public org.apache.spark.sql.types.Decimal getDecimal(int rowId, int precision, int scale) {
    int s = source[rowId];
    return s >= 0 ? base.getDecimal(s, precision, scale) : patch(s).getDecimal(ordinal, precision, scale);
  }

  @Override
  public UTF8String getUTF8String(int rowId) {
    int s = source[rowId];
    return s >= 0 ? base.getUTF8String(s) : patch(s).getUTF8String(ordinal);
  }

  @Override
  public byte[] getBinary(int rowId) {
    int s = source[rowId];
    return s >= 0 ? base.getBinary(s) : patch(s).getBinary(ordinal);
  }

  @Override
  public ColumnarArray getArray(int rowId) {
    throw new UnsupportedOperationException("a patched column holds atomic values only");
  }

  @Override
  public ColumnarMap getMap(int ordinal) {
    throw new UnsupportedOperationException("a patched column holds atomic values only");
  }

  @Override
  public ColumnVector getChild(int ordinal) {
    throw new UnsupportedOperationException("a patched column holds atomic values only");
  }
}
