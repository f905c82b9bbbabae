package io.hudimeta.spark.merge;

import io.hudimeta.table.MetaFields;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.connector.read.PartitionReader;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.unsafe.types.UTF8String;

/**
 * What a log compaction writes for one file slice (read option hudi-meta.logcompaction.instant): every
 * key's surviving log record, merged as a snapshot merges logs but without the base file, and every key
 * the logs delete. Rows carry {@link #DELETED} (a deleted key: only the key, partition and ordering
 * value are set), {@link #COMPACTED} (the instants merged, Hudi's COMPACTED_BLOCK_TIMES header value) and
 * {@link #FILE_ID} (the slice's file group).
 */
public final class LogCompactionReader implements PartitionReader<InternalRow> {

  static final String DELETED = "_hudi_deleted";
  static final String COMPACTED = "_hudi_compacted";
  static final String FILE_ID = "_hudi_file_id";
  private static final List<String> ADDED = List.of(DELETED, COMPACTED, FILE_ID);
  private static final String PARTITION_PATH = MetaFields.PARTITION_PATH;

  private final Iterator<InternalRow> rows;
  private InternalRow current;

  /** The table's schema with the two columns a log compaction's read adds. */
  public static StructType schema(StructType table) {
    return table
      .add(DELETED, DataTypes.BooleanType, false)
      .add(COMPACTED, DataTypes.StringType, false)
      .add(FILE_ID, DataTypes.StringType, false);
  }

  /** `mergeSchema` without the added columns: what the log blocks are decoded in. */
  public static StructType withoutAddedColumns(StructType mergeSchema) {
    List<StructField> fields = new ArrayList<>();
    for (StructField f : mergeSchema.fields()) {
      if (!ADDED.contains(f.name())) {
        fields.add(f);
      }
    }
    return DataTypes.createStructType(fields);
  }

  /** The rows of one slice ({@code partitionPath}, {@code fileId}) from the scan of its log files. */
  public LogCompactionReader(
    LogScanner.Result scan,
    String partitionPath,
    String fileId,
    StructType required,
    StructType mergeSchema,
    MergeSpec spec
  ) {
    Map<String, Object> added = Map.of(
      COMPACTED,
      UTF8String.fromString(String.join(",", scan.validInstants)),
      FILE_ID,
      UTF8String.fromString(fileId),
      PARTITION_PATH,
      UTF8String.fromString(partitionPath)
    );
    StructField[] out = required.fields();
    int[] at = new int[out.length]; // each output column's position in the merged rows (-1: an added column)
    for (int i = 0; i < out.length; i++) {
      at[i] = index(mergeSchema, out[i].name());
    }
    List<InternalRow> result = new ArrayList<>();
    scan.buffer.drainTo(
      new LogRecordBuffer.Sink() {
        @Override
        public void record(InternalRow row) {
          Object[] values = new Object[out.length];
          for (int i = 0; i < out.length; i++) {
            String name = out[i].name();
            values[i] = name.equals(DELETED)
              ? Boolean.FALSE
              : at[i] < 0
                ? added.get(name)
                : row.isNullAt(at[i])
                  ? null
                  : row.get(at[i], out[i].dataType());
          }
          result.add(new GenericInternalRow(values));
        }

        @Override
        public void delete(UTF8String key, Object ordering) {
          Object[] values = new Object[out.length];
          for (int i = 0; i < out.length; i++) {
            String name = out[i].name();
            values[i] = name.equals(DELETED)
              ? Boolean.TRUE
              : at[i] >= 0 && at[i] == spec.keyIndex
                ? key
                : at[i] >= 0 && at[i] == spec.orderingIndex
                  ? ordering
                  : added.get(name);
          }
          result.add(new GenericInternalRow(values));
        }
      }
    );
    this.rows = result.iterator();
  }

  private static int index(StructType schema, String name) {
    return schema.getFieldIndex(name).isDefined() ? schema.fieldIndex(name) : -1;
  }

  @Override
  public boolean next() {
    current = rows.hasNext() ? rows.next() : null;
    return current != null;
  }

  @Override
  public InternalRow get() {
    return current;
  }

  @Override
  public void close() {}
}
