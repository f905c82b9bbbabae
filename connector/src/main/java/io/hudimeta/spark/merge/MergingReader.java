package io.hudimeta.spark.merge;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.ProjectingInternalRow;
import org.apache.spark.sql.connector.read.PartitionReader;
import org.apache.spark.sql.types.StructType;
import scala.jdk.javaapi.CollectionConverters;

/**
 * Snapshot of one merge-on-read file slice: base rows merged with the slice's log records, then
 * the log-only records. Rows are read in the merge schema (the requested columns first, then the
 * key, ordering and delete-marker columns merging needs) and cut down to the requested columns. The base
 * reader must give every row of the file in order (no filters): a row's count is its position, which
 * position-based merging looks log records up by.
 */
public final class MergingReader implements PartitionReader<InternalRow> {

  private final PartitionReader<InternalRow> base;
  private final LogRecordBuffer logs;
  private final RowFilter filter;
  private final ProjectingInternalRow view;
  private Iterator<InternalRow> logOnly;
  private InternalRow current;
  private long position; // of the next base row

  public MergingReader(PartitionReader<InternalRow> base, LogRecordBuffer logs, StructType required, RowFilter filter) {
    this.base = base;
    this.logs = logs;
    this.filter = filter;
    List<Object> ordinals = new ArrayList<>();
    for (int i = 0; i < required.fields().length; i++) {
      ordinals.add(i);
    }
    this.view = ProjectingInternalRow.apply(required, CollectionConverters.asScala(ordinals).toIndexedSeq());
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

  /**
   * The requested columns of `row`, which lead the merge schema: a view, no copy. Spark's own file readers hand
   * out reused rows too; the scan's projection turns each into an UnsafeRow before asking for the next one.
   */
  private InternalRow project(InternalRow row) {
    view.project(row);
    return view;
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
