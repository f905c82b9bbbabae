package io.hudimeta.metadata;

import io.hudimeta.table.FileEntry;
import io.hudimeta.table.FileSlice;
import io.hudimeta.table.FileSystemView;
import io.hudimeta.table.Instant;
import io.hudimeta.table.TableConfig;
import io.hudimeta.table.TableNotFoundException;
import io.hudimeta.table.Timeline;
import io.hudimeta.table.Visibility;
import java.io.Closeable;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.avro.generic.GenericDatumReader;
import org.apache.avro.generic.GenericRecord;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Read access to a data table's metadata table (MDT) at {@code <base>/.hoodie/metadata}, itself a
 * merge-on-read table with HFile base files and log files of HFile data blocks and delete blocks
 * (docs/format.md §2.3, §6.2, §7).
 *
 * <p>Each MDT partition is read as the latest file slice of each of its file groups, built by a
 * {@link FileSystemView} over the MDT's own timeline from a listing of that MDT partition directory
 * (never of a data-table directory). Within a slice, the base HFile's cells come first, then the log
 * blocks in log-file order; a key's records merge with {@link MetadataRecord#combine} and a delete-block
 * entry removes the key.
 *
 * <p>Which MDT writes count (the write protocol commits the MDT before the data table): a log block's
 * instant must be completed on the MDT timeline and not rolled back there, and also
 * <ul>
 *   <li>be one of the MDT's own instants: partition initialisation ({@code 00000000000000xxx}) or a
 *       compaction (completes as {@code commit}); or</li>
 *   <li>be completed on the data timeline (any action: commits, cleans, rollbacks, indexing); or</li>
 *   <li>be older than the data timeline's first active instant and not on it (archived there); or</li>
 *   <li>(table version 6) be an MDT-internal deltacommit named {@code <17-digit instant><3-digit suffix>}.</li>
 * </ul>
 * Blocks of a log-compaction (header COMPACTED_BLOCK_TIMES) only need to be completed on the MDT; they
 * replace the earlier blocks of the instants they list. Rollback command blocks drop the earlier blocks of
 * their target instant.
 *
 * <p>A file readers cannot use - a base HFile that does not open, a log file that does not parse, a torn
 * block in the log of an instant that counts - is damage: the read fails with a {@code CorruptTableException}
 * caused by {@link MetadataDamage} naming the file and the repair, and {@link #open} (which reads every slice
 * of {@code files}) gives no table, so readers list storage. A torn block of an instant that does not count is
 * a torn write and is skipped ({@link SliceBlocks}).
 *
 * <p>A slice is opened ({@link SliceReader}) the first time a read needs it: a keyed lookup of
 * {@code record_index} opens only the file groups its keys hash to. Instances keep the opened HFiles and
 * decoded log blocks; close them with {@link #close()}. Methods are synchronized: one instance may be
 * shared, calls serialize. {@link #partitionSlices} hands the same slices and block rule to readers elsewhere.
 */
public final class MetadataTable implements Closeable {

  private static final Logger LOG = LoggerFactory.getLogger(MetadataTable.class);

  public static final String FILES = "files";
  public static final String COLUMN_STATS = "column_stats";
  public static final String PARTITION_STATS = "partition_stats";
  public static final String RECORD_INDEX = "record_index";
  public static final String BLOOM_FILTERS = "bloom_filters";
  /** Prefix of the MDT's partition-initialisation instants (Hudi's SOLO_COMMIT_TIMESTAMP). */
  static final String INIT_INSTANT_PREFIX = "00000000000000";

  private final FileSystem fs;
  private final Path dataBasePath;
  private final Path path;
  private final TableConfig dataConfig;
  private final Timeline dataTimeline;
  private final TableConfig config;
  private final Timeline timeline;
  private final Visibility visibility;
  private final String firstDataInstant;
  private final Map<String, PartitionReader> partitions = new HashMap<>();
  private final Map<String, GenericDatumReader<GenericRecord>> decoders = new HashMap<>();
  private boolean closed;

  private MetadataTable(
    FileSystem fs,
    Path dataBasePath,
    Path path,
    TableConfig dataConfig,
    Timeline dataTimeline,
    TableConfig config,
    Timeline timeline
  ) {
    this.fs = fs;
    this.dataBasePath = dataBasePath;
    this.path = path;
    this.dataConfig = dataConfig;
    this.dataTimeline = dataTimeline;
    this.config = config;
    this.timeline = timeline;
    this.visibility = timeline.visibility(null);
    List<Instant> dataInstants = dataTimeline.all();
    this.firstDataInstant = dataInstants.isEmpty() ? null : dataInstants.get(0).requestedTime();
  }

  /** {@code <dataBasePath>/.hoodie/metadata}. */
  public static Path metadataPath(Path dataBasePath) {
    return new Path(new Path(dataBasePath, TableConfig.META_FOLDER), "metadata");
  }

  /**
   * The metadata table of a data table, ready to read its {@code files} partition; empty (with the
   * reason logged) when the data table has none, does not list {@code files} among its completed
   * metadata partitions, or the metadata table cannot be read.
   */
  public static Optional<MetadataTable> open(
    FileSystem fs,
    Path dataBasePath,
    TableConfig dataConfig,
    Timeline dataTimeline
  ) {
    Path mdtPath = metadataPath(dataBasePath);
    if (!dataConfig.metadataPartitions().contains(FILES)) {
      LOG.info(
        "Not using the metadata table of {}: '{}' is not among its completed metadata partitions {}",
        dataBasePath,
        FILES,
        dataConfig.metadataPartitions()
      );
      return Optional.empty();
    }
    MetadataTable table = null;
    try {
      TableConfig mdtConfig = TableConfig.load(fs, mdtPath);
      Timeline mdtTimeline = Timeline.load(fs, mdtPath, mdtConfig);
      if (mdtTimeline.completedCommits().isEmpty()) {
        LOG.warn("Not using the metadata table at {}: it has no completed instant", mdtPath);
        return Optional.empty();
      }
      table = new MetadataTable(fs, dataBasePath, mdtPath, dataConfig, dataTimeline, mdtConfig, mdtTimeline);
      table.openAll(FILES); // fail here, not in the middle of planning, when it is unreadable
      return Optional.of(table);
    } catch (TableNotFoundException e) {
      LOG.warn(
        "Not using the metadata table of {}: {} has no hoodie.properties ({})",
        dataBasePath,
        mdtPath,
        e.getMessage()
      );
    } catch (RuntimeException e) {
      MetadataDamage damage = MetadataDamage.in(e);
      if (damage != null) {
        damage.report("Not using the metadata table of " + dataBasePath + " (listing storage instead)");
      } else {
        LOG.warn("Not using the metadata table at {}: it cannot be read", mdtPath, e);
      }
    }
    if (table != null) {
      table.close();
    }
    return Optional.empty();
  }

  /** {@link #open}, and in sync with the data timeline ({@link #inSync}); one that is behind is closed again. */
  public static Optional<MetadataTable> openInSync(
    FileSystem fs,
    Path dataBasePath,
    TableConfig dataConfig,
    Timeline dataTimeline
  ) {
    Optional<MetadataTable> table = open(fs, dataBasePath, dataConfig, dataTimeline);
    if (table.isPresent() && !table.get().inSync()) {
      table.get().close();
      return Optional.empty();
    }
    return table;
  }

  public Path path() {
    return path;
  }

  public Path dataBasePath() {
    return dataBasePath;
  }

  /** The MDT's own table config. */
  public TableConfig config() {
    return config;
  }

  /** The MDT's own timeline. */
  public Timeline timeline() {
    return timeline;
  }

  public TableConfig dataConfig() {
    return dataConfig;
  }

  public Timeline dataTimeline() {
    return dataTimeline;
  }

  /** MDT partitions the data table marks completed (inflight ones, still being built, are left out). */
  public Set<String> availablePartitions() {
    Set<String> out = new LinkedHashSet<>(dataConfig.metadataPartitions());
    out.removeAll(dataConfig.inflightMetadataPartitions());
    return out;
  }

  public boolean hasPartition(String mdtPartition) {
    return availablePartitions().contains(mdtPartition);
  }

  /**
   * Whether the latest completed commit-like instant of the data table is reflected in the MDT:
   * completed on the MDT timeline, or older than every non-initialisation MDT instant (archived from
   * the MDT timeline), or completed before the MDT was (re)initialised. When false, list storage.
   */
  public synchronized boolean inSync() {
    Instant last = dataTimeline.lastCompleted();
    if (last == null) {
      return true;
    }
    String t = last.requestedTime();
    if (timeline.containsCompleted(t)) {
      return true;
    }
    if (timeline.find(t) != null) {
      return false; // still pending in the MDT
    }
    String firstRegular = null;
    String initCompleted = null;
    for (Instant i : timeline.all()) {
      if (!i.requestedTime().startsWith(INIT_INSTANT_PREFIX)) {
        firstRegular = firstRegular == null ? i.requestedTime() : firstRegular;
      } else if (i.isCompleted() && initCompleted == null) {
        initCompleted = i.completionTime();
      }
    }
    if (firstRegular != null && t.compareTo(firstRegular) < 0) {
      return true;
    }
    return initCompleted != null && last.completionTime() != null && last.completionTime().compareTo(initCompleted) < 0;
  }

  /**
   * Whether MDT data written at instant {@code t} may be read (rules in the class comment, without
   * the log-compaction case). Table-version-6 MDTs also name internal deltacommits with a 3-digit
   * suffix after a 17-digit instant (from source, not in any fixture); those count as the MDT's own.
   */
  public boolean isValidInstant(String t) {
    return isValidBlock(t, false);
  }

  /** {@link BlockValidity#isValid} with this table's MDT and data timelines. */
  private boolean isValidBlock(String t, boolean logCompacted) {
    if (t == null || !visibility.isCommitted(t)) {
      return false;
    }
    Instant mdtInstant = timeline.findCompleted(t);
    String mdtAction = mdtInstant == null ? Instant.DELTA_COMMIT : mdtInstant.action(); // archived: a deltacommit
    BlockValidity.DataState data = dataTimeline.containsCompleted(t)
      ? BlockValidity.DataState.COMPLETED
      : dataTimeline.find(t) != null
        ? BlockValidity.DataState.PENDING
        : BlockValidity.DataState.ABSENT;
    return BlockValidity.isValid(t, logCompacted, mdtAction, data, firstDataInstant);
  }

  /** The file system the table is read through. */
  public FileSystem fileSystem() {
    return fs;
  }

  // ---- file slices ----

  /** The latest merged file slice of each file group of an MDT partition, by file id. */
  public synchronized List<FileSlice> latestSlices(String mdtPartition) {
    return partition(mdtPartition).slices;
  }

  // ---- record access ----

  /** Merged, present records of exactly these keys in an MDT partition, by key (sorted). */
  public synchronized Map<String, MetadataRecord> lookup(String mdtPartition, Collection<String> keys) {
    PartitionReader p = partition(mdtPartition);
    Map<String, MetadataRecord> out = new TreeMap<>();
    if (keys.isEmpty()) {
      return out;
    }
    p.route(keys).forEach((position, sliceKeys) -> {
      Map<String, MetadataRecord> merged = new HashMap<>();
      opened(p, position).collectKeys(sliceKeys, merged);
      SliceReader.keepPresent(merged, out);
    });
    return out;
  }

  /** The merged, present record of one key, or null. */
  public MetadataRecord lookup(String mdtPartition, String key) {
    return lookup(mdtPartition, List.of(key)).get(key);
  }

  /** Merged, present records whose key starts with any of the prefixes, by key (sorted). */
  public synchronized Map<String, MetadataRecord> scanPrefixes(String mdtPartition, Collection<String> prefixes) {
    PartitionReader p = partition(mdtPartition);
    Map<String, MetadataRecord> out = new TreeMap<>();
    if (prefixes.isEmpty()) {
      return out;
    }
    List<String> sorted = new ArrayList<>(new TreeSet<>(prefixes));
    for (int position = 0; position < p.slices.size(); position++) {
      Map<String, MetadataRecord> merged = new HashMap<>();
      opened(p, position).collectPrefixes(sorted, merged);
      SliceReader.keepPresent(merged, out);
    }
    return out;
  }

  /** Every merged, present record of an MDT partition, by key (sorted). */
  public Map<String, MetadataRecord> scanAll(String mdtPartition) {
    return scanPrefixes(mdtPartition, List.of(""));
  }

  // ---- column and partition statistics ----

  /**
   * Column statistics of the files of one data partition ("" when non-partitioned): file name →
   * column → stats, for the requested columns, via prefix scans of {@code column_stats}. Empty
   * when the table has no completed column_stats partition. Files without stats are simply absent.
   */
  public Map<String, Map<String, ColumnStat>> columnStats(String partition, Collection<String> columns) {
    Map<String, Map<String, ColumnStat>> out = new TreeMap<>();
    if (!hasPartition(COLUMN_STATS) || columns.isEmpty()) {
      return out;
    }
    List<String> prefixes = new ArrayList<>();
    for (String column : columns) {
      prefixes.add(MetadataKeys.columnStatsPrefix(column, partition));
    }
    for (MetadataRecord r : scanPrefixes(COLUMN_STATS, prefixes).values()) {
      ColumnStat stat = r.columnStat();
      if (stat != null && stat.fileName() != null && stat.columnName() != null) {
        out.computeIfAbsent(stat.fileName(), k -> new TreeMap<>()).put(stat.columnName(), stat);
      }
    }
    return out;
  }

  /**
   * Partition-level statistics: data partition → column → stats, for the requested partitions
   * and columns ({@code partition_stats}); empty when the table has no such partition.
   */
  public Map<String, Map<String, ColumnStat>> partitionStats(
    Collection<String> dataPartitions,
    Collection<String> columns
  ) {
    Map<String, Map<String, ColumnStat>> out = new TreeMap<>();
    if (!hasPartition(PARTITION_STATS)) {
      return out;
    }
    Map<String, String[]> keys = new HashMap<>();
    for (String partition : dataPartitions) {
      for (String column : columns) {
        keys.put(MetadataKeys.partitionStatsKey(column, partition), new String[] { partition, column });
      }
    }
    lookup(PARTITION_STATS, keys.keySet()).forEach((key, r) -> {
      String[] pc = keys.get(key);
      if (r.columnStat() != null) {
        out.computeIfAbsent(pc[0], k -> new TreeMap<>()).put(pc[1], r.columnStat());
      }
    });
    return out;
  }

  // ---- loading ----

  /** Opens every slice of an MDT partition now. */
  private synchronized void openAll(String mdtPartition) {
    PartitionReader p = partition(mdtPartition);
    for (int position = 0; position < p.slices.size(); position++) {
      opened(p, position);
    }
  }

  private PartitionReader partition(String mdtPartition) {
    if (closed) {
      throw new IllegalStateException("metadata table " + path + " is closed");
    }
    PartitionReader p = partitions.get(mdtPartition);
    if (p == null) {
      p = loadPartition(mdtPartition);
      partitions.put(mdtPartition, p);
    }
    return p;
  }

  private PartitionReader loadPartition(String mdtPartition) {
    Path dir = new Path(path, mdtPartition);
    List<FileEntry> entries = new ArrayList<>();
    Map<String, FileStatus> listed = new HashMap<>();
    try {
      for (FileStatus status : fs.listStatus(dir)) {
        if (status.isFile()) {
          entries.add(new FileEntry(status.getPath().getName(), status.getLen()));
          listed.put(status.getPath().getName(), status);
        }
      }
    } catch (FileNotFoundException e) {
      LOG.warn("Metadata table partition directory {} does not exist", dir);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot list metadata table partition " + dir + ": " + e.getMessage(), e);
    }
    FileSystemView view = new FileSystemView(timeline, config, Map.of(mdtPartition, entries));
    List<FileSlice> slices = view.latestFileSlices(mdtPartition, null);
    LOG.debug("Metadata table partition {}: {} file slices", mdtPartition, slices.size());
    return new PartitionReader(mdtPartition, dir, slices, listed);
  }

  /** The opened slice at {@code position} of a partition, opened on first use (a lookup opens only its slices). */
  private SliceReader opened(PartitionReader p, int position) {
    SliceReader s = p.opened[position];
    if (s == null) {
      s = SliceReader.openChecked(
        fs,
        p.dir,
        p.slices.get(position),
        p.listed,
        this::isValidBlock,
        logNamesWriter(),
        decoders
      );
      p.opened[position] = s;
    }
    return s;
  }

  /**
   * The latest slices of an MDT partition and this table's block rule, for readers elsewhere (executors):
   * they read exactly what {@link #lookup} reads here. Nothing is opened.
   */
  public synchronized PartitionSlices partitionSlices(String mdtPartition) {
    PartitionReader p = partition(mdtPartition);
    List<FileSlice> slices = new ArrayList<>();
    if (p.byIndex != null) {
      for (int position : p.byIndex) {
        slices.add(p.slices.get(position));
      }
    } else {
      slices.addAll(p.slices);
    }
    return new PartitionSlices(p.dir, slices, p.byIndex != null && !slices.isEmpty(), validity(), logNamesWriter());
  }

  /** Whether a log file's name gives the instant that wrote it (timeline layout 2), not its slice's base instant. */
  private boolean logNamesWriter() {
    return config.timelineLayoutVersion() >= 2;
  }

  /** {@link #isValidBlock} fixed now, for every instant either timeline knows or a rollback names. */
  private InstantValidity validity() {
    Set<String> instants = new HashSet<>(timeline.rolledBackInstants());
    timeline.all().forEach(i -> instants.add(i.requestedTime()));
    dataTimeline.all().forEach(i -> instants.add(i.requestedTime()));
    Map<String, Byte> known = new HashMap<>();
    for (String t : instants) {
      int bits =
        (isValidBlock(t, false) ? InstantValidity.PLAIN : 0) |
        (isValidBlock(t, true) ? InstantValidity.LOG_COMPACTED : 0);
      known.put(t, (byte) bits);
    }
    List<Instant> commits = timeline.completedCommits();
    String firstCommit = commits.isEmpty() ? null : commits.get(0).requestedTime();
    return new InstantValidity(known, firstCommit, firstDataInstant);
  }

  @Override
  public synchronized void close() {
    if (closed) {
      return;
    }
    closed = true;
    partitions.values().forEach(PartitionReader::close);
    partitions.clear();
  }

  @Override
  public String toString() {
    return "MetadataTable(" + path + ")";
  }
}
