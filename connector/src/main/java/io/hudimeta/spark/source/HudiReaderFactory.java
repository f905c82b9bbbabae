package io.hudimeta.spark.source;

import io.hudimeta.spark.merge.LogCompactionReader;
import io.hudimeta.spark.merge.LogRecordBuffer;
import io.hudimeta.spark.merge.LogScanner;
import io.hudimeta.spark.merge.MergeSpec;
import io.hudimeta.spark.merge.MergedBatches;
import io.hudimeta.spark.merge.MergingReader;
import io.hudimeta.spark.merge.RowFilter;
import io.hudimeta.spark.plan.SliceSplit;
import io.hudimeta.table.BaseFile;
import io.hudimeta.table.FileNames;
import java.io.IOException;
import java.util.Collections;
import java.util.Iterator;
import java.util.Set;
import org.apache.hadoop.fs.Path;
import org.apache.spark.broadcast.Broadcast;
import org.apache.spark.paths.SparkPath;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.connector.read.InputPartition;
import org.apache.spark.sql.connector.read.PartitionReader;
import org.apache.spark.sql.connector.read.PartitionReaderFactory;
import org.apache.spark.sql.execution.datasources.PartitionedFile;
import org.apache.spark.sql.execution.datasources.parquet.ParquetOptions;
import org.apache.spark.sql.execution.datasources.v2.FilePartitionReaderFactory;
import org.apache.spark.sql.execution.datasources.v2.parquet.ParquetPartitionReaderFactory;
import org.apache.spark.sql.internal.SQLConf;
import org.apache.spark.sql.sources.Filter;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.vectorized.ColumnarBatch;
import org.apache.spark.util.SerializableConfiguration;
import scala.Option;

/**
 * Reads splits on executors. Base files go through Spark's own Parquet reader. When every split of the scan
 * can be read in vectorized batches (atomic requested columns if any slice has log files, no commit-time filter,
 * no column whose type changed) the scan is columnar: base-only slices hand out the reader's batches, merged
 * slices batches with the log records patched in ({@link MergedBatches}). Otherwise slices with log files are
 * merged row by row, their base rows taken from vectorized batches when the merge schema allows.
 */
final class HudiReaderFactory implements PartitionReaderFactory {

  private final FilePartitionReaderFactory requiredReader;
  private final FilePartitionReaderFactory mergeReader;
  private final Broadcast<SerializableConfiguration> requiredConf;
  private final Broadcast<SerializableConfiguration> mergeConf;
  private final Set<String> drifted;
  private final StructType required;
  private final StructType mergeSchema;
  private final MergeSpec spec;
  private final Set<String> visibleInstants;
  private final RowFilter rowFilter;
  private final boolean anyLogs;
  private final boolean columnar;
  private final boolean logCompaction;

  HudiReaderFactory(
    Broadcast<SerializableConfiguration> requiredConf,
    Broadcast<SerializableConfiguration> mergeConf,
    StructType tableSchema,
    StructType required,
    StructType mergeSchema,
    Filter[] filters,
    MergeSpec spec,
    Set<String> visibleInstants,
    RowFilter rowFilter,
    boolean anyLogs,
    Set<String> drifted,
    boolean logCompaction
  ) {
    SQLConf sqlConf = SQLConf.get();
    ParquetOptions options = new ParquetOptions(scala.collection.immutable.Map$.MODULE$.empty(), sqlConf);
    StructType noPartitions = new StructType();
    this.requiredReader = ParquetPartitionReaderFactory.apply(
      sqlConf,
      requiredConf,
      tableSchema,
      required,
      noPartitions,
      filters,
      Option.empty(),
      options
    );
    // Merged slices must see every base row: a filter could hide the row a log record loses to.
    this.mergeReader = ParquetPartitionReaderFactory.apply(
      sqlConf,
      mergeConf,
      tableSchema,
      mergeSchema,
      noPartitions,
      new Filter[0],
      Option.empty(),
      options
    );
    this.requiredConf = requiredConf;
    this.mergeConf = mergeConf;
    this.drifted = drifted;
    this.required = required;
    this.mergeSchema = mergeSchema;
    this.spec = spec;
    this.visibleInstants = visibleInstants;
    this.rowFilter = rowFilter;
    this.logCompaction = logCompaction;
    this.anyLogs = anyLogs;
    this.columnar =
      !logCompaction &&
      rowFilter.keepsAll() &&
      drifted.stream().noneMatch(c -> hasField(anyLogs ? mergeSchema : required, c)) &&
      (!anyLogs || MergedBatches.supports(required));
  }

  @Override
  public boolean supportColumnarReads(InputPartition partition) {
    return (
      columnar &&
      requiredReader.supportColumnarReads(partition) &&
      (!anyLogs || mergeReader.supportColumnarReads(partition))
    );
  }

  @Override
  public PartitionReader<ColumnarBatch> createColumnarReader(InputPartition partition) {
    SliceSplit split = (SliceSplit) partition;
    if (!split.hasLogs()) {
      return requiredReader.buildColumnarReader(file(split));
    }
    PartitionReader<ColumnarBatch> base =
      split.baseFile() == null ? null : mergeReader.buildColumnarReader(file(split));
    return new MergedBatches(base, scanLogs(split), required);
  }

  @Override
  public PartitionReader<InternalRow> createReader(InputPartition partition) {
    SliceSplit split = (SliceSplit) partition;
    if (!split.hasLogs() && rowFilter.keepsAll()) {
      return split.baseFile() == null ? empty() : baseRows(split, required, requiredReader, requiredConf);
    }
    if (logCompaction) {
      LogScanner.Result logs = LogScanner.scanWithInstants(
        mergeConf.value().value(),
        split.logFiles(),
        mergeSchema,
        spec,
        visibleInstants
      );
      return new LogCompactionReader(logs, split.partitionPath(), split.fileId(), required, mergeSchema, spec);
    }
    PartitionReader<InternalRow> base = split.baseFile() == null ? null : mergeBaseRows(split);
    return new MergingReader(base, scanLogs(split), required, rowFilter);
  }

  private LogRecordBuffer scanLogs(SliceSplit split) {
    return LogScanner.scan(
      mergeConf.value().value(),
      split.logFiles(),
      mergeSchema,
      spec,
      visibleInstants,
      baseInstant(split)
    );
  }

  /** The instant that wrote the slice's base file (what RECORD_POSITIONS must refer to), or null. */
  private static String baseInstant(SliceSplit split) {
    BaseFile base = split.baseFile() == null ? null : FileNames.parseBaseFile(new Path(split.baseFile()).getName(), -1);
    return base == null ? null : base.instantTime();
  }

  /**
   * Every base row of a merged slice, in file order. Rows of vectorized batches skip the per-row copy into an
   * UnsafeRow that Spark's row reader makes; MergingReader copies what it keeps.
   */
  private PartitionReader<InternalRow> mergeBaseRows(SliceSplit split) {
    if (mergeReader.supportColumnarReads(split) && fileTypes(split, mergeSchema, mergeConf).equals(mergeSchema)) {
      return new BatchRows(mergeReader.buildColumnarReader(file(split)));
    }
    return baseRows(split, mergeSchema, mergeReader, mergeConf);
  }

  /** The types to read `schema` in from the split's base file: other than `schema` for drifted columns. */
  private StructType fileTypes(SliceSplit split, StructType schema, Broadcast<SerializableConfiguration> conf) {
    if (drifted.stream().noneMatch(c -> hasField(schema, c))) {
      return schema;
    }
    return FileTypes.fileReadSchema(schema, FileTypes.footerSchema(split.baseFile(), conf.value().value()), drifted);
  }

  /** Base-file rows in `schema`; files holding a column whose type changed since are converted. */
  private PartitionReader<InternalRow> baseRows(
    SliceSplit split,
    StructType schema,
    FilePartitionReaderFactory reader,
    Broadcast<SerializableConfiguration> conf
  ) {
    StructType fileTypes = fileTypes(split, schema, conf);
    if (fileTypes.equals(schema)) {
      return reader.buildReader(file(split));
    }
    StructType noPartitions = new StructType();
    SQLConf sqlConf = SQLConf.get(); // in a task: the session's conf, read-only
    FilePartitionReaderFactory perFile = ParquetPartitionReaderFactory.apply(
      sqlConf,
      FileTypes.local(ParquetConf.forSchema(conf.value().value(), fileTypes)),
      fileTypes,
      fileTypes,
      noPartitions,
      new Filter[0],
      Option.empty(),
      new ParquetOptions(scala.collection.immutable.Map$.MODULE$.empty(), sqlConf)
    );
    return FileTypes.converting(perFile.buildReader(file(split)), fileTypes, schema);
  }

  private static boolean hasField(StructType schema, String name) {
    return schema.getFieldIndex(name).isDefined();
  }

  private static PartitionedFile file(SliceSplit split) {
    return new PartitionedFile(
      InternalRow.empty(),
      SparkPath.fromPathString(split.baseFile()),
      0L,
      split.baseFileSize(),
      new String[0],
      0L,
      split.baseFileSize(),
      scala.collection.immutable.Map$.MODULE$.empty()
    );
  }

  private static PartitionReader<InternalRow> empty() {
    return new PartitionReader<>() {
      @Override
      public boolean next() {
        return false;
      }

      @Override
      public InternalRow get() {
        throw new IllegalStateException("empty reader");
      }

      @Override
      public void close() throws IOException {}
    };
  }

  /** The rows of a columnar reader's batches; each row is a view into its batch, valid until the next call. */
  private static final class BatchRows implements PartitionReader<InternalRow> {

    private final PartitionReader<ColumnarBatch> batches;
    private Iterator<InternalRow> rows = Collections.emptyIterator();
    private InternalRow current;

    BatchRows(PartitionReader<ColumnarBatch> batches) {
      this.batches = batches;
    }

    @Override
    public boolean next() throws IOException {
      while (!rows.hasNext()) {
        if (!batches.next()) {
          return false;
        }
        rows = batches.get().rowIterator();
      }
      current = rows.next();
      return true;
    }

    @Override
    public InternalRow get() {
      return current;
    }

    @Override
    public void close() throws IOException {
      batches.close();
    }
  }
}
