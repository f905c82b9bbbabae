package io.hudimeta.spark.merge;

import java.io.Serializable;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.StringType;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.unsafe.types.UTF8String;

/**
 * How records of one file group are merged: the positions of the record key, the ordering field
 * and _hoodie_is_deleted in the merge schema, and the table's merge mode.
 */
public final class MergeSpec implements Serializable {

  /** The soft-delete marker column: a record with it true is a delete. */
  public static final String IS_DELETED = "_hoodie_is_deleted";

  final boolean eventTimeOrdering;
  final int keyIndex;
  final DataType keyType;
  final int orderingIndex;
  final DataType orderingType;
  final int isDeletedIndex;

  public MergeSpec(StructType mergeSchema, String keyField, String orderingField, boolean eventTimeOrdering) {
    this.keyIndex = mergeSchema.fieldIndex(keyField);
    this.keyType = mergeSchema.fields()[keyIndex].dataType();
    this.orderingIndex = orderingField == null ? -1 : indexOf(mergeSchema, orderingField);
    this.orderingType = orderingIndex < 0 ? null : mergeSchema.fields()[orderingIndex].dataType();
    this.isDeletedIndex = indexOf(mergeSchema, IS_DELETED);
    this.eventTimeOrdering = eventTimeOrdering && orderingIndex >= 0;
  }

  private static int indexOf(StructType schema, String name) {
    String[] names = schema.fieldNames();
    for (int i = 0; i < names.length; i++) {
      if (names[i].equals(name)) {
        return i;
      }
    }
    return -1;
  }

  /**
   * The row's record key; a string key is the row's own bytes (a view of a column vector's buffer for a base row,
   * so it is only looked up with, never kept).
   */
  UTF8String key(InternalRow row) {
    // the key column is _hoodie_record_key, or the key field itself in tables without meta fields
    if (row.isNullAt(keyIndex)) {
      return null;
    }
    return keyType instanceof StringType
      ? row.getUTF8String(keyIndex)
      : UTF8String.fromString(String.valueOf(row.get(keyIndex, keyType)));
  }

  @SuppressWarnings({ "unchecked", "rawtypes" })
  Comparable ordering(InternalRow row) {
    if (orderingIndex < 0 || row.isNullAt(orderingIndex)) {
      return null;
    }
    return (Comparable) row.get(orderingIndex, orderingType);
  }

  boolean isSoftDeleted(InternalRow row) {
    return isDeletedIndex >= 0 && !row.isNullAt(isDeletedIndex) && row.getBoolean(isDeletedIndex);
  }
}
