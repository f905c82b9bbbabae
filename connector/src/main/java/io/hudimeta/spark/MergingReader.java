package io.hudimeta.spark;

import java.io.IOException;
import java.util.Iterator;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.connector.read.PartitionReader;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;

/**
 * Snapshot of one merge-on-read file slice: base rows merged with the slice's log records, then
 * the log-only records. Rows are read in the merge schema (the requested columns first, then the
 * key, ordering and delete-marker columns merging needs) and cut down to the requested columns. The base
 * reader must give every row of the file in order (no filters): a row's count is its position, which
 * position-based merging looks log records up by.
 */
final class MergingReader implements PartitionReader<InternalRow> {

  private final PartitionReader<InternalRow> base;
  private final LogRecordBuffer logs;
  private final RowFilter filter;
  private final StructField[] outFields;
  private Iterator<InternalRow> logOnly;
  private InternalRow current;
  private long position; // of the next base row

  MergingReader(PartitionReader<InternalRow> base, LogRecordBuffer logs, StructType required, RowFilter filter) {
    this.base = base;
    this.logs = logs;
    this.filter = filter;
    this.outFields = required.fields();
  }

  @Override
  public boolean next() throws IOException {
    while (base != null && logOnly == null && base.next()) {
      InternalRow merged = logs.mergeBase(base.get(), position++);
      if (merged != null && filter.keep(merged)) {
        current = project(merged);
        return true;
      }
    }
    if (logOnly == null) {
      logOnly = logs.remaining();
    }
    while (logOnly.hasNext()) {
      InternalRow row = logOnly.next();
      if (filter.keep(row)) {
        current = project(row);
        return true;
      }
    }
    return false;
  }

  private InternalRow project(InternalRow row) {
    Object[] values = new Object[outFields.length];
    for (int i = 0; i < values.length; i++) {
      values[i] = row.isNullAt(i) ? null : row.get(i, outFields[i].dataType());
    }
    return new GenericInternalRow(values).copy(); // base rows (and their strings, structs) live in reused buffers
  }

  @Override
  public InternalRow get() {
    return current;
  }

  @Override
  public void close() throws IOException {
    if (base != null) {
      base.close();
    }
  }
}
