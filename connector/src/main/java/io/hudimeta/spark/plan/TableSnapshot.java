package io.hudimeta.spark.plan;

import io.hudimeta.avro.AvroSchemas;
import io.hudimeta.metadata.MetadataDamage;
import io.hudimeta.metadata.MetadataTable;
import io.hudimeta.spark.merge.LogCompactionReader;
import io.hudimeta.spark.options.ReadOptions;
import io.hudimeta.spark.pruning.DataSkipping;
import io.hudimeta.spark.pruning.PartitionPruner;
import io.hudimeta.spark.pruning.PruningStats;
import io.hudimeta.spark.pruning.RecordIndexPruning;
import io.hudimeta.table.CleanHorizon;
import io.hudimeta.table.FileEntry;
import io.hudimeta.table.FileSlice;
import io.hudimeta.table.FileSystemView;
import io.hudimeta.table.Instant;
import io.hudimeta.table.LogFile;
import io.hudimeta.table.MetaFields;
import io.hudimeta.table.TableConfig;
import io.hudimeta.table.Timeline;
import io.hudimeta.table.Visibility;
import io.hudimeta.table.WrittenFile;
import io.hudimeta.view.MetadataLease;
import io.hudimeta.view.SyncedView;
import io.hudimeta.view.TableViews;
import io.hudimeta.view.ViewStorageConfig;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.spark.sql.classic.SparkSession;
import org.apache.spark.sql.sources.Filter;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;

/**
 * A table as one query sees it (driver side): config, timeline, schema, the query instant and the
 * file slices to read. Everything the scan needs to know about the table comes from here.
 */
public final class TableSnapshot {

  /** The columns of a query in Apache Hudi's CDC format: one row per change, not the table's rows. */
  public static final StructType CDC_SCHEMA = new StructType()
    .add("op", DataTypes.StringType)
    .add("ts_ms", DataTypes.StringType)
    .add("before", DataTypes.StringType)
    .add("after", DataTypes.StringType);

  /** The columns a writer gives: {@code schema} without Hudi's meta columns. */
  public static StructType dataSchema(StructType schema) {
    List<StructField> data = new ArrayList<>();
    for (StructField f : schema.fields()) {
      if (!MetaFields.isMetaField(f.name())) {
        data.add(f);
      }
    }
    return new StructType(data.toArray(new StructField[0]));
  }

  private final ReadOptions options;
  private final FileSystem fs;
  private final Path basePath;
  private String baseString;
  private final TableConfig config;
  private final Timeline timeline;
  private final SyncedView view;
  private final StructType schema;
  private final String queryInstant;
  private final Set<String> commitTimeFilter;
  /** The commits of an incremental query (archived ones included), in completion order; null otherwise. */
  private List<Instant> incrementalCommits;
  private String planStats = "";
  private String listingSource = "";
  private PruningStats pruningStats = PruningStats.NOT_PLANNED;

  private TableSnapshot(ReadOptions options, FileSystem fs) {
    this.options = options;
    this.basePath = new Path(options.path);
    this.fs = fs;
    // the JVM's synced view of the table: repeated scans pay for new instants, not for the table again
    this.view = TableViews.synced(fs, basePath, viewConfig(options));
    this.config = view.config();
    this.timeline = view.timeline();
    this.queryInstant = queryInstant();
    CleanHorizon.check(
      timeline,
      queryInstant,
      options.queryType == ReadOptions.QueryType.INCREMENTAL ? options.beginInstant : null,
      options.path,
      ReadOptions.AS_OF,
      ReadOptions.BEGIN
    );
    this.commitTimeFilter = incrementalCommitTimes();
    StructType table = tableSchema();
    this.schema = options.cdc
      ? CDC_SCHEMA
      : options.logCompactionInstant == null
        ? table
        : LogCompactionReader.schema(table);
  }

  public static TableSnapshot load(ReadOptions options) {
    Configuration conf = SparkSession.active().sessionState().newHadoopConf();
    try {
      return new TableSnapshot(options, new Path(options.path).getFileSystem(conf));
    } catch (IOException e) {
      throw new UncheckedIOException("hudi-meta: cannot reach " + options.path, e);
    }
  }

  /** A snapshot over a given file system (tests count its storage calls). */
  public static TableSnapshot load(ReadOptions options, FileSystem fs) {
    return new TableSnapshot(options, fs);
  }

  public String basePath() {
    return options.path;
  }

  public StructType schema() {
    return schema;
  }

  public FileSystem fileSystem() {
    return fs;
  }

  public TableConfig config() {
    return config;
  }

  public ReadOptions readOptions() {
    return options;
  }

  public Timeline timeline() {
    return timeline;
  }

  /** The commits of an incremental query, in the order incremental queries range over; null for other queries. */
  public List<Instant> incrementalCommits() {
    return incrementalCommits;
  }

  /** The time incremental queries range over of the latest completed commit; null if none. */
  public String latestCommitTime() {
    return timeline.latestCommitTime();
  }

  /** Every partition path of the table (from the metadata table when it is in sync). */
  public List<String> partitions() {
    return view.partitions();
  }

  /** A log compaction's read (hudi-meta.logcompaction.instant): its rows come from a {@link LogCompactionReader}. */
  public boolean readsLogCompaction() {
    return options.logCompactionInstant != null;
  }

  public String describe() {
    return (
      config.tableName() +
      " " +
      config.tableType() +
      " " +
      options.queryType.name().toLowerCase() +
      (queryInstant == null ? "" : " as of " + queryInstant)
    );
  }

  public String planStats() {
    return planStats;
  }

  /** What each pruning step of the last plan left. */
  public PruningStats pruningStats() {
    return pruningStats;
  }

  /**
   * The instant the query reads as of: as.of.instant, the incremental end, or null for latest. A time travel
   * before the first active commit looks in the timeline history (only then is it read): archived commits
   * count as committed, so an instant at or after the first of them is readable.
   */
  private String queryInstant() {
    String asOf = options.queryType == ReadOptions.QueryType.INCREMENTAL ? options.endInstant : options.asOfInstant;
    if (
      asOf != null &&
      options.asOfInstant != null &&
      timeline
        .completedCommits()
        .stream()
        .noneMatch(i -> i.requestedTime().compareTo(asOf) <= 0) &&
      timeline.archivedCommits(asOf).isEmpty()
    ) {
      throw new IllegalArgumentException(
        "hudi-meta: " + ReadOptions.AS_OF + "=" + asOf + " is before the first " + "completed commit of " + options.path
      );
    }
    return asOf;
  }

  /**
   * Requested times of the commits an incremental query returns rows of; a range that begins before the
   * active timeline also takes the archived commits in it from the timeline history.
   */
  private Set<String> incrementalCommitTimes() {
    if (options.queryType != ReadOptions.QueryType.INCREMENTAL) {
      return null;
    }
    incrementalCommits = timeline.commitsBetweenWithHistory(options.beginInstant, options.endInstant);
    return incrementalCommits.stream().map(Instant::requestedTime).collect(Collectors.toSet());
  }

  public Set<String> commitTimeFilter() {
    return commitTimeFilter;
  }

  private StructType tableSchema() {
    String avro = timeline.latestSchema();
    if (avro == null) {
      throw new IllegalStateException(
        "hudi-meta: " + options.path + " has no schema yet (no completed commit " + "and no hoodie.table.create.schema)"
      );
    }
    StructType data = AvroSchemas.toStructType(AvroSchemas.parse(avro));
    List<StructField> fields = new ArrayList<>();
    Set<String> names = Set.of(data.fieldNames());
    for (String meta : MetaFields.ALL) {
      if (!names.contains(meta)) {
        fields.add(DataTypes.createStructField(meta, DataTypes.StringType, true));
      }
    }
    fields.addAll(List.of(data.fields()));
    return DataTypes.createStructType(fields);
  }

  /**
   * Columns whose type differs between the table's create schema and its current schema: older
   * files may hold them with the old type.
   */
  public Set<String> driftedColumns() {
    if (config.createSchema() == null) {
      return Set.of();
    }
    StructType created = AvroSchemas.toStructType(AvroSchemas.parse(config.createSchema()));
    Set<String> out = new HashSet<>();
    for (StructField f : schema.fields()) {
      if (created.getFieldIndex(f.name()).isDefined() && !created.apply(f.name()).dataType().equals(f.dataType())) {
        out.add(f.name());
      }
    }
    return out;
  }

  public String recordKeyColumn() {
    List<String> keys = config.recordKeyFields();
    if (!config.populateMetaFields() && keys.size() == 1) {
      return keys.get(0);
    }
    return MetaFields.RECORD_KEY;
  }

  public String orderingField() {
    List<String> fields = config.orderingFields();
    if (fields.isEmpty() || !Set.of(schema.fieldNames()).contains(fields.get(0))) {
      return null;
    }
    return fields.get(0);
  }

  public boolean eventTimeOrdering() {
    return config.recordMergeMode() == TableConfig.MergeMode.EVENT_TIME_ORDERING;
  }

  /** Requested times of the instants whose log blocks this query may see (archived ones included). */
  public Set<String> visibleInstants() {
    Visibility v = timeline.visibility(queryInstant);
    Set<String> out = new HashSet<>();
    String before = options.logCompactionInstant; // a log compaction merges what was written before it
    for (Instant i : timeline.completed()) {
      if (v.isCommitted(i.requestedTime()) && (before == null || i.requestedTime().compareTo(before) < 0)) {
        out.add(i.requestedTime());
      }
    }
    return timeline.withArchivedInstants(out, queryInstant);
  }

  /**
   * The file slices to read, after partition pruning and data skipping. Metadata-table files found damaged
   * meanwhile (the plan then lists storage or does not prune by them) are warned of once and named at the end
   * of {@link #planStats}.
   */
  public List<SliceSplit> plan(Filter[] filters) {
    try (MetadataDamage.Notes damage = MetadataDamage.Notes.open()) {
      List<SliceSplit> splits = planScan(filters);
      planStats += damage.describe();
      return splits;
    }
  }

  private List<SliceSplit> planScan(Filter[] filters) {
    if (options.compactionInstant != null) {
      return planSplits(options.compactionInstant, Instant.COMPACTION);
    }
    if (options.clusteringInstant != null) {
      return planSplits(options.clusteringInstant, "clustering");
    }
    if (options.logCompactionInstant != null) {
      return planSplits(options.logCompactionInstant, Instant.LOG_COMPACTION)
        .stream()
        .map(SliceSplit::logsOnly)
        .collect(Collectors.toList());
    }
    Set<String> pinned = PartitionPruner.pinned(config, filters);
    // a writer's lookups pin partitions: then no listing of every partition (a walk of storage without MDT)
    List<String> all = pinned != null ? new ArrayList<>(new TreeSet<>(pinned)) : view.partitions();
    List<String> byPath = PartitionPruner.prune(config, schema, all, filters);
    try (MetadataLease mdt = metadataForSkipping()) {
      return planPruned(filters, all, byPath, mdt.table());
    }
  }

  private List<SliceSplit> planPruned(Filter[] filters, List<String> all, List<String> byPath, MetadataTable mdt) {
    boolean latest = options.queryType == ReadOptions.QueryType.SNAPSHOT && queryInstant == null;
    DataSkipping skipping = DataSkipping.of(options.dataSkipping, mdt, config, schema, filters, latest);
    RecordIndexPruning recordIndex = RecordIndexPruning.of(options, mdt, fs, timeline, schema, filters, latest);
    Set<String> located = recordIndex.partitions(); // when it answers, no stats are read (Hudi's order)
    List<String> partitions =
      located == null
        ? skipping.prunePartitions(byPath)
        : byPath.stream().filter(located::contains).collect(Collectors.toList());
    Map<String, List<FileEntry>> files = view.files(partitions);
    listingSource = view.source();
    if (listingSource.equals("storage") && options.checkListedFiles) {
      // a metadata-table listing comes from the same commits, so the check would compare the timeline
      // with itself at a cost growing with the table; a file deleted under it fails when it is read
      LatestWrites.check(timeline, timeline.visibility(queryInstant), files, options.path);
    }
    FileSystemView view = new FileSystemView(timeline, config, files);
    Set<String> touched = touchedFileGroups();
    boolean readOptimized = options.queryType == ReadOptions.QueryType.READ_OPTIMIZED;
    List<SliceSplit> candidates = new ArrayList<>();
    for (String partition : partitions) {
      for (FileSlice slice : view.latestFileSlices(partition, queryInstant)) {
        if (touched != null && !touched.contains(partition + "/" + slice.fileId())) {
          continue;
        }
        SliceSplit split = split(slice, readOptimized);
        if (split != null) {
          candidates.add(split);
        }
      }
    }
    List<SliceSplit> afterStats = located == null ? skipping.pruneSlices(candidates) : candidates;
    List<SliceSplit> splits = recordIndex.prune(afterStats);
    int fileCount = fileCount(splits);
    planStats =
      "listing=" +
      listingSource +
      " partitions=" +
      partitions.size() +
      "/" +
      all.size() +
      " fileSlices=" +
      splits.size() +
      " files=" +
      fileCount;
    pruningStats = new PruningStats(
      located == null ? skipping.mode() : "record_index",
      all.size(),
      byPath.size(),
      partitions.size(),
      candidates.size(),
      afterStats.size(),
      fileCount(candidates),
      fileCount(afterStats),
      recordIndex.describe(),
      recordIndex.keyCount(),
      splits.size(),
      fileCount
    );
    return splits;
  }

  /** The slices a pending compaction or clustering plan names, each exactly as planned: base and log files. */
  private List<SliceSplit> planSplits(String instant, String action) {
    List<SliceSplit> out = PendingPlans.splits(timeline, view, options.path, instant, action, this::absolute);
    planStats = action + "=" + instant + " fileSlices=" + out.size() + " files=" + fileCount(out);
    return out;
  }

  private static int fileCount(List<SliceSplit> splits) {
    int n = 0;
    for (SliceSplit split : splits) {
      n += (split.baseFile() == null ? 0 : 1) + split.logFiles().length;
    }
    return n;
  }

  private static ViewStorageConfig viewConfig(ReadOptions options) {
    Map<String, String> keys = new HashMap<>(options.viewOptions());
    keys.put(ViewStorageConfig.METADATA_ENABLE, String.valueOf(options.metadataEnabled));
    return ViewStorageConfig.of(keys);
  }

  /** The metadata table for data skipping (the view's, shared): when reads may use it and it is in sync. */
  private MetadataLease metadataForSkipping() {
    return options.dataSkipping && options.metadataEnabled ? view.metadata(config, timeline) : MetadataLease.NONE;
  }

  /** File groups an incremental query must look at ("partition/fileId"); null = all. */
  private Set<String> touchedFileGroups() {
    if (commitTimeFilter == null) {
      return null;
    }
    List<Instant> commits =
      incrementalCommits != null
        ? incrementalCommits
        : timeline.commitsBetweenWithHistory(options.beginInstant, options.endInstant);
    Set<String> out = new HashSet<>();
    for (WrittenFile f : timeline.filesWrittenBy(commits)) {
      out.add(f.partitionPath() + "/" + f.fileId());
    }
    return out;
  }

  private SliceSplit split(FileSlice slice, boolean readOptimized) {
    String base = slice.baseFile() == null ? null : absolute(slice.baseFilePath());
    long size = slice.baseFile() == null ? 0 : slice.baseFile().size();
    String[] logs =
      readOptimized || !config.isMergeOnRead()
        ? new String[0]
        : slice
            .logFiles()
            .stream()
            .map(l -> absolute(relative(slice.partitionPath(), l)))
            .toArray(String[]::new);
    if (base == null && logs.length == 0) {
      return null;
    }
    return new SliceSplit(slice.partitionPath(), slice.fileId(), base, size, logs);
  }

  private static String relative(String partition, LogFile log) {
    return partition.isEmpty() ? log.name() : partition + "/" + log.name();
  }

  /** basePath/relative, by string: parsing a URI per file is most of planning 100,000 files. */
  private String absolute(String relative) {
    if (baseString == null) {
      String base = basePath.toString();
      baseString = base.endsWith("/") ? base.substring(0, base.length() - 1) : base;
    }
    return baseString + "/" + relative;
  }
}
