package io.hudimeta.index;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.element_at;
import static org.apache.spark.sql.functions.explode;
import static org.apache.spark.sql.functions.lit;
import static org.apache.spark.sql.functions.sequence;
import static org.apache.spark.sql.functions.udf;

import io.hudimeta.hfile.BlockCache;
import io.hudimeta.hfile.HFileReader;
import io.hudimeta.metadata.KeyVisitor;
import io.hudimeta.metadata.PartitionSlices;
import io.hudimeta.spark.JavaBroadcast;
import io.hudimeta.spark.KeyGroupFunction;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.Serializable;
import java.io.UncheckedIOException;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.TreeMap;
import java.util.stream.IntStream;
import org.apache.avro.generic.GenericRecord;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.api.java.function.FlatMapFunction;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.unsafe.hash.Murmur3_x86_32;
import org.apache.spark.unsafe.types.UTF8String;
import org.apache.spark.util.SerializableConfiguration;

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
    List<Map<Integer, List<PackedKeys>>> keys
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
   * The keys (string column {@value #KEYS} of {@code keys}, nulls skipped) routed and packed where they are,
   * in parallel, the packs collected by the driver and each task's broadcast to it: one stage of
   * {@code tasks} tasks after the keys' own (collecting the keys as rows cost the driver 40 ms for 100k,
   * turning them into strings, routing and packing them another 17).
   */
  private static Dataset<Row> byBroadcast(
    SparkSession spark,
    Configuration conf,
    PartitionSlices slices,
    Dataset<Row> keys,
    int tasks
  ) {
    List<byte[]> packs = keys
      .queryExecution()
      .toRdd()
      .toJavaRDD()
      .mapPartitions(new RouteKeys(slices, keys.schema().fieldIndex(KEYS)))
      .collect();
    List<Map<Integer, List<PackedKeys>>> perTask = IntStream.range(0, tasks)
      .<Map<Integer, List<PackedKeys>>>mapToObj(t -> new TreeMap<>())
      .toList();
    packs.forEach(part ->
      JavaBroadcast.<Map<Integer, PackedKeys>>deserialize(part).forEach((group, packed) ->
        perTask
          .get(group % tasks)
          .computeIfAbsent(group, g -> new ArrayList<>())
          .add(packed)
      )
    );
    if (perTask.stream().allMatch(Map::isEmpty)) {
      return empty(spark);
    }
    JavaBroadcast<Job> job = broadcast(spark, conf, slices, perTask);
    List<Integer> taskIds = IntStream.range(0, tasks).boxed().toList();
    JavaSparkContext jsc = JavaSparkContext.fromSparkContext(spark.sparkContext());
    return rows(spark, jsc.parallelize(taskIds, tasks).mapPartitions(new BroadcastTask(job)));
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
    JavaBroadcast<Job> job = broadcast(spark, conf, slices, null);
    Dataset<Row> shuffled = keys
      .select(col(KEYS), group.as(GROUP))
      .withColumn(ROUTE, element_at(lit(routes(groups, tasks)), col(GROUP).plus(1)))
      .repartition(tasks, col(ROUTE));
    return rows(spark, shuffled.queryExecution().toRdd().toJavaRDD().mapPartitions(new ShuffledTask(job)));
  }

  /** The job of a lookup, broadcast once; {@code keys} null when they are shuffled. */
  private static JavaBroadcast<Job> broadcast(
    SparkSession spark,
    Configuration conf,
    PartitionSlices slices,
    List<Map<Integer, List<PackedKeys>>> keys
  ) {
    return JavaBroadcast.of(spark.sparkContext(), new Job(new SerializableConfiguration(conf), slices, keys));
  }

  private static Dataset<Row> empty(SparkSession spark) {
    return spark.createDataFrame(Collections.<Row>emptyList(), SCHEMA);
  }

  /** The lookup's rows, made by its tasks as Spark's own (no conversion of each row). */
  private static Dataset<Row> rows(SparkSession spark, JavaRDD<InternalRow> found) {
    return ((org.apache.spark.sql.classic.SparkSession) spark).internalCreateDataFrame(found.rdd(), SCHEMA, false);
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

  /** A task routing one partition of the keys: their packs by file group, one map (Java-serialized) per partition. */
  private static final class RouteKeys implements FlatMapFunction<Iterator<InternalRow>, byte[]> {

    private static final long serialVersionUID = 1L;
    private final PartitionSlices slices;
    private final int at;

    RouteKeys(PartitionSlices slices, int at) {
      this.slices = slices;
      this.at = at;
    }

    @Override
    public Iterator<byte[]> call(Iterator<InternalRow> rows) {
      List<String> keys = new ArrayList<>();
      while (rows.hasNext()) {
        InternalRow row = rows.next();
        if (!row.isNullAt(at)) {
          keys.add(row.getUTF8String(at).toString());
        }
      }
      TreeMap<Integer, PackedKeys> packs = new TreeMap<>();
      slices.route(keys).forEach((group, groupKeys) -> packs.put(group, PackedKeys.of(groupKeys)));
      return List.of(JavaBroadcast.serialize(packs)).iterator();
    }
  }

  /** A task of the shuffle: its rows of (key, file group), any order. */
  private static final class ShuffledTask implements FlatMapFunction<Iterator<InternalRow>, InternalRow> {

    private static final long serialVersionUID = 1L;
    private final JavaBroadcast<Job> job;

    ShuffledTask(JavaBroadcast<Job> job) {
      this.job = job;
    }

    @Override
    public Iterator<InternalRow> call(Iterator<InternalRow> input) {
      Map<Integer, List<byte[]>> byGroup = new TreeMap<>();
      while (input.hasNext()) {
        InternalRow row = input.next();
        if (!row.isNullAt(0)) {
          byGroup.computeIfAbsent(row.getInt(1), g -> new ArrayList<>()).add(row.getUTF8String(0).getBytes());
        }
      }
      Map<Integer, byte[][]> keys = new TreeMap<>();
      byGroup.forEach((group, groupKeys) -> keys.put(group, groupKeys.toArray(new byte[0][])));
      return lookup(job.value(), keys);
    }
  }

  /** A task of the broadcast: its number, whose keys the broadcast holds. */
  private static final class BroadcastTask implements FlatMapFunction<Iterator<Integer>, InternalRow> {

    private static final long serialVersionUID = 1L;
    private final JavaBroadcast<Job> job;

    BroadcastTask(JavaBroadcast<Job> job) {
      this.job = job;
    }

    @Override
    public Iterator<InternalRow> call(Iterator<Integer> task) {
      Job j = job.value();
      Map<Integer, byte[][]> keys = new TreeMap<>();
      j.keys()
        .get(task.next())
        .forEach((group, packs) -> keys.put(group, PackedKeys.unpack(packs)));
      return lookup(j, keys);
    }
  }

  /**
   * Keys of one file group as one value to send: their UTF-8 bytes end to end and where each ends (Java
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

    /** The keys of all the packs, each in an array of its own. */
    static byte[][] unpack(List<PackedKeys> packs) {
      byte[][] keys = new byte[packs
        .stream()
        .mapToInt(p -> p.ends.length)
        .sum()][];
      int k = 0;
      for (PackedKeys p : packs) {
        for (int i = 0, from = 0; i < p.ends.length; from = p.ends[i++]) {
          keys[k++] = Arrays.copyOfRange(p.utf8, from, p.ends[i]);
        }
      }
      return keys;
    }
  }

  /** The rows of the keys found, file group by file group ({@code byGroup}: UTF-8 keys by slice position). */
  private static Iterator<InternalRow> lookup(Job j, Map<Integer, byte[][]> byGroup) {
    BlockCache.shared().configure(j.conf().value()::get);
    FileSystem fs;
    try {
      fs = j.slices().dir().getFileSystem(j.conf().value());
    } catch (IOException e) {
      throw new UncheckedIOException("cannot reach the metadata table at " + j.slices().dir(), e);
    }
    return new Found(fs, j.slices(), byGroup.entrySet().iterator());
  }

  /**
   * Rows of the keys found, a file group at a time as Spark pulls them: the group's keys sorted, its slice
   * opened, searched and closed, then its rows handed out.
   */
  private static final class Found implements Iterator<InternalRow> {

    private final FileSystem fs;
    private final PartitionSlices slices;
    private final Iterator<Map.Entry<Integer, byte[][]>> groups;
    private final LocationStrings strings = new LocationStrings();
    private Group group = Group.NONE;
    private int at; // the next key of the group to hand out, when found

    Found(FileSystem fs, PartitionSlices slices, Iterator<Map.Entry<Integer, byte[][]>> groups) {
      this.fs = fs;
      this.slices = slices;
      this.groups = groups;
    }

    @Override
    public boolean hasNext() {
      while (true) {
        while (at < group.keys.length && group.partitions[at] == null) {
          at++;
        }
        if (at < group.keys.length || !groups.hasNext()) {
          return at < group.keys.length;
        }
        Map.Entry<Integer, byte[][]> next = groups.next();
        group = search(next.getKey(), HFileReader.sortedDistinct(next.getValue()));
        at = 0;
      }
    }

    @Override
    public InternalRow next() {
      if (!hasNext()) {
        throw new NoSuchElementException();
      }
      int i = at++;
      return new GenericInternalRow(new Object[] {
        UTF8String.fromBytes(group.keys[i]),
        group.partitions[i],
        group.fileIds[i],
      });
    }

    /** Where the index puts each of the sorted keys of the slice at {@code position} (null: not held). */
    private Group search(int position, byte[][] keys) {
      Group found = new Group(keys, new UTF8String[keys.length], new UTF8String[keys.length]);
      try (PartitionSlices.Reader reader = slices.open(fs, position)) {
        reader.visit(
          keys,
          new KeyVisitor() {
            @Override
            public void record(int key, GenericRecord payload) {
              RecordLocation.Info info = RecordLocation.Info.of(UTF8String.fromBytes(keys[key]), payload);
              found.partitions[key] = strings.partition(info);
              found.fileIds[key] = strings.fileId(info);
            }

            @Override
            public void deleted(int key) {
              found.partitions[key] = null;
              found.fileIds[key] = null;
            }
          }
        );
      }
      return found;
    }

    /** A file group's keys and the location of each, null for a key the index does not hold. */
    private record Group(byte[][] keys, UTF8String[] partitions, UTF8String[] fileIds) {
      static final Group NONE = new Group(new byte[0][], new UTF8String[0], new UTF8String[0]);
    }
  }
}
