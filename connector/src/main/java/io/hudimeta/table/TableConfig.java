package io.hudimeta.table;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.zip.CRC32;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;

/**
 * The table's {@code .hoodie/hoodie.properties}, with typed accessors.
 *
 * <p>Loading follows Hudi's update protocol: writers rewrite the file through
 * {@code hoodie.properties.backup}, so when the main file is missing, Apache Hudi would reject it (not
 * loadable, or a checksum that does not validate) or it names no table (required keys, a table type and
 * version this reader reads), the backup is read instead ({@link TableConfigFiles}).
 */
public final class TableConfig {

  public enum TableType {
    COPY_ON_WRITE,
    MERGE_ON_READ,
  }

  public enum MergeMode {
    EVENT_TIME_ORDERING,
    COMMIT_TIME_ORDERING,
    CUSTOM,
  }

  public static final String META_FOLDER = ".hoodie";
  public static final String PROPERTIES_FILE = "hoodie.properties";
  public static final String BACKUP_FILE = "hoodie.properties.backup";

  public static final String NAME = "hoodie.table.name";
  public static final String DATABASE = "hoodie.database.name";
  public static final String TYPE = "hoodie.table.type";
  public static final String VERSION = "hoodie.table.version";
  public static final String CHECKSUM = "hoodie.table.checksum";
  public static final String TIMELINE_LAYOUT = "hoodie.timeline.layout.version";
  public static final String TIMELINE_PATH = "hoodie.timeline.path";
  /** A table property and, under the same key, the write option that sets it. */
  public static final String HIVE_STYLE_PARTITIONING = "hoodie.datasource.write.hive_style_partitioning";
  private static final String RECORD_MERGE_MODE = "hoodie.record.merge.mode";
  static final List<String> REQUIRED = List.of(NAME, TYPE, VERSION);

  /** Merge strategy ids from Hudi's HoodieRecordMerger. */
  static final String EVENT_TIME_STRATEGY = "eeb8d96f-b1e4-49fd-bbf8-28ac514178e5";
  static final String COMMIT_TIME_STRATEGY = "ce9acb64-bde0-424c-9b91-f6ebba25356d";
  static final String DEFAULT_PAYLOAD = "org.apache.hudi.common.model.DefaultHoodieRecordPayload";
  static final String OVERWRITE_PAYLOAD = "org.apache.hudi.common.model.OverwriteWithLatestAvroPayload";
  static final String EVENT_TIME_PAYLOAD = "org.apache.hudi.common.model.EventTimeAvroPayload";

  private final Path basePath;
  private final Path sourceFile;
  private final Map<String, String> props;

  // asked once per file when planning: parsed once (benign races: immutable values)
  private TableType tableType;
  private int layoutVersion;
  private String baseFileFormat;

  private TableConfig(Path basePath, Path sourceFile, Map<String, String> props) {
    this.basePath = basePath;
    this.sourceFile = sourceFile;
    this.props = new LinkedHashMap<>(props); // hashed lookups, the given (sorted) order kept
  }

  /**
   * The table config of the table at {@code basePath}: hoodie.properties, or its backup when the main file is
   * missing or cannot be used ({@link TableConfigFiles}).
   */
  public static TableConfig load(FileSystem fs, Path basePath) {
    return TableConfigFiles.load(fs, basePath);
  }

  /** A table is there once hoodie.properties is, or its backup (an update between its writes). */
  public static boolean exists(FileSystem fs, Path basePath) {
    return TableConfigFiles.exists(fs, basePath);
  }

  /** Parses properties bytes that Apache Hudi would read, then validates them; {@code file} names the source. */
  public static TableConfig parse(Path basePath, Path file, byte[] bytes) {
    return validated(basePath, file, TableConfigFiles.accepted(file, bytes));
  }

  static TableConfig validated(Path basePath, Path file, Map<String, String> props) {
    TableConfig config = new TableConfig(basePath, file, props);
    config.validate();
    return config;
  }

  private void validate() {
    for (String key : REQUIRED) {
      if (isBlank(props.get(key))) {
        throw corrupt(key, "is missing");
      }
    }
    try {
      TableType.valueOf(props.get(TYPE).trim());
    } catch (IllegalArgumentException e) {
      throw corrupt(TYPE, "has value '" + props.get(TYPE) + "'; expected COPY_ON_WRITE or MERGE_ON_READ");
    }
    int version = intValue(VERSION);
    if (version < 6 || version > 9) {
      throw corrupt(VERSION, "is " + version + "; this reader supports table versions 6 to 9");
    }
    if (props.containsKey(TIMELINE_LAYOUT)) {
      intValue(TIMELINE_LAYOUT);
    }
  }

  /** Hudi's table checksum: CRC32 of the UTF-8 string {@code <database>.<table>}. */
  public static long checksum(String database, String table) {
    CRC32 crc = new CRC32();
    crc.update(((database == null ? "" : database) + "." + table).getBytes(StandardCharsets.UTF_8));
    return crc.getValue();
  }

  private CorruptTableException corrupt(String key, String problem) {
    return new CorruptTableException("corrupt table config " + sourceFile + ": " + key + " " + problem);
  }

  private int intValue(String key) {
    try {
      return Integer.parseInt(props.get(key).trim());
    } catch (NumberFormatException e) {
      throw corrupt(key, "is '" + props.get(key) + "', not an integer");
    }
  }

  // ---- locations ----

  public Path basePath() {
    return basePath;
  }

  public Path metaPath() {
    return new Path(basePath, META_FOLDER);
  }

  /** Where instant files live: {@code .hoodie/<hoodie.timeline.path>} for layout 2, {@code .hoodie} for layout 1. */
  public Path timelinePath() {
    return timelinePath(basePath);
  }

  /** {@link #timelinePath()} for a table reached under another path (another URI scheme, a copy). */
  public Path timelinePath(Path tableBasePath) {
    Path meta = new Path(tableBasePath, META_FOLDER);
    return timelineLayoutVersion() >= 2 ? new Path(meta, get(TIMELINE_PATH, "timeline")) : meta;
  }

  /** The file the config was read from (the backup when the main file was unusable). */
  public Path sourceFile() {
    return sourceFile;
  }

  // ---- typed accessors ----

  public String tableName() {
    return props.get(NAME).trim();
  }

  /** Null when the table has no database name (metadata tables). */
  public String databaseName() {
    return props.get(DATABASE);
  }

  public TableType tableType() {
    if (tableType == null) {
      tableType = TableType.valueOf(props.get(TYPE).trim());
    }
    return tableType;
  }

  public boolean isMergeOnRead() {
    return tableType() == TableType.MERGE_ON_READ;
  }

  public int tableVersion() {
    return intValue(VERSION);
  }

  /** 2 for table versions 8+, 1 before; inferred from the table version when the key is absent. */
  public int timelineLayoutVersion() {
    if (layoutVersion == 0) {
      layoutVersion = props.containsKey(TIMELINE_LAYOUT) ? intValue(TIMELINE_LAYOUT) : tableVersion() >= 8 ? 2 : 1;
    }
    return layoutVersion;
  }

  public List<String> recordKeyFields() {
    return csv(props.get("hoodie.table.recordkey.fields"));
  }

  /** Partition fields without the {@code :SIMPLE}/{@code :TIMESTAMP} type suffix of CustomKeyGenerator. */
  public List<String> partitionFields() {
    List<String> fields = new ArrayList<>();
    for (String f : csv(props.get("hoodie.table.partition.fields"))) {
      int colon = f.indexOf(':');
      fields.add(colon < 0 ? f : f.substring(0, colon));
    }
    return fields;
  }

  public boolean isPartitioned() {
    return !partitionFields().isEmpty();
  }

  /** v9 {@code hoodie.table.ordering.fields}, else the v6/v8 {@code hoodie.table.precombine.field}. */
  public List<String> orderingFields() {
    String v9 = props.get("hoodie.table.ordering.fields");
    return csv(v9 != null ? v9 : props.get("hoodie.table.precombine.field"));
  }

  /** Raw payload class, or null when the file does not name one. */
  public String payloadClass() {
    String raw = props.getOrDefault(
      "hoodie.compaction.payload.class",
      props.get("hoodie.datasource.write.payload.class")
    );
    return raw == null ? null : raw.trim().replace("com.uber.hoodie", "org.apache.hudi");
  }

  /** {@code hoodie.record.merge.strategy.id}, or the 0.x key {@code hoodie.compaction.record.merger.strategy}. */
  public String recordMergeStrategyId() {
    String id = props.get("hoodie.record.merge.strategy.id");
    return id != null ? id.trim() : trimOrNull(props.get("hoodie.compaction.record.merger.strategy"));
  }

  /**
   * The merge mode: the stored {@code hoodie.record.merge.mode}, else inferred as Hudi 1.x does for
   * older tables ({@code HoodieTableConfig.inferCorrectMergingBehavior}): from the payload class
   * (Default/EventTime payload = event time, OverwriteWithLatest = commit time, others = custom) and
   * the merge strategy id; v8 prefers the strategy id, other versions the payload. Tables before v8
   * without a payload class get Hudi's default payload (DefaultHoodieRecordPayload).
   */
  public MergeMode recordMergeMode() {
    String stored = trimOrNull(props.get(RECORD_MERGE_MODE));
    if (stored != null) {
      try {
        return MergeMode.valueOf(stored);
      } catch (IllegalArgumentException e) {
        throw corrupt(
          RECORD_MERGE_MODE,
          "has value '" + stored + "'; expected EVENT_TIME_ORDERING, COMMIT_TIME_ORDERING or CUSTOM"
        );
      }
    }
    String payload = payloadClass();
    if (payload == null && tableVersion() < 8) {
      payload = DEFAULT_PAYLOAD;
    }
    String strategy = recordMergeStrategyId();
    if (isBlank(payload) && isBlank(strategy)) {
      return orderingFields().isEmpty() ? MergeMode.COMMIT_TIME_ORDERING : MergeMode.EVENT_TIME_ORDERING;
    }
    MergeMode byPayload = modeOfPayload(payload);
    MergeMode byStrategy = modeOfStrategy(strategy);
    if (tableVersion() == 8) {
      return byStrategy != null ? byStrategy : byPayload;
    }
    return byPayload != null ? byPayload : byStrategy;
  }

  private static MergeMode modeOfPayload(String payload) {
    if (isBlank(payload)) {
      return null;
    }
    if (payload.equals(DEFAULT_PAYLOAD) || payload.equals(EVENT_TIME_PAYLOAD)) {
      return MergeMode.EVENT_TIME_ORDERING;
    }
    return payload.equals(OVERWRITE_PAYLOAD) ? MergeMode.COMMIT_TIME_ORDERING : MergeMode.CUSTOM;
  }

  private static MergeMode modeOfStrategy(String strategy) {
    if (isBlank(strategy)) {
      return null;
    }
    if (strategy.equals(EVENT_TIME_STRATEGY)) {
      return MergeMode.EVENT_TIME_ORDERING;
    }
    return strategy.equals(COMMIT_TIME_STRATEGY) ? MergeMode.COMMIT_TIME_ORDERING : MergeMode.CUSTOM;
  }

  public boolean hiveStylePartitioning() {
    return bool(HIVE_STYLE_PARTITIONING, false);
  }

  public boolean urlEncodePartitioning() {
    return bool("hoodie.datasource.write.partitionpath.urlencode", false);
  }

  public boolean populateMetaFields() {
    return bool("hoodie.populate.meta.fields", true);
  }

  public boolean dropPartitionColumns() {
    return bool("hoodie.datasource.write.drop.partition.columns", false);
  }

  public boolean cdcEnabled() {
    return bool("hoodie.table.cdc.enabled", false);
  }

  /** Completed metadata-table partitions (files, column_stats, record_index...), readable by queries. */
  public Set<String> metadataPartitions() {
    return new LinkedHashSet<>(csv(props.get("hoodie.table.metadata.partitions")));
  }

  /** Metadata-table partitions still being built; readers must not use them. */
  public Set<String> inflightMetadataPartitions() {
    return new LinkedHashSet<>(csv(props.get("hoodie.table.metadata.partitions.inflight")));
  }

  /**
   * {@code hoodie.table.index.defs.path}: the JSON file of the table's index definitions (which column each
   * secondary index covers), relative to the base path unless absolute; null when the table defines none.
   */
  public String indexDefinitionsPath() {
    return trimOrNull(props.get("hoodie.table.index.defs.path"));
  }

  /** Avro schema JSON the table was created with, or null. */
  public String createSchema() {
    return trimOrNull(props.get("hoodie.table.create.schema"));
  }

  /** PARQUET (default), HFILE, ORC... */
  public String baseFileFormat() {
    if (baseFileFormat == null) {
      String alt = props.getOrDefault("hoodie.table.base.file.format", props.get("hoodie.table.ro.file.format"));
      baseFileFormat = alt == null ? "PARQUET" : alt.trim().toUpperCase();
    }
    return baseFileFormat;
  }

  /** Extension of base files with the dot, e.g. {@code .parquet}. */
  public String baseFileExtension() {
    return "." + baseFileFormat().toLowerCase();
  }

  public boolean multipleBaseFileFormats() {
    return bool("hoodie.table.multiple.base.file.formats.enable", false);
  }

  /** Timezone of instant times: LOCAL (Hudi's default) or UTC. */
  public String timelineTimezone() {
    return get("hoodie.table.timeline.timezone", "LOCAL");
  }

  /** Key generator class as stored by v6 tables, or null. */
  public String keyGeneratorClass() {
    return trimOrNull(props.get("hoodie.table.keygenerator.class"));
  }

  /** v8+ {@code hoodie.table.keygenerator.type}, else derived from the v6 class name; null if neither is stored. */
  public String keyGeneratorType() {
    String type = trimOrNull(props.get("hoodie.table.keygenerator.type"));
    if (type != null || keyGeneratorClass() == null) {
      return type;
    }
    String simple = keyGeneratorClass().substring(keyGeneratorClass().lastIndexOf('.') + 1);
    boolean avro = simple.contains("Avro");
    String base = switch (simple.replace("Avro", "")) {
      case "SimpleKeyGenerator" -> "SIMPLE";
      case "ComplexKeyGenerator" -> "COMPLEX";
      case "NonpartitionedKeyGenerator" -> "NON_PARTITION";
      case "TimestampBasedKeyGenerator" -> "TIMESTAMP";
      case "CustomKeyGenerator" -> "CUSTOM";
      case "GlobalDeleteKeyGenerator" -> "GLOBAL_DELETE";
      case "HoodieTableMetadataKeyGenerator" -> "HOODIE_TABLE_METADATA";
      default -> null;
    };
    return base == null ? "USER_PROVIDED" : avro ? base + "_AVRO" : base;
  }

  /** Any raw property; null when absent. */
  public String get(String key) {
    return props.get(key);
  }

  public String get(String key, String fallback) {
    String v = trimOrNull(props.get(key));
    return v == null ? fallback : v;
  }

  /** All raw properties, sorted by key. */
  public Map<String, String> properties() {
    return props;
  }

  private boolean bool(String key, boolean fallback) {
    String v = trimOrNull(props.get(key));
    return v == null ? fallback : Boolean.parseBoolean(v);
  }

  private static List<String> csv(String value) {
    List<String> out = new ArrayList<>();
    if (value != null) {
      for (String part : value.split(",")) {
        if (!part.trim().isEmpty()) {
          out.add(part.trim());
        }
      }
    }
    return out;
  }

  private static String trimOrNull(String v) {
    return isBlank(v) ? null : v.trim();
  }

  private static boolean isBlank(String v) {
    return v == null || v.trim().isEmpty();
  }

  @Override
  public String toString() {
    return "TableConfig(" + tableName() + ", " + tableType() + ", v" + tableVersion() + ", " + sourceFile + ")";
  }
}
