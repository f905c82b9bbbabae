package io.hudimeta.metadata;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.hudimeta.table.BaseFile;
import io.hudimeta.table.FileEntry;
import io.hudimeta.table.FileListing;
import io.hudimeta.table.FileNames;
import io.hudimeta.table.FileSlice;
import io.hudimeta.table.FileSystemView;
import io.hudimeta.table.LogFile;
import io.hudimeta.table.StorageListing;
import io.hudimeta.table.TableConfig;
import io.hudimeta.table.Timeline;
import io.hudimeta.table.Visibility;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;

/**
 * Small static entry points returning JSON, for py4j callers (tests): one round trip per
 * question. Not used by the reader itself.
 */
public final class MetadataInspect {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

  private MetadataInspect() {}

  /**
   * For each string of a JSON array: {@code {"xxh64": <signed decimal>, "id64": ..., "id128": ...}};
   * plus {@code "__xxh64_seed0__"}: XXH64 with seed 0 of each string, for reference vectors.
   */
  public static String hashIdsJson(String stringsJson) throws JsonProcessingException {
    ObjectNode out = NODES.objectNode();
    ObjectNode seed0 = NODES.objectNode();
    for (JsonNode n : JSON.readTree(stringsJson)) {
      String s = n.asText();
      ObjectNode ids = out.putObject(s);
      ids.put("xxh64", Long.toString(MetadataKeys.xxhash64(s)));
      ids.put("id64", MetadataKeys.hashId64(s));
      ids.put("id128", MetadataKeys.hashId128(s));
      seed0.put(s, Long.toHexString(XXHash64.hash(s.getBytes(StandardCharsets.UTF_8), 0L)));
    }
    out.set("__xxh64_seed0__", seed0);
    return out.toString();
  }

  /** XXH64 of the UTF-8 bytes of {@code s} with {@code seed}, as 16 hex digits. */
  public static String xxhash64Hex(String s, long seed) {
    return String.format("%016x", XXHash64.hash(s.getBytes(StandardCharsets.UTF_8), seed));
  }

  /** Column-stats and partition-stats keys: {@code [column, partition, fileName]} triples in, keys out. */
  public static String statsKeysJson(String triplesJson) throws JsonProcessingException {
    ArrayNode out = NODES.arrayNode();
    for (JsonNode t : JSON.readTree(triplesJson)) {
      ObjectNode o = out.addObject();
      String column = t.get(0).asText();
      String partition = t.get(1).asText();
      o.put("column_stats", MetadataKeys.columnStatsKey(column, partition, t.get(2).asText()));
      o.put("partition_stats", MetadataKeys.partitionStatsKey(column, partition));
    }
    return out.toString();
  }

  /**
   * Replays {@code files}-partition records of one key through the merge rules: a JSON array, oldest
   * first, of maps {@code {fileName: [size, isDeleted]}} or null for a delete-block entry. Returns
   * {@code {"live": {name: size} | null, "tombstones": [names]}}, live being null when the key ends deleted.
   */
  public static String mergeFilesJson(String recordsJson) throws JsonProcessingException {
    MetadataRecord merged = null;
    for (JsonNode r : JSON.readTree(recordsJson)) {
      MetadataRecord next;
      if (r.isNull()) {
        next = MetadataRecord.deletion("p");
      } else {
        Map<String, MetadataRecord.FileInfo> files = new TreeMap<>();
        r.fields().forEachRemaining(e ->
          files.put(
            e.getKey(),
            new MetadataRecord.FileInfo(e.getValue().get(0).asLong(), e.getValue().get(1).asBoolean())
          )
        );
        next = MetadataRecord.ofFiles("p", MetadataRecord.TYPE_FILES, files);
      }
      merged = MetadataRecord.combine(merged, next);
    }
    ObjectNode out = NODES.objectNode();
    if (merged == null || merged.isDeleted()) {
      out.putNull("live");
      out.putArray("tombstones");
    } else {
      ObjectNode live = out.putObject("live");
      merged.liveFiles().forEach(live::put);
      ArrayNode tombstones = out.putArray("tombstones");
      merged.fileInfos().forEach((name, info) -> {
        if (info.deleted()) {
          tombstones.add(name);
        }
      });
    }
    return out.toString();
  }

  /**
   * The table's listing as seen through the metadata table and through storage:
   * {@code {"mdt": bool, "inSync": bool, "metadata": side, "storage": side}} where a side is
   * {@code {"partitions": [...], "files": {p: [[name, size]...]}, "slices": {p: [{fileId, base, logs}]}}};
   * storage files are restricted to base and log files of committed instants.
   */
  public static String listingJson(String basePath, Configuration conf) throws Exception {
    Path base = new Path(basePath);
    FileSystem fs = base.getFileSystem(conf);
    TableConfig config = TableConfig.load(fs, base);
    Timeline timeline = Timeline.load(fs, base, config);
    ObjectNode out = NODES.objectNode();
    Optional<MetadataFileListing> mdt = MetadataFileListing.open(fs, base, config, timeline);
    out.put("mdt", mdt.isPresent());
    if (mdt.isPresent()) {
      try (MetadataFileListing listing = mdt.get()) {
        out.put("inSync", listing.inSync());
        out.set("metadata", side(listing, timeline, config, null));
      }
    }
    StorageListing storage = StorageListing.list(fs, base);
    out.set("storage", side(storage, timeline, config, timeline.visibility(null)));
    return out.toString();
  }

  private static ObjectNode side(FileListing listing, Timeline timeline, TableConfig config, Visibility committedOnly) {
    ObjectNode side = NODES.objectNode();
    List<String> partitions = listing.partitions();
    ArrayNode parts = side.putArray("partitions");
    partitions.forEach(parts::add);
    Map<String, List<FileEntry>> files = listing.files(partitions);
    ObjectNode filesNode = side.putObject("files");
    files.forEach((p, entries) -> {
      Map<String, Long> kept = new TreeMap<>();
      for (FileEntry e : entries) {
        if (committedOnly == null || isCommitted(e.name(), committedOnly)) {
          kept.put(e.name(), e.size());
        }
      }
      ArrayNode arr = filesNode.putArray(p);
      kept.forEach((name, size) -> arr.addArray().add(name).add(size));
    });
    FileSystemView view = new FileSystemView(timeline, config, files);
    ObjectNode slicesNode = side.putObject("slices");
    for (String p : partitions) {
      ArrayNode arr = slicesNode.putArray(p);
      for (FileSlice s : view.latestFileSlices(p, null)) {
        ObjectNode o = arr.addObject();
        o.put("fileId", s.fileId());
        o.put("base", s.baseFile() == null ? null : s.baseFile().name());
        ArrayNode logs = o.putArray("logs");
        s.logFiles().forEach(l -> logs.add(l.name()));
      }
    }
    return side;
  }

  private static boolean isCommitted(String name, Visibility visibility) {
    BaseFile base = FileNames.parseBaseFile(name, -1);
    if (base != null) {
      return visibility.isCommitted(base.instantTime());
    }
    LogFile log = FileNames.parseLogFile(name, -1);
    return log != null && visibility.isCommitted(log.instantTime());
  }

  /**
   * Storage calls made while opening the metadata table of a data table and listing every
   * partition through it: {@code {"listings": [...], "opens": [...], "partitions": n, "files": n,
   * "storageListings": [...]}}; the last is what a storage listing of the same table does (a control).
   */
  public static String countedListingJson(String basePath, Configuration conf) throws Exception {
    Path base = new Path(basePath);
    CountingFileSystem fs = new CountingFileSystem(base.getFileSystem(conf));
    ObjectNode out = NODES.objectNode();
    TableConfig config = TableConfig.load(fs, base);
    Timeline timeline = Timeline.load(fs, base, config);
    Optional<MetadataFileListing> mdt = MetadataFileListing.open(fs, base, config, timeline);
    out.put("mdt", mdt.isPresent());
    if (mdt.isPresent()) {
      try (MetadataFileListing listing = mdt.get()) {
        Map<String, List<FileEntry>> all = listing.all();
        out.put("partitions", all.size());
        out.put("files", all.values().stream().mapToInt(List::size).sum());
        out.put("inSync", listing.inSync());
      }
    }
    ArrayNode listings = out.putArray("listings");
    fs.listings().forEach(listings::add);
    ArrayNode opens = out.putArray("opens");
    fs.opens().forEach(opens::add);
    fs.reset();
    StorageListing.list(fs, base);
    ArrayNode control = out.putArray("storageListings");
    fs.listings().forEach(control::add);
    return out.toString();
  }

  /**
   * Column stats of a data partition ("" when non-partitioned) for the columns of a JSON array:
   * {@code {file: {column: {"min": [kind, value], "max": ..., "nullCount", "valueCount", "valueType"}}}}.
   */
  public static String columnStatsJson(String basePath, Configuration conf, String partition, String columnsJson)
    throws Exception {
    List<String> columns = new ArrayList<>();
    JSON.readTree(columnsJson).forEach(n -> columns.add(n.asText()));
    try (MetadataTable mdt = openTable(basePath, conf)) {
      return statsNode(mdt.columnStats(partition, columns)).toString();
    }
  }

  /** Partition stats for partitions × columns (JSON arrays), same shape as {@link #columnStatsJson}. */
  public static String partitionStatsJson(
    String basePath,
    Configuration conf,
    String partitionsJson,
    String columnsJson
  ) throws Exception {
    List<String> partitions = new ArrayList<>();
    JSON.readTree(partitionsJson).forEach(n -> partitions.add(n.asText()));
    List<String> columns = new ArrayList<>();
    JSON.readTree(columnsJson).forEach(n -> columns.add(n.asText()));
    try (MetadataTable mdt = openTable(basePath, conf)) {
      return statsNode(mdt.partitionStats(partitions, columns)).toString();
    }
  }

  /**
   * Merged records of an MDT partition whose key starts with {@code prefix} ("" for all):
   * {@code {key: {"type": n, "files": {name: size}?, "stats": {...}?, "payload": "<avro json>"}}}.
   */
  public static String recordsJson(String basePath, Configuration conf, String mdtPartition, String prefix)
    throws Exception {
    try (MetadataTable mdt = openTable(basePath, conf)) {
      return recordsNode(mdt.scanPrefixes(mdtPartition, List.of(prefix))).toString();
    }
  }

  /** Merged records of exactly the keys of a JSON array (absent keys left out), shaped as {@link #recordsJson}. */
  public static String lookupJson(String basePath, Configuration conf, String mdtPartition, String keysJson)
    throws Exception {
    List<String> keys = new ArrayList<>();
    JSON.readTree(keysJson).forEach(n -> keys.add(n.asText()));
    try (MetadataTable mdt = openTable(basePath, conf)) {
      return recordsNode(mdt.lookup(mdtPartition, keys)).toString();
    }
  }

  private static ObjectNode recordsNode(Map<String, MetadataRecord> records) {
    ObjectNode out = NODES.objectNode();
    records.forEach((key, r) -> {
      ObjectNode o = out.putObject(key);
      o.put("type", r.type());
      if (r.fileInfos() != null) {
        ObjectNode files = o.putObject("files");
        r.liveFiles().forEach(files::put);
      }
      if (r.columnStat() != null) {
        o.set("stats", statNode(r.columnStat()));
      } else if (r.payload() != null) {
        o.put("payload", r.payload().toString());
      }
    });
    return out;
  }

  /** The latest MDT file slices of an MDT partition: {@code [{fileId, base, logs}]}. */
  public static String slicesJson(String basePath, Configuration conf, String mdtPartition) throws Exception {
    try (MetadataTable mdt = openTable(basePath, conf)) {
      ArrayNode arr = NODES.arrayNode();
      for (FileSlice s : mdt.latestSlices(mdtPartition)) {
        ObjectNode o = arr.addObject();
        o.put("fileId", s.fileId());
        o.put("base", s.baseFile() == null ? null : s.baseFile().name());
        ArrayNode logs = o.putArray("logs");
        s.logFiles().forEach(l -> logs.add(l.name()));
      }
      return arr.toString();
    }
  }

  private static MetadataTable openTable(String basePath, Configuration conf) throws Exception {
    Path base = new Path(basePath);
    FileSystem fs = base.getFileSystem(conf);
    TableConfig config = TableConfig.load(fs, base);
    Timeline timeline = Timeline.load(fs, base, config);
    return MetadataTable.open(fs, base, config, timeline).orElseThrow(() ->
      new IllegalStateException("no usable metadata table at " + basePath)
    );
  }

  private static ObjectNode statsNode(Map<String, Map<String, ColumnStat>> stats) {
    ObjectNode out = NODES.objectNode();
    stats.forEach((outer, byColumn) -> {
      ObjectNode o = out.putObject(outer);
      byColumn.forEach((column, stat) -> o.set(column, statNode(stat)));
    });
    return out;
  }

  private static ObjectNode statNode(ColumnStat s) {
    ObjectNode o = NODES.objectNode();
    o.put("fileName", s.fileName());
    o.put("columnName", s.columnName());
    o.set("min", value(s.min()));
    o.set("max", value(s.max()));
    o.put("nullCount", s.nullCount());
    o.put("valueCount", s.valueCount());
    o.put("totalSize", s.totalSize());
    o.put("isTightBound", s.isTightBound());
    o.put("valueType", s.valueType());
    o.put("valueTypeInfo", s.valueTypeInfo());
    return o;
  }

  /** {@code [kind, value]} with kinds string, boolean, int, long, float, double, date, decimal,
   * timestamp (epoch micros), local_timestamp, time (ISO), bytes (Base64), array; null stays null. */
  static JsonNode value(Object v) {
    if (v == null) {
      return NODES.nullNode();
    }
    ArrayNode a = NODES.arrayNode();
    if (v instanceof String s) {
      a.add("string").add(s);
    } else if (v instanceof Boolean b) {
      a.add("boolean").add(b);
    } else if (v instanceof Integer i) {
      a.add("int").add(i);
    } else if (v instanceof Long l) {
      a.add("long").add(l);
    } else if (v instanceof Float f) {
      a.add("float").add(f);
    } else if (v instanceof Double d) {
      a.add("double").add(d);
    } else if (v instanceof LocalDate d) {
      a.add("date").add(d.toString());
    } else if (v instanceof BigDecimal d) {
      a.add("decimal").add(d.toPlainString());
    } else if (v instanceof Instant t) {
      a.add("timestamp").add(ChronoUnit.MICROS.between(Instant.EPOCH, t));
    } else if (v instanceof LocalDateTime t) {
      a.add("local_timestamp").add(t.toString());
    } else if (v instanceof LocalTime t) {
      a.add("time").add(t.toString());
    } else if (v instanceof byte[] b) {
      a.add("bytes").add(Base64.getEncoder().encodeToString(b));
    } else if (v instanceof Collection<?> c) {
      ArrayNode items = NODES.arrayNode();
      c.forEach(x -> items.add(value(x)));
      a.add("array").add(items);
    } else {
      a.add(v.getClass().getSimpleName()).add(v.toString());
    }
    return a;
  }
}
