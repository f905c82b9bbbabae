package io.hudimeta.write;

import io.hudimeta.conf.JavaBroadcast;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.apache.spark.TaskContext;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.api.java.function.FlatMapFunction;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.unsafe.types.UTF8String;
import org.apache.spark.util.SerializableConfiguration;

/**
 * bulk_insert's row writer (Apache Hudi's {@code hoodie.datasource.write.row.writer.enable}): each input task
 * writes its rows into new base files with Spark's Parquet writer, one open file per partition path it meets,
 * rolled over at the maximum file size, as pyhudi.write.bulk_insert does in Python. The rows never leave the
 * JVM. pyhudi arranges the input (sort mode), computes the keys, and commits the write stats this returns.
 *
 * <p>Input columns: {@code _hoodie_record_key, _hoodie_partition_path}, then the data columns in writer-schema
 * order with the schema's Spark types. Output: one row per written file ({@link #STATS}).
 */
public final class BulkInsertRowWriter {

  public static final StructType STATS = new StructType()
    .add("partition", DataTypes.StringType)
    .add("file_id", DataTypes.StringType)
    .add("path", DataTypes.StringType)
    .add("num_records", DataTypes.LongType)
    .add("file_size", DataTypes.LongType)
    .add("min_key", DataTypes.StringType)
    .add("max_key", DataTypes.StringType)
    .add("bloom", DataTypes.StringType);
  /** Files a task keeps open at once: each buffers a row group; the least recently written is closed first. */
  static final int MAX_OPEN_FILES = 32;
  /** Rows between two checks of a file's size against the maximum. */
  private static final int SIZE_CHECK_ROWS = 1000;

  private BulkInsertRowWriter() {}

  /** What every task needs, broadcast once. */
  private record Job(
    SerializableConfiguration conf,
    String basePath,
    String instant,
    long maxFileSize,
    RowBaseFile.Settings settings
  ) implements java.io.Serializable {}

  /**
   * py4j entry point. {@code schemaJson}: the file schema (meta columns, then data) as Spark type JSON.
   */
  public static Dataset<Row> write(
    Dataset<Row> input,
    String basePath,
    String instant,
    String schemaJson,
    String codec,
    long maxFileSize,
    long rowGroupBytes,
    int pageBytes,
    String bloomType,
    int bloomEntries,
    double bloomFpp,
    int bloomMaxEntries
  ) {
    SparkSession spark = input.sparkSession();
    StructType schema = (StructType) DataType.fromJson(schemaJson);
    RowBaseFile.Settings settings = new RowBaseFile.Settings(
      schema,
      CompressionCodecName.fromConf(codec),
      Math.min(rowGroupBytes, maxFileSize),
      pageBytes,
      bloomType,
      bloomEntries,
      bloomFpp,
      bloomMaxEntries
    );
    new KeyBloomFilter(bloomType, bloomEntries, bloomFpp, bloomMaxEntries); // a bad type fails here, not in tasks
    Configuration conf = spark.sparkContext().hadoopConfiguration();
    JavaBroadcast<Job> job = JavaBroadcast.of(
      spark.sparkContext(),
      new Job(new SerializableConfiguration(conf), basePath, instant, maxFileSize, settings)
    );
    JavaRDD<InternalRow> rows = input.queryExecution().toRdd().toJavaRDD();
    JavaRDD<Row> stats = rows.mapPartitions(new Task(job));
    return spark.createDataFrame(stats, STATS);
  }

  /** One input task: its rows written, the stats of its files returned. */
  private static final class Task implements FlatMapFunction<Iterator<InternalRow>, Row> {

    private static final long serialVersionUID = 1L;
    private final JavaBroadcast<Job> job;

    Task(JavaBroadcast<Job> job) {
      this.job = job;
    }

    @Override
    public Iterator<Row> call(Iterator<InternalRow> input) throws IOException {
      Files files = new Files(job.value());
      try {
        while (input.hasNext()) {
          files.write(input.next());
        }
        return files.closeAll().iterator();
      } catch (IOException | RuntimeException e) {
        files.abandon();
        throw e;
      }
    }
  }

  /** A task's open files by partition path, and the stats of those it has finished. */
  private static final class Files {

    private final Job job;
    private final FileSystem fs;
    private final String token;
    private final int partitionId;
    private final Map<String, Open> open = new LinkedHashMap<>(16, 0.75f, true); // access order: LRU first
    private final List<Row> done = new ArrayList<>();
    private UTF8String lastPartition;
    private Open last;

    Files(Job job) throws IOException {
      this.job = job;
      Path base = new Path(job.basePath());
      this.fs = base.getFileSystem(job.conf().value());
      TaskContext ctx = TaskContext.get();
      this.partitionId = ctx == null ? 0 : ctx.partitionId();
      this.token = ctx == null ? "0-0-0" : ctx.partitionId() + "-" + ctx.stageId() + "-" + ctx.taskAttemptId();
    }

    void write(InternalRow row) throws IOException {
      if (row.isNullAt(0)) {
        throw new IllegalArgumentException("a row has a null _hoodie_record_key");
      }
      UTF8String partition = row.getUTF8String(1);
      Open file = last != null && partition.equals(lastPartition) ? last : fileOf(partition);
      file.out.write(row);
      if (file.out.rows() % SIZE_CHECK_ROWS == 0 && file.out.dataSize() >= job.maxFileSize()) {
        finish(file); // the partition's next rows start a new file group
      }
    }

    private Open fileOf(UTF8String partition) throws IOException {
      String p = partition.toString();
      Open file = open.get(p);
      if (file == null) {
        if (open.size() >= MAX_OPEN_FILES) {
          finish(open.values().iterator().next());
        }
        file = new Open(p);
        open.put(p, file);
      }
      lastPartition = partition.copy();
      last = file;
      return file;
    }

    private void finish(Open file) throws IOException {
      open.remove(file.partition);
      if (file == last) {
        last = null;
      }
      done.add(file.close());
    }

    List<Row> closeAll() throws IOException {
      for (Open file : new ArrayList<>(open.values())) {
        finish(file);
      }
      return done;
    }

    /** A failed task's open files closed quietly: the rollback of the write deletes them by their markers. */
    void abandon() {
      for (Open file : open.values()) {
        try {
          file.out.close();
        } catch (IOException | RuntimeException e) {
          // the task's own failure is the one to report
        }
      }
    }

    /** A new file group's base file, its marker written first (a crash after it leaves a file rollback knows). */
    private final class Open {

      final String partition;
      final String fileId = UUID.randomUUID() + "-0";
      final UTF8String name;
      final String rel;
      final Path path;
      final RowBaseFile out;

      Open(String partition) throws IOException {
        this.partition = partition;
        String fileName = fileId + "_" + token + "_" + job.instant() + ".parquet";
        this.name = UTF8String.fromString(fileName);
        this.rel = partition.isEmpty() ? fileName : partition + "/" + fileName;
        Path base = new Path(job.basePath());
        this.path = new Path(base, rel);
        String markerDir = ".hoodie/.temp/" + job.instant() + (partition.isEmpty() ? "" : "/" + partition);
        fs.create(new Path(new Path(base, markerDir), fileName + ".marker.CREATE"), false).close();
        this.out = new RowBaseFile(
          path,
          job.conf().value(),
          job.settings(),
          job.instant(),
          partitionId,
          partition,
          fileName
        );
      }

      Row close() throws IOException {
        out.close();
        long size = fs.getFileStatus(path).getLen();
        return RowFactory.create(partition, fileId, rel, out.rows(), size, out.minKey(), out.maxKey(), out.bloom());
      }
    }
  }
}
