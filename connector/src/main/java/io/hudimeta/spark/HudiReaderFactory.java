package io.hudimeta.spark;

import java.io.IOException;
import java.util.Set;
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
 * Reads splits on executors. Base files go through Spark's own Parquet reader (vectorized
 * batches when every split of the scan is base-only); slices with log files are merged row by row.
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
    this.columnar = !anyLogs && rowFilter.keepsAll() && drifted.stream().noneMatch(c -> hasField(required, c));
  }

  @Override
  public boolean supportColumnarReads(InputPartition partition) {
    return columnar && requiredReader.supportColumnarReads(partition);
  }

  @Override
  public PartitionReader<ColumnarBatch> createColumnarReader(InputPartition partition) {
    SliceSplit split = (SliceSplit) partition;
    return requiredReader.buildColumnarReader(file(split));
  }

  @Override
  public PartitionReader<InternalRow> createReader(InputPartition partition) {
    SliceSplit split = (SliceSplit) partition;
    if (!split.hasLogs() && rowFilter.keepsAll()) {
      return split.baseFile == null ? empty() : baseRows(split, required, requiredReader, requiredConf);
    }
    if (logCompaction) {
      LogScanner.Result logs = LogScanner.scanWithInstants(
        mergeConf.value().value(),
        split.logFiles,
        mergeSchema,
        spec,
        visibleInstants
      );
      return new LogCompactionReader(logs, split, required, mergeSchema, spec);
    }
    LogRecordBuffer logs = LogScanner.scan(
      mergeConf.value().value(),
      split.logFiles,
      mergeSchema,
      spec,
      visibleInstants
    );
    PartitionReader<InternalRow> base =
      split.baseFile == null ? null : baseRows(split, mergeSchema, mergeReader, mergeConf);
    return new MergingReader(base, logs, required, rowFilter);
  }

  /** Base-file rows in `schema`; files holding a column whose type changed since are converted. */
  private PartitionReader<InternalRow> baseRows(
    SliceSplit split,
    StructType schema,
    FilePartitionReaderFactory reader,
    Broadcast<SerializableConfiguration> conf
  ) {
    if (drifted.stream().noneMatch(c -> hasField(schema, c))) {
      return reader.buildReader(file(split));
    }
    StructType fileTypes = FileTypes.fileReadSchema(
      schema,
      FileTypes.footerSchema(split.baseFile, conf.value().value()),
      drifted
    );
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
      SparkPath.fromPathString(split.baseFile),
      0L,
      split.baseFileSize,
      new String[0],
      0L,
      split.baseFileSize,
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
}
