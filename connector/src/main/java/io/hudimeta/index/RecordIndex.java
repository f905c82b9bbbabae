package io.hudimeta.index;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.hudimeta.hfile.BlockCache;
import io.hudimeta.metadata.MetadataRecord;
import io.hudimeta.metadata.MetadataTable;
import io.hudimeta.metadata.PartitionSlices;
import io.hudimeta.table.TableConfig;
import io.hudimeta.table.Timeline;
import java.io.Closeable;
import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/**
 * The record-level index of a table ({@code record_index} in its metadata table, RFC-08): record key
 * → the file group holding the record. Lookups go through {@link MetadataTable#lookup}, which routes
 * each key by hash to one record_index file group and seeks its HFiles with the keys sorted; the
 * executor-side {@link #locate(SparkSession, String, Map, Dataset)} reads the same file slices with
 * the same block rule ({@link PartitionSlices}).
 *
 * <p>Usable only when the data table lists record_index among its completed metadata partitions and the
 * metadata table is in sync with the data timeline (a lagging index would miss the newest keys).
 */
public final class RecordIndex implements Closeable {

  /** Input column of {@link #locate(SparkSession, String, Map, Dataset)}: the record keys (string). */
  public static final String KEYS_COLUMN = "_hudi_bk";
  /** Output columns of {@link #locate(SparkSession, String, Map, Dataset)}: key, data partition path, file id. */
  public static final String KEY_COLUMN = "_hudi_k";
  public static final String PARTITION_COLUMN = "_hudi_p";
  public static final String FILE_ID_COLUMN = "_hudi_fg";
  private static final ObjectMapper JSON = new ObjectMapper();

  private final MetadataTable mdt;
  private final boolean ownsTable;

  private RecordIndex(MetadataTable mdt, boolean ownsTable) {
    this.mdt = mdt;
    this.ownsTable = ownsTable;
  }

  /** Whether an opened metadata table holds a completed record_index. */
  public static boolean available(MetadataTable mdt) {
    return mdt != null && mdt.hasPartition(MetadataTable.RECORD_INDEX);
  }

  /**
   * The record index of an opened metadata table, which stays the caller's to close.
   *
   * @throws NoRecordIndexException when record_index is not among its completed partitions
   */
  public static RecordIndex of(MetadataTable mdt) {
    if (!available(mdt)) {
      throw new NoRecordIndexException(mdt.dataBasePath().toString(), whyUnavailable(mdt.dataConfig()));
    }
    return new RecordIndex(mdt, false);
  }

  /**
   * Opens the record index of the table at {@code basePath} (its metadata table, closed with this).
   *
   * @throws NoRecordIndexException when the table has none, it is still being built, the metadata table
   *     cannot be read or lags behind the data timeline
   */
  public static RecordIndex open(FileSystem fs, Path basePath) {
    TableConfig config = TableConfig.load(fs, basePath);
    String base = basePath.toString();
    if (!config.metadataPartitions().contains(MetadataTable.RECORD_INDEX)) {
      throw new NoRecordIndexException(base, whyUnavailable(config));
    }
    Timeline timeline = Timeline.load(fs, basePath, config);
    Optional<MetadataTable> opened = MetadataTable.open(fs, basePath, config, timeline);
    if (opened.isEmpty()) {
      throw new NoRecordIndexException(base, "its metadata table cannot be used; the log says why");
    }
    MetadataTable mdt = opened.get();
    if (!available(mdt) || !mdt.inSync()) {
      String why = available(mdt)
        ? "its metadata table is behind the data timeline, so the index may miss the newest keys"
        : whyUnavailable(config);
      mdt.close();
      throw new NoRecordIndexException(base, why);
    }
    return new RecordIndex(mdt, true);
  }

  private static String whyUnavailable(TableConfig config) {
    if (config.inflightMetadataPartitions().contains(MetadataTable.RECORD_INDEX)) {
      return "record_index is still being built: it is inflight in hoodie.table.metadata.partitions.inflight";
    }
    return "record_index is not among its metadata partitions " + config.metadataPartitions();
  }

  /**
   * Where each of the keys lives, for the keys the index holds (absent and null keys left out), by key.
   * (Not an overload of the static {@code locate}: py4j resolves a static call by name alone.)
   */
  public Map<String, RecordLocation> lookup(Collection<String> keys) {
    Set<String> distinct = new HashSet<>(keys);
    distinct.remove(null);
    Map<String, MetadataRecord> found = slices().lookup(mdt.fileSystem(), distinct);
    Map<String, RecordLocation> out = new HashMap<>((found.size() * 4) / 3 + 1);
    found.forEach((key, r) -> out.put(key, RecordLocation.decode(r)));
    return out;
  }

  /** The latest record_index file slices and their block rule: what an executor needs to look keys up. */
  public PartitionSlices slices() {
    return mdt.partitionSlices(MetadataTable.RECORD_INDEX);
  }

  @Override
  public void close() {
    if (ownsTable) {
      mdt.close();
    }
  }

  // ---- py4j entry points ----

  /**
   * Driver-side lookup for the CLI: JSON {@code {key: {"partition", "fileId", "instantTime" (epoch millis or
   * null)}}} for the keys of the JSON array {@code keysJson} that the index holds.
   *
   * @param options Hadoop settings for reaching the table (e.g. fs.s3a.*), applied over the active session's
   */
  public static String lookupJson(String tablePath, Map<String, String> options, String keysJson) {
    List<String> keys = new ArrayList<>();
    try {
      for (JsonNode n : JSON.readTree(keysJson)) {
        keys.add(n.asText());
      }
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException("hudi-meta: keys must be a JSON array of strings: " + e.getMessage(), e);
    }
    Path base = new Path(tablePath);
    FileSystem fs = fileSystem(base, hadoopConf(SparkSession.getActiveSession().getOrElse(() -> null), options));
    Map<String, RecordLocation> found;
    try (RecordIndex index = open(fs, base)) {
      found = index.lookup(keys);
    }
    // written as a stream: a JSON tree of a 50k-key batch cost a quarter of a cached lookup
    StringWriter text = new StringWriter();
    try (JsonGenerator out = JSON.getFactory().createGenerator(text)) {
      out.writeStartObject();
      for (Map.Entry<String, RecordLocation> e : found.entrySet()) {
        RecordLocation loc = e.getValue();
        out.writeObjectFieldStart(e.getKey());
        out.writeStringField("partition", loc.partitionPath());
        out.writeStringField("fileId", loc.fileId());
        out.writeFieldName("instantTime");
        if (loc.instantTimeMillis() == null) {
          out.writeNull();
        } else {
          out.writeNumber(loc.instantTimeMillis());
        }
        out.writeEndObject();
      }
      out.writeEndObject();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return text.toString();
  }

  /**
   * Executor-side lookup for writers: the locations of the keys in column {@value #KEYS_COLUMN} of
   * {@code keys} (string; duplicates and nulls allowed) as rows of {@value #KEY_COLUMN},
   * {@value #PARTITION_COLUMN}, {@value #FILE_ID_COLUMN}, one per distinct key found. The
   * driver resolves the record_index slices once; each task reads one file group's slice for its keys.
   *
   * @throws NoRecordIndexException as {@link #open}
   */
  public static Dataset<Row> locate(
    SparkSession spark,
    String tablePath,
    Map<String, String> options,
    Dataset<Row> keys
  ) {
    Configuration conf = hadoopConf(spark, options);
    Path base = new Path(tablePath);
    PartitionSlices slices;
    try (RecordIndex index = open(fileSystem(base, conf), base)) {
      slices = index.slices();
    }
    return ExecutorLookup.run(spark, conf, slices, keys);
  }

  /**
   * The session's Hadoop configuration (Hadoop's defaults without a session) with {@code options} set over
   * it; the HFile block-cache options it gives ({@link BlockCache}) are applied to this JVM's cache.
   */
  static Configuration hadoopConf(SparkSession session, Map<String, String> options) {
    Configuration conf =
      session instanceof org.apache.spark.sql.classic.SparkSession classic
        ? classic.sessionState().newHadoopConf()
        : new Configuration();
    if (options != null) {
      options.forEach((k, v) -> {
        if (v != null && !k.equals("path")) {
          conf.set(k, v);
        }
      });
    }
    BlockCache.shared().configure(conf::get);
    return conf;
  }

  static FileSystem fileSystem(Path base, Configuration conf) {
    try {
      return base.getFileSystem(conf);
    } catch (IOException e) {
      throw new UncheckedIOException("hudi-meta: cannot reach " + base, e);
    }
  }
}
