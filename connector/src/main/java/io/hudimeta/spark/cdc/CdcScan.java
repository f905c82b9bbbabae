package io.hudimeta.spark.cdc;

import static org.apache.spark.sql.functions.coalesce;
import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.lit;
import static org.apache.spark.sql.functions.when;

import io.hudimeta.spark.options.ReadOptions;
import io.hudimeta.spark.plan.TableSnapshot;
import io.hudimeta.spark.streaming.HudiMicroBatchStream;
import io.hudimeta.table.CommitMetadata;
import io.hudimeta.table.Instant;
import io.hudimeta.table.MetaFields;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.classic.SparkSession;
import org.apache.spark.sql.connector.read.Batch;
import org.apache.spark.sql.connector.read.InputPartition;
import org.apache.spark.sql.connector.read.PartitionReader;
import org.apache.spark.sql.connector.read.PartitionReaderFactory;
import org.apache.spark.sql.connector.read.Scan;
import org.apache.spark.sql.connector.read.streaming.MicroBatchStream;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.unsafe.types.UTF8String;

/**
 * An incremental query in Apache Hudi's CDC format ({@code hoodie.datasource.query.incremental.format=cdc}):
 * one row per change of each commit in the range, {@code op} ({@code i}, {@code u}, {@code d}),
 * {@code ts_ms} (the commit's instant time) and the record's {@code before} / {@code after} images as
 * Hudi writes them ({@link CdcImages}: its data columns, Hudi's meta columns left out). A commit that logged its changes with both
 * images is read from its CDC log files ({@link CdcLogReader}); the others' changes are inferred as Hudi
 * infers them: each commit's partitions read as of the commit before it and as of the commit, joined on
 * the record key. Compaction and clustering change no record and yield none.
 * The changes are computed on the driver's session and held there, split into partitions of rows.
 */
public final class CdcScan implements Scan, Batch {

  private static final StructType SCHEMA = TableSnapshot.CDC_SCHEMA;
  private static final Set<String> NO_CHANGES = Set.of("COMPACT", "CLUSTER", "LOG_COMPACT");
  private static final int ROWS_PER_PARTITION = 10_000;

  private final TableSnapshot snapshot;
  private final StructType required;
  /** The table's completed commits by requested time, built on the first look-up. */
  private TreeMap<String, Instant> completedByTime;

  public CdcScan(TableSnapshot snapshot, StructType required) {
    this.snapshot = snapshot;
    this.required = required;
  }

  @Override
  public StructType readSchema() {
    return required;
  }

  @Override
  public String description() {
    return "hudi-meta cdc " + snapshot.describe();
  }

  /** A batch read in CDC format is an incremental query; a streaming read makes each micro-batch one. */
  @Override
  public Batch toBatch() {
    if (snapshot.readOptions().queryType != ReadOptions.QueryType.INCREMENTAL) {
      throw new IllegalArgumentException(
        "hudi-meta: " +
          ReadOptions.INCREMENTAL_FORMAT +
          "=cdc applies to incremental queries; add " +
          ReadOptions.QUERY_TYPE +
          "=incremental and " +
          ReadOptions.BEGIN
      );
    }
    return this;
  }

  @Override
  public MicroBatchStream toMicroBatchStream(String checkpointLocation) {
    return new HudiMicroBatchStream(snapshot.readOptions(), batch -> new CdcScan(batch, required));
  }

  @Override
  public InputPartition[] planInputPartitions() {
    List<String[]> rows = new ArrayList<>();
    for (Row r : changes().collectAsList()) {
      String[] row = new String[required.size()];
      for (int i = 0; i < row.length; i++) {
        row[i] = r.getString(r.fieldIndex(required.fields()[i].name()));
      }
      rows.add(row);
    }
    List<InputPartition> out = new ArrayList<>();
    for (int i = 0; i < rows.size(); i += ROWS_PER_PARTITION) {
      out.add(new Changes(new ArrayList<>(rows.subList(i, Math.min(rows.size(), i + ROWS_PER_PARTITION)))));
    }
    return out.toArray(new InputPartition[0]);
  }

  /** The changes of every commit in the query's range, in CDC form. */
  private Dataset<Row> changes() {
    Dataset<Row> all = SparkSession.active().createDataFrame(List.of(), SCHEMA);
    for (Instant commit : snapshot.incrementalCommits()) {
      if (!afterBegin(commit)) {
        continue;
      }
      CommitMetadata meta = snapshot.timeline().commitMetadata(commit);
      if (meta != null && !NO_CHANGES.contains(String.valueOf(meta.operationType()).toUpperCase())) {
        Dataset<Row> logged = CdcLogReader.changes(snapshot, commit, meta);
        all = all.union(logged != null ? logged : changes(commit, meta));
      }
    }
    return all;
  }

  /**
   * Apache Hudi's CDC query (1.0.2 and 1.2.0 alike) takes the commits whose instant time is after the begin
   * instant, where its incremental query takes those that completed after it: a commit started at the begin
   * instant is in the incremental answer and not in the CDC one. A micro-batch's begin is the completion time
   * the stream reached, so streaming keeps the incremental range (no commit is skipped between batches).
   */
  private boolean afterBegin(Instant commit) {
    ReadOptions o = snapshot.readOptions();
    return o.streamBatch() || o.beginInstant == null || commit.requestedTime().compareTo(o.beginInstant) > 0;
  }

  /** One commit's changes: its partitions before and after it, joined on the record key. */
  private Dataset<Row> changes(Instant commit, CommitMetadata meta) {
    Set<String> partitions = new TreeSet<>(meta.partitionToWriteStats().keySet());
    partitions.addAll(meta.partitionToReplaceFileIds().keySet());
    Instant previous = previousCommit(commit);
    Dataset<Row> after = images(commit.requestedTime(), partitions).toDF("a_key", "a_time", "after");
    Dataset<Row> before =
      previous == null
        ? SparkSession.active().createDataFrame(List.of(), after.schema())
        : images(previous.requestedTime(), partitions);
    before = before.toDF("b_key", "b_time", "before");
    Column changed = col("a_key")
      .isNull()
      .or(col("a_time").equalTo(lit(commit.requestedTime())));
    return before
      .join(after, col("b_key").equalTo(col("a_key")), "full_outer")
      .where(changed)
      .select(
        when(col("b_key").isNull(), lit("i")).when(col("a_key").isNull(), lit("d")).otherwise(lit("u")).as("op"),
        lit(commit.requestedTime()).as("ts_ms"),
        coalesce(col("before"), lit("null")).as("before"),
        coalesce(col("after"), lit("null")).as("after")
      );
  }

  /** (key, commit time, JSON image) of the records of {@code partitions} as of {@code instant}. */
  private Dataset<Row> images(String instant, Set<String> partitions) {
    Dataset<Row> rows = SparkSession.active()
      .read()
      .format(ReadOptions.FORMAT)
      .options(snapshot.readOptions().snapshotAsOf(instant))
      .load()
      .where(col(MetaFields.PARTITION_PATH).isin(partitions.toArray()));
    return rows.select(col(MetaFields.RECORD_KEY), col(MetaFields.COMMIT_TIME), CdcLogReader.image(rows.schema()));
  }

  /** The completed commit before {@code commit} (by requested time), or null for the first. */
  private Instant previousCommit(Instant commit) {
    if (completedByTime == null) {
      completedByTime = new TreeMap<>();
      snapshot
        .timeline()
        .completedCommits()
        .forEach(i -> completedByTime.put(i.requestedTime(), i));
    }
    Map.Entry<String, Instant> previous = completedByTime.lowerEntry(commit.requestedTime());
    return previous == null ? null : previous.getValue();
  }

  @Override
  public PartitionReaderFactory createReaderFactory() {
    return new ChangesReaderFactory();
  }

  /** A slice of the changes, carried to an executor with the task. */
  record Changes(List<String[]> rows) implements InputPartition, Serializable {}

  private static final class ChangesReaderFactory implements PartitionReaderFactory {

    @Override
    public PartitionReader<InternalRow> createReader(InputPartition partition) {
      List<String[]> rows = ((Changes) partition).rows();
      return new PartitionReader<>() {
        private int next = -1;

        @Override
        public boolean next() {
          return ++next < rows.size();
        }

        @Override
        public InternalRow get() {
          String[] row = rows.get(next);
          Object[] values = new Object[row.length];
          for (int i = 0; i < row.length; i++) {
            values[i] = row[i] == null ? null : UTF8String.fromString(row[i]);
          }
          return new GenericInternalRow(values);
        }

        @Override
        public void close() {}
      };
    }
  }
}
