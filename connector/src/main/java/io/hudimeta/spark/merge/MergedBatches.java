package io.hudimeta.spark.merge;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.connector.read.PartitionReader;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.vectorized.ColumnVector;
import org.apache.spark.sql.vectorized.ColumnarBatch;

/**
 * {@link MergingReader} in columnar form: each base-file batch (merge schema) comes out as a batch of the
 * requested columns, rows no log record can change read straight from its vectors, merged rows patched in
 * ({@link PatchedVector}) and deleted rows left out; then the log-only records in batches of their own. Spark
 * turns batches into rows in generated code, as for a read-optimized scan; the row path went through a
 * projecting view per row. Every split of a scan must be read one way: the factory takes this path only when
 * all can (atomic requested columns, no commit-time filter).
 */
public final class MergedBatches implements PartitionReader<ColumnarBatch> {

  private static final int LOG_BATCH_ROWS = 4096;

  private final PartitionReader<ColumnarBatch> base;
  private final LogRecordBuffer logs;
  private final StructField[] fields;
  private Iterator<InternalRow> logOnly;
  private ColumnarBatch current;
  private long position; // of the next base row

  public MergedBatches(PartitionReader<ColumnarBatch> base, LogRecordBuffer logs, StructType required) {
    this.base = base;
    this.logs = logs;
    this.fields = required.fields();
  }

  /** Whether a scan of `required` can be merged into batches. */
  public static boolean supports(StructType required) {
    for (StructField f : required.fields()) {
      if (!PatchedVector.supports(f.dataType())) {
        return false;
      }
    }
    return true;
  }

  @Override
  public boolean next() throws IOException {
    while (base != null && logOnly == null && base.next()) {
      current = merge(base.get());
      if (current.numRows() > 0) {
        return true;
      }
    }
    if (logOnly == null) {
      logOnly = logs.remaining();
    }
    List<InternalRow> rows = new ArrayList<>();
    while (rows.size() < LOG_BATCH_ROWS && logOnly.hasNext()) {
      rows.add(logOnly.next());
    }
    if (rows.isEmpty()) {
      return false;
    }
    int[] source = new int[rows.size()];
    for (int i = 0; i < source.length; i++) {
      source[i] = -1 - i;
    }
    current = patched(null, rows.toArray(new InternalRow[0]), source);
    return true;
  }

  /** The requested columns of one base batch after the merge. */
  private ColumnarBatch merge(ColumnarBatch batch) {
    int n = batch.numRows();
    int[] source = null; // stays null while every row so far passes unchanged
    List<InternalRow> patches = new ArrayList<>();
    int out = 0;
    for (int i = 0; i < n; i++) {
      long at = position + i;
      InternalRow merged = null;
      boolean unchanged = !logs.mayChange(at);
      if (!unchanged) {
        InternalRow row = batch.getRow(i); // a view reused per call: the identity says the base row won
        merged = logs.mergeBase(row, at);
        unchanged = merged == row;
      }
      if (unchanged) {
        if (source != null) {
          source[out] = i;
        }
        out++;
        continue;
      }
      if (source == null) {
        source = identity(n, out);
      }
      if (merged != null) {
        patches.add(merged);
        source[out++] = -patches.size();
      }
    }
    position += n;
    if (source == null) {
      ColumnVector[] vectors = new ColumnVector[fields.length];
      for (int c = 0; c < fields.length; c++) {
        vectors[c] = batch.column(c);
      }
      return new ColumnarBatch(vectors, n);
    }
    int[] exact = out == n ? source : Arrays.copyOf(source, out);
    return patched(batch, patches.toArray(new InternalRow[0]), exact);
  }

  private static int[] identity(int capacity, int upTo) {
    int[] source = new int[capacity];
    for (int i = 0; i < upTo; i++) {
      source[i] = i;
    }
    return source;
  }

  private ColumnarBatch patched(ColumnarBatch batch, InternalRow[] patches, int[] source) {
    ColumnVector[] vectors = new ColumnVector[fields.length];
    for (int c = 0; c < fields.length; c++) {
      vectors[c] = new PatchedVector(fields[c].dataType(), batch == null ? null : batch.column(c), patches, c, source);
    }
    return new ColumnarBatch(vectors, source.length);
  }

  @Override
  public ColumnarBatch get() {
    return current;
  }

  @Override
  public void close() throws IOException {
    if (base != null) {
      base.close();
    }
  }
}
