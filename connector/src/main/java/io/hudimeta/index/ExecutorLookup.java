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
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.Serializable;
import java.io.UncheckedIOException;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.TreeMap;
import java.util.stream.IntStream;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.spark.TaskContext;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.api.java.function.FlatMapFunction;
import org.apache.spark.api.java.function.MapPartitionsFunction;
import org.apache.spark.broadcast.Broadcast;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Encoders;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.unsafe.hash.Murmur3_x86_32;
import org.apache.spark.util.SerializableConfiguration;
import org.apache.spark.util.TaskCompletionListener;

/**
 * {@link RecordIndex#locate(SparkSession, String, java.util.Map, Dataset)} on executors, the file groups spread
 * over at most as many tasks as there are cores. The keys reach the tasks as a join's small side would: when
 * Spark would broadcast them (their estimated size at most {@code spark.sql.autoBroadcastJoinThreshold}) the
 * driver collects them, routes each to the record_index file group it hashes to and broadcasts each task its
 * groups' keys (one stage, no shuffle); otherwise they are shuffled by file group ({@link KeyGroupFunction}, as
 * the writer spreads index entries). A task sorts and deduplicates each group's keys (in memory: Spark's row
 * sort compares whole rows here, which cost more than the lookups), opens the group's slice once and seeks the
 * keys in sorted batches, through the executor's {@link BlockCache} (configured from the lookup's options), so
 * the blocks of one lookup serve the next. Keys of a record_index whose file groups cannot be routed by hash
 * go to every file group.
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

  /**
   * What every task needs, broadcast once: where the slices are, how to reach storage, and (keys sent by
   * broadcast) each task's keys by slice position; null when the keys are shuffled.
   */
  private record Job(
    SerializableConfiguration conf,
    PartitionSlices slices,
    List<Map<Integer, PackedKeys>> keys
  ) implements Serializable {}

  static Dataset<Row> run(SparkSession spark, Configuration conf, PartitionSlices slices, Dataset<Row> keys) {
    int groups = slices.fileGroupCount();
    if (groups == 0) {
      return empty(spark);
    }
    // a task per file group up to the cores there are: more tasks than cores only queue, each at a cost
    int tasks = Math.min(groups, Math.max(1, spark.sparkContext().defaultParallelism()));
    // string keys are collected from the caller's own plan, analysed (and, for a cached frame, optimised and
    // planned) already: a new plan per lookup was a good part of a small lookup's fixed cost
    Dataset<Row> strings = keys.schema().apply(KEYS).dataType().equals(DataTypes.StringType)
      ? keys
      : keys.select(col(KEYS).cast(DataTypes.StringType).as(KEYS));
    return broadcastable(spark, strings)
      ? byBroadcast(spark, conf, slices, strings, tasks)
      : byShuffle(spark, conf, slices, strings.select(KEYS).where(col(KEYS).isNotNull()), tasks);
  }

  /** Whether Spark would broadcast {@code keys} as a join's side: its estimated size within the session's threshold. */
  static boolean broadcastable(SparkSession spark, Dataset<Row> keys) {
    long threshold = spark.sessionState().conf().autoBroadcastJoinThreshold();
    return (
      threshold >= 0 &&
      keys
        .queryExecution()
        .optimizedPlan()
        .stats()
        .sizeInBytes()
        .bigInteger()
        .compareTo(BigInteger.valueOf(threshold)) <= 0
    );
  }

  /**
   * The keys (string column {@value #KEYS} of {@code keys}, nulls skipped) collected and routed by the driver,
   * each task's broadcast to it: one stage of {@code tasks} tasks.
   */
  private static Dataset<Row> byBroadcast(
    SparkSession spark,
    Configuration conf,
    PartitionSlices slices,
    Dataset<Row> keys,
    int tasks
  ) {
    // Spark's rows as they come (a typed collect decodes each through an encoder: twice the time)
    int at = keys.schema().fieldIndex(KEYS);
    List<String> all = new ArrayList<>();
    for (InternalRow row : keys.queryExecution().executedPlan().executeCollect()) {
      if (!row.isNullAt(at)) {
        all.add(row.getUTF8String(at).toString());
      }
    }
    if (all.isEmpty()) {
      return empty(spark);
    }
    List<Map<Integer, PackedKeys>> perTask = IntStream.range(0, tasks)
      .<Map<Integer, PackedKeys>>mapToObj(t -> new TreeMap<>())
      .toList();
    slices.route(all).forEach((group, groupKeys) -> perTask.get(group % tasks).put(group, PackedKeys.of(groupKeys)));
    Broadcast<Job> job = broadcast(spark, conf, slices, perTask);
    List<Integer> taskIds = IntStream.range(0, tasks).boxed().toList();
    JavaSparkContext jsc = JavaSparkContext.fromSparkContext(spark.sparkContext());
    return spark.createDataFrame(jsc.parallelize(taskIds, tasks).mapPartitions(new BroadcastTask(job)), SCHEMA);
  }

  /** The keys shuffled to the task of their file group: two stages. */
  private static Dataset<Row> byShuffle(
    SparkSession spark,
    Configuration conf,
    PartitionSlices slices,
    Dataset<Row> keys,
    int tasks
  ) {
    int groups = slices.fileGroupCount();
    Column group = slices.routesByHash()
      ? udf(new KeyGroupFunction(), DataTypes.IntegerType).apply(col(KEYS), lit(groups))
      : explode(sequence(lit(0), lit(groups - 1)));
    Broadcast<Job> job = broadcast(spark, conf, slices, null);
    return keys
      .withColumn(GROUP, group)
      .withColumn(ROUTE, element_at(lit(routes(groups, tasks)), col(GROUP).plus(1)))
      .repartition(tasks, col(ROUTE))
      .drop(ROUTE)
      .mapPartitions(new ShuffledTask(job), Encoders.row(SCHEMA));
  }

  /** The job of a lookup, broadcast once; {@code keys} null when they are shuffled. */
  private static Broadcast<Job> broadcast(
    SparkSession spark,
    Configuration conf,
    PartitionSlices slices,
    List<Map<Integer, PackedKeys>> keys
  ) {
    Job job = new Job(new SerializableConfiguration(conf), slices, keys);
    return JavaSparkContext.fromSparkContext(spark.sparkContext()).broadcast(job);
  }

  private static Dataset<Row> empty(SparkSession spark) {
    return spark.createDataFrame(Collections.<Row>emptyList(), SCHEMA);
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

  /** A task of the shuffle: its rows of (key, file group), any order. */
  private static final class ShuffledTask implements MapPartitionsFunction<Row, Row> {

    private static final long serialVersionUID = 1L;
    private final Broadcast<Job> job;

    ShuffledTask(Broadcast<Job> job) {
      this.job = job;
    }

    @Override
    public Iterator<Row> call(Iterator<Row> input) {
      Map<Integer, List<String>> byGroup = new TreeMap<>();
      while (input.hasNext()) {
        Row row = input.next();
        byGroup.computeIfAbsent(row.getInt(1), g -> new ArrayList<>()).add(row.getString(0));
      }
      return lookup(job.value(), byGroup);
    }
  }

  /** A task of the broadcast: its number, whose keys the broadcast holds. */
  private static final class BroadcastTask implements FlatMapFunction<Iterator<Integer>, Row> {

    private static final long serialVersionUID = 1L;
    private final Broadcast<Job> job;

    BroadcastTask(Broadcast<Job> job) {
      this.job = job;
    }

    @Override
    public Iterator<Row> call(Iterator<Integer> task) {
      Job j = job.value();
      Map<Integer, List<String>> byGroup = new TreeMap<>();
      j.keys()
        .get(task.next())
        .forEach((group, keys) -> byGroup.put(group, keys.unpack()));
      return lookup(j, byGroup);
    }
  }

  /**
   * A file group's keys as one broadcast value: their UTF-8 bytes end to end and where each ends (Java
   * serialization of 100k Strings one by one took 35 ms, a third of the lookup's fixed cost).
   */
  private record PackedKeys(byte[] utf8, int[] ends) implements Serializable {
    static PackedKeys of(List<String> keys) {
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      int[] ends = new int[keys.size()];
      for (int i = 0; i < ends.length; i++) {
        out.writeBytes(keys.get(i).getBytes(StandardCharsets.UTF_8));
        ends[i] = out.size();
      }
      return new PackedKeys(out.toByteArray(), ends);
    }

    /** The keys, in a list of the task's own (sorted in place later). */
    List<String> unpack() {
      List<String> keys = new ArrayList<>(ends.length);
      for (int i = 0, from = 0; i < ends.length; from = ends[i++]) {
        keys.add(new String(utf8, from, ends[i] - from, StandardCharsets.UTF_8));
      }
      return keys;
    }
  }

  /** The rows of the keys found, file group by file group ({@code byGroup}: keys by slice position). */
  private static Iterator<Row> lookup(Job j, Map<Integer, List<String>> byGroup) {
    BlockCache.shared().configure(j.conf().value()::get);
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
