package io.hudimeta.index;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.element_at;
import static org.apache.spark.sql.functions.explode;
import static org.apache.spark.sql.functions.lit;
import static org.apache.spark.sql.functions.sequence;
import static org.apache.spark.sql.functions.udf;

import io.hudimeta.hfile.BlockCache;
import io.hudimeta.metadata.MetadataRecord;
import io.hudimeta.metadata.PartitionSlices;
import io.hudimeta.spark.KeyGroupFunction;
import java.io.IOException;
import java.io.Serializable;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.TreeMap;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.spark.TaskContext;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.api.java.function.MapPartitionsFunction;
import org.apache.spark.broadcast.Broadcast;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Encoders;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.unsafe.hash.Murmur3_x86_32;
import org.apache.spark.util.SerializableConfiguration;
import org.apache.spark.util.TaskCompletionListener;

/**
 * {@link RecordIndex#locate(SparkSession, String, java.util.Map, Dataset)} on executors: keys are
 * shuffled by the record_index file group they hash to ({@link KeyGroupFunction}, as the writer spreads
 * index entries), the groups spread over at most as many tasks as there are cores; a task groups its keys by
 * file group, sorts and deduplicates each group's (in memory:
 * Spark's row sort compares whole rows here, which cost more than the lookups), opens the group's slice
 * once and seeks the keys in sorted batches, through the executor's {@link BlockCache} (configured from
 * the lookup's options), so the blocks of one lookup serve the next. Keys of a record_index whose file
 * groups cannot be routed by hash go to every file group.
 */
final class ExecutorLookup {

  private static final String KEYS = RecordIndex.KEYS_COLUMN;
  private static final String GROUP = "_hudi_rig";
  private static final String ROUTE = "_hudi_rir";
  /** The seed of Spark's hash partitioning (HashPartitioning's Murmur3Hash). */
  private static final int SPARK_HASH_SEED = 42;
  /** Keys per HFile pass: bounds the records a task holds decoded, not its work. */
  static final int BATCH = 4096;
  static final StructType SCHEMA = new StructType()
    .add(RecordIndex.KEY_COLUMN, DataTypes.StringType, false)
    .add(RecordIndex.PARTITION_COLUMN, DataTypes.StringType, false)
    .add(RecordIndex.FILE_ID_COLUMN, DataTypes.StringType, false);

  private ExecutorLookup() {}

  /** What every task needs, broadcast once: where the slices are and how to reach storage. */
  private record Job(SerializableConfiguration conf, PartitionSlices slices) implements Serializable {}

  static Dataset<Row> run(SparkSession spark, Configuration conf, PartitionSlices slices, Dataset<Row> keys) {
    int groups = slices.fileGroupCount();
    if (groups == 0) {
      return spark.createDataFrame(Collections.<Row>emptyList(), SCHEMA);
    }
    // a task per file group up to the cores there are: more tasks than cores only queue, each at a cost
    int tasks = Math.min(groups, Math.max(1, spark.sparkContext().defaultParallelism()));
    Column group = slices.routesByHash()
      ? udf(new KeyGroupFunction(), DataTypes.IntegerType).apply(col(KEYS), lit(groups))
      : explode(sequence(lit(0), lit(groups - 1)));
    Broadcast<Job> job = JavaSparkContext.fromSparkContext(spark.sparkContext()).broadcast(
      new Job(new SerializableConfiguration(conf), slices)
    );
    return keys
      .select(col(KEYS).cast(DataTypes.StringType).as(KEYS))
      .where(col(KEYS).isNotNull())
      .withColumn(GROUP, group)
      .withColumn(ROUTE, element_at(lit(routes(groups, tasks)), col(GROUP).plus(1)))
      .repartition(tasks, col(ROUTE))
      .drop(ROUTE)
      .mapPartitions(new LookupTask(job), Encoders.row(SCHEMA));
  }

  /**
   * For each file group g, an int that Spark's hash partitioning into {@code tasks} partitions sends to
   * partition g % tasks (pmod(Murmur3(v, 42), tasks) == g % tasks): shuffled by it, the file groups are
   * spread evenly over the tasks, each group in one task. Shuffled by g itself, groups collide: 10 groups
   * hashed into 10 tasks left 3 tasks idle and 3 with two groups, which on a cluster doubles the lookup's time.
   */
  static int[] routes(int groups, int tasks) {
    int[] toTask = new int[tasks];
    boolean[] taken = new boolean[tasks];
    for (int v = 0, left = tasks; left > 0; v++) {
      int p = Math.floorMod(Murmur3_x86_32.hashInt(v, SPARK_HASH_SEED), tasks);
      if (!taken[p]) {
        taken[p] = true;
        toTask[p] = v;
        left--;
      }
    }
    int[] route = new int[groups];
    for (int g = 0; g < groups; g++) {
      route[g] = toTask[g % tasks];
    }
    return route;
  }

  /** One task: its rows of (key, file group), any order. */
  private static final class LookupTask implements MapPartitionsFunction<Row, Row> {

    private static final long serialVersionUID = 1L;
    private final Broadcast<Job> job;

    LookupTask(Broadcast<Job> job) {
      this.job = job;
    }

    @Override
    public Iterator<Row> call(Iterator<Row> input) {
      Job j = job.value();
      BlockCache.shared().configure(j.conf().value()::get);
      Map<Integer, List<String>> byGroup = new TreeMap<>();
      while (input.hasNext()) {
        Row row = input.next();
        byGroup.computeIfAbsent(row.getInt(1), g -> new ArrayList<>()).add(row.getString(0));
      }
      FileSystem fs;
      try {
        fs = j.slices().dir().getFileSystem(j.conf().value());
      } catch (IOException e) {
        throw new UncheckedIOException("cannot reach the metadata table at " + j.slices().dir(), e);
      }
      Found found = new Found(fs, j.slices(), byGroup.entrySet().iterator());
      TaskContext task = TaskContext.get();
      if (task != null) {
        task.addTaskCompletionListener((TaskCompletionListener) ctx -> found.closeReader());
      }
      return found;
    }
  }

  /** Rows of the keys found, produced batch by batch as Spark pulls them. */
  private static final class Found implements Iterator<Row> {

    private final FileSystem fs;
    private final PartitionSlices slices;
    private final Iterator<Map.Entry<Integer, List<String>>> groups;
    private List<String> keys = List.of(); // distinct, sorted keys of the open group
    private int done; // keys of the open group looked up
    private PartitionSlices.Reader reader;
    private Iterator<Row> ready = Collections.emptyIterator();

    Found(FileSystem fs, PartitionSlices slices, Iterator<Map.Entry<Integer, List<String>>> groups) {
      this.fs = fs;
      this.slices = slices;
      this.groups = groups;
    }

    @Override
    public boolean hasNext() {
      while (!ready.hasNext() && (done < keys.size() || groups.hasNext())) {
        if (done == keys.size()) {
          openNextGroup();
        }
        ready = lookupBatch();
      }
      if (!ready.hasNext()) {
        closeReader();
      }
      return ready.hasNext();
    }

    @Override
    public Row next() {
      if (!hasNext()) {
        throw new NoSuchElementException();
      }
      return ready.next();
    }

    private void openNextGroup() {
      closeReader();
      Map.Entry<Integer, List<String>> group = groups.next();
      keys = distinctSorted(group.getValue());
      done = 0;
      reader = slices.open(fs, group.getKey());
    }

    /** The next {@link #BATCH} keys of the open group, looked up in one pass. */
    private Iterator<Row> lookupBatch() {
      int end = Math.min(keys.size(), done + BATCH);
      List<String> batch = keys.subList(done, end);
      done = end;
      List<Row> out = new ArrayList<>();
      for (Map.Entry<String, MetadataRecord> e : reader.lookup(batch).entrySet()) {
        RecordLocation loc = RecordLocation.decode(e.getValue());
        out.add(RowFactory.create(e.getKey(), loc.partitionPath(), loc.fileId()));
      }
      return out.iterator();
    }

    private static List<String> distinctSorted(List<String> keys) {
      Collections.sort(keys);
      int kept = 0;
      for (String key : keys) {
        if (kept == 0 || !key.equals(keys.get(kept - 1))) {
          keys.set(kept++, key);
        }
      }
      return keys.subList(0, kept);
    }

    void closeReader() {
      if (reader != null) {
        reader.close();
        reader = null;
      }
    }
  }
}
