package io.hudimeta.index;

import static org.apache.spark.sql.functions.col;

import io.hudimeta.conf.SharedConf;
import io.hudimeta.hfile.BlockCache;
import io.hudimeta.hfile.HFileReader;
import io.hudimeta.metadata.KeyVisitor;
import io.hudimeta.metadata.PartitionSlices;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Deque;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.TreeMap;
import org.apache.avro.generic.GenericRecord;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.spark.Partitioner;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.api.java.function.FlatMapFunction;
import org.apache.spark.api.java.function.PairFlatMapFunction;
import org.apache.spark.broadcast.Broadcast;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.unsafe.types.UTF8String;
import org.apache.spark.util.SerializableConfiguration;
import scala.Tuple2;

/**
 * {@link RecordIndex#locate(SparkSession, String, java.util.Map, Dataset)} on executors: one job of two
 * stages. Where the keys are, each task routes its keys to the record_index file group each hashes to
 * ({@link PartitionSlices#route(byte[], java.util.function.IntConsumer)}) and packs them by group, their UTF-8 bytes end to end; the packs are
 * shuffled to the task of their group, the groups spread over at most as many tasks as there are cores. A
 * lookup task sorts and deduplicates each group's keys, opens the group's slice once and seeks the keys in
 * order, through the executor's {@link BlockCache} (configured from the lookup's options), so the blocks of one
 * lookup serve the next. Keys of a record_index whose file groups cannot be routed by hash go to every group.
 *
 * <p>Shuffling packs, not rows, moves a few large byte arrays per task whatever the number of keys. Before,
 * small key sets were collected by the driver and broadcast (a job more, and the keys through the driver
 * twice), larger ones shuffled as rows through Spark SQL (a row per key through the exchange and a sort).
 */
final class ExecutorLookup {

  private static final String KEYS = RecordIndex.KEYS_COLUMN;
  /** A pack is sent once its keys reach this many bytes: bounds what a routing task holds. */
  private static final int PACK_BYTES = 4 << 20;
  static final StructType SCHEMA = new StructType()
    .add(RecordIndex.KEY_COLUMN, DataTypes.StringType, false)
    .add(RecordIndex.PARTITION_COLUMN, DataTypes.StringType, false)
    .add(RecordIndex.FILE_ID_COLUMN, DataTypes.StringType, false);

  private ExecutorLookup() {}

  static Dataset<Row> run(SparkSession spark, Configuration conf, PartitionSlices slices, Dataset<Row> keys) {
    int groups = slices.fileGroupCount();
    if (groups == 0) {
      return spark.createDataFrame(Collections.<Row>emptyList(), SCHEMA);
    }
    // a task per file group up to the cores there are: more tasks than cores only queue, each at a cost
    int tasks = Math.min(groups, Math.max(1, spark.sparkContext().defaultParallelism()));
    // string keys are read from the caller's own plan, analysed (and, for a cached frame, optimised and
    // planned) already: a new plan per lookup was a good part of a small lookup's fixed cost
    Dataset<Row> strings = keys.schema().apply(KEYS).dataType().equals(DataTypes.StringType)
      ? keys
      : keys.select(col(KEYS).cast(DataTypes.StringType).as(KEYS));
    // the configuration broadcast once per content (Spark's would be again for each lookup); the slices are small
    Broadcast<SerializableConfiguration> shared = SharedConf.of(spark.sparkContext(), conf);
    JavaRDD<InternalRow> found = strings
      .queryExecution()
      .toRdd()
      .toJavaRDD()
      .mapPartitionsToPair(new PackKeys(slices, strings.schema().fieldIndex(KEYS)))
      .partitionBy(new ByGroup(tasks))
      .mapPartitions(new LookupTask(shared, slices));
    // the tasks make Spark's own rows: no conversion of each
    return ((org.apache.spark.sql.classic.SparkSession) spark).internalCreateDataFrame(found.rdd(), SCHEMA, false);
  }

  /** File group g's packs go to task g % tasks: each group to one task, the groups spread evenly. */
  static final class ByGroup extends Partitioner {

    private static final long serialVersionUID = 1L;
    private final int tasks;

    ByGroup(int tasks) {
      this.tasks = tasks;
    }

    @Override
    public int numPartitions() {
      return tasks;
    }

    @Override
    public int getPartition(Object group) {
      return (Integer) group % tasks;
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof ByGroup b && b.tasks == tasks;
    }

    @Override
    public int hashCode() {
      return tasks;
    }
  }

  /** A task where the keys are: its keys (nulls skipped) as (file group, pack), a pack sent as it fills. */
  private static final class PackKeys implements PairFlatMapFunction<Iterator<InternalRow>, Integer, byte[]> {

    private static final long serialVersionUID = 1L;
    private final PartitionSlices slices;
    private final int at;

    PackKeys(PartitionSlices slices, int at) {
      this.slices = slices;
      this.at = at;
    }

    @Override
    public Iterator<Tuple2<Integer, byte[]>> call(Iterator<InternalRow> rows) {
      Map<Integer, Packer> open = new HashMap<>();
      Deque<Tuple2<Integer, byte[]>> full = new ArrayDeque<>();
      return new Iterator<>() {
        @Override
        public boolean hasNext() {
          while (full.isEmpty() && rows.hasNext()) {
            InternalRow row = rows.next();
            if (!row.isNullAt(at)) {
              add(row.getUTF8String(at).getBytes());
            }
          }
          if (full.isEmpty() && !open.isEmpty()) {
            open.forEach((group, packer) -> full.add(new Tuple2<>(group, packer.pack())));
            open.clear();
          }
          return !full.isEmpty();
        }

        @Override
        public Tuple2<Integer, byte[]> next() {
          if (!hasNext()) {
            throw new NoSuchElementException();
          }
          return full.poll();
        }

        private void add(byte[] key) {
          slices.route(key, group -> add(group, key));
        }

        private void add(int group, byte[] key) {
          Packer packer = open.computeIfAbsent(group, g -> new Packer());
          if (packer.add(key) >= PACK_BYTES) {
            full.add(new Tuple2<>(group, packer.pack()));
            open.remove(group);
          }
        }
      };
    }
  }

  /**
   * Keys packed into one byte array: {@code int n | n ints, where each key ends | the keys' UTF-8 bytes}. One
   * array passes any serializer fast (Java-serializing 100k strings one by one took 35 ms).
   */
  private static final class Packer {

    private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    private int[] ends = new int[64];
    private int count;

    /** Adds a key; the bytes packed so far. */
    int add(byte[] key) {
      bytes.writeBytes(key);
      if (count == ends.length) {
        ends = Arrays.copyOf(ends, count * 2);
      }
      ends[count++] = bytes.size();
      return bytes.size();
    }

    byte[] pack() {
      ByteBuffer out = ByteBuffer.allocate(4 + 4 * count + bytes.size());
      out.putInt(count);
      for (int i = 0; i < count; i++) {
        out.putInt(ends[i]);
      }
      out.put(bytes.toByteArray());
      return out.array();
    }

    /** The keys of packs, each in an array of its own. */
    static byte[][] unpack(List<byte[]> packs) {
      int total = 0;
      for (byte[] p : packs) {
        total += ByteBuffer.wrap(p).getInt();
      }
      byte[][] keys = new byte[total][];
      int k = 0;
      for (byte[] p : packs) {
        ByteBuffer in = ByteBuffer.wrap(p);
        int n = in.getInt();
        int data = 4 + 4 * n;
        for (int i = 0, from = 0; i < n; i++) {
          int end = in.getInt();
          keys[k++] = Arrays.copyOfRange(p, data + from, data + end);
          from = end;
        }
      }
      return keys;
    }
  }

  /** A lookup task: the packs of its file groups, any order. */
  private static final class LookupTask implements FlatMapFunction<Iterator<Tuple2<Integer, byte[]>>, InternalRow> {

    private static final long serialVersionUID = 1L;
    private final Broadcast<SerializableConfiguration> conf;
    private final PartitionSlices slices;

    LookupTask(Broadcast<SerializableConfiguration> conf, PartitionSlices slices) {
      this.conf = conf;
      this.slices = slices;
    }

    @Override
    public Iterator<InternalRow> call(Iterator<Tuple2<Integer, byte[]>> packs) {
      Map<Integer, List<byte[]>> byGroup = new TreeMap<>();
      packs.forEachRemaining(p -> byGroup.computeIfAbsent(p._1(), g -> new ArrayList<>()).add(p._2()));
      return lookup(conf.value().value(), slices, byGroup);
    }
  }

  /** The rows of the keys found, file group by file group ({@code byGroup}: packs of keys by slice position). */
  private static Iterator<InternalRow> lookup(
    Configuration conf,
    PartitionSlices slices,
    Map<Integer, List<byte[]>> byGroup
  ) {
    BlockCache.shared().configure(conf::get);
    FileSystem fs;
    try {
      fs = slices.dir().getFileSystem(conf);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot reach the metadata table at " + slices.dir(), e);
    }
    return new Found(fs, slices, byGroup.entrySet().iterator());
  }

  /**
   * Rows of the keys found, a file group at a time as Spark pulls them: the group's keys unpacked and sorted
   * (only the open group's held as arrays), its slice opened, searched and closed, then its rows handed out.
   */
  private static final class Found implements Iterator<InternalRow> {

    private final FileSystem fs;
    private final PartitionSlices slices;
    private final Iterator<Map.Entry<Integer, List<byte[]>>> groups;
    private final LocationStrings strings = new LocationStrings();
    private Group group = Group.NONE;
    private int at; // the next key of the group to hand out, when found

    Found(FileSystem fs, PartitionSlices slices, Iterator<Map.Entry<Integer, List<byte[]>>> groups) {
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
        Map.Entry<Integer, List<byte[]>> next = groups.next();
        group = search(next.getKey(), HFileReader.sortedDistinct(Packer.unpack(next.getValue())));
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
          RecordLocation.PAYLOAD_FIELD,
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
