package io.hudimeta.metadata;

import io.hudimeta.avro.AvroSchemas;
import io.hudimeta.hfile.Cell;
import io.hudimeta.hfile.CorruptHFileException;
import io.hudimeta.hfile.HFileReader;
import io.hudimeta.log.DeleteRecord;
import io.hudimeta.log.HeaderKey;
import io.hudimeta.log.LogBlock;
import io.hudimeta.log.LogBlockType;
import io.hudimeta.log.LogFileReader;
import io.hudimeta.table.CorruptTableException;
import io.hudimeta.table.FileEntry;
import io.hudimeta.table.FileSlice;
import io.hudimeta.table.FileSystemView;
import io.hudimeta.table.HudiTableException;
import io.hudimeta.table.Instant;
import io.hudimeta.table.LogFile;
import io.hudimeta.table.TableConfig;
import io.hudimeta.table.TableNotFoundException;
import io.hudimeta.table.Timeline;
import io.hudimeta.table.Visibility;
import java.io.Closeable;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericDatumReader;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.io.DecoderFactory;
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
 * <p>Instances keep the opened HFiles and decoded log blocks of the partitions read so far; close
 * them with {@link #close()}. Methods are synchronized: one instance may be shared, calls serialize.
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
  private static final Pattern INDEXED_FILE_ID = Pattern.compile("(.*?)(\\d{4})-\\d+");

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
      table.partition(FILES); // fail here, not in the middle of planning, when it is unreadable
      return Optional.of(table);
    } catch (TableNotFoundException e) {
      LOG.warn(
        "Not using the metadata table of {}: {} has no hoodie.properties ({})",
        dataBasePath,
        mdtPath,
        e.getMessage()
      );
    } catch (RuntimeException e) {
      LOG.warn("Not using the metadata table at {}: it cannot be read", mdtPath, e);
    }
    if (table != null) {
      table.close();
    }
    return Optional.empty();
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

  // ---- file slices ----

  /** The latest merged file slice of each file group of an MDT partition, by file id. */
  public synchronized List<FileSlice> latestSlices(String mdtPartition) {
    List<FileSlice> out = new ArrayList<>();
    for (SliceReader s : partition(mdtPartition).slices) {
      out.add(s.slice);
    }
    return out;
  }

  // ---- record access ----

  /** Merged, present records of exactly these keys in an MDT partition, by key (sorted). */
  public synchronized Map<String, MetadataRecord> lookup(String mdtPartition, Collection<String> keys) {
    PartitionReader p = partition(mdtPartition);
    Map<String, MetadataRecord> out = new TreeMap<>();
    if (keys.isEmpty()) {
      return out;
    }
    Map<SliceReader, List<String>> routed = p.route(keys);
    routed.forEach((slice, sliceKeys) -> {
      Map<String, MetadataRecord> merged = new HashMap<>();
      slice.collectKeys(new TreeSet<>(sliceKeys), merged);
      keepPresent(merged, out);
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
    for (SliceReader slice : p.slices) {
      Map<String, MetadataRecord> merged = new HashMap<>();
      slice.collectPrefixes(sorted, merged);
      keepPresent(merged, out);
    }
    return out;
  }

  /** Every merged, present record of an MDT partition, by key (sorted). */
  public Map<String, MetadataRecord> scanAll(String mdtPartition) {
    return scanPrefixes(mdtPartition, List.of(""));
  }

  private static void keepPresent(Map<String, MetadataRecord> merged, Map<String, MetadataRecord> out) {
    merged.forEach((key, record) -> {
      if (!record.isDeleted()) {
        out.put(key, record);
      }
    });
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
    try {
      for (FileStatus status : fs.listStatus(dir)) {
        if (status.isFile()) {
          entries.add(new FileEntry(status.getPath().getName(), status.getLen()));
        }
      }
    } catch (FileNotFoundException e) {
      LOG.warn("Metadata table partition directory {} does not exist", dir);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot list metadata table partition " + dir + ": " + e.getMessage(), e);
    }
    FileSystemView view = new FileSystemView(timeline, config, Map.of(mdtPartition, entries));
    List<SliceReader> slices = new ArrayList<>();
    try {
      for (FileSlice slice : view.latestFileSlices(mdtPartition, null)) {
        slices.add(openSlice(dir, slice));
      }
    } catch (IOException | RuntimeException e) {
      slices.forEach(SliceReader::close);
      String message = "cannot read metadata table partition " + dir + ": " + e.getMessage();
      if (e instanceof IOException io) {
        throw new UncheckedIOException(message, io);
      }
      // a corrupt HFile names the file; the message adds which MDT partition could not be read
      throw e instanceof CorruptHFileException ? new CorruptTableException(message, e) : (RuntimeException) e;
    }
    LOG.debug("Metadata table partition {}: {} file slices", mdtPartition, slices.size());
    return new PartitionReader(mdtPartition, slices);
  }

  private SliceReader openSlice(Path dir, FileSlice slice) throws IOException {
    HFileReader base = null;
    GenericDatumReader<GenericRecord> baseDecoder = null;
    List<Block> blocks;
    try {
      if (slice.baseFile() != null) {
        Path basePath = new Path(dir, slice.baseFile().name());
        base = HFileReader.open(fs, basePath);
        baseDecoder = decoder(fileInfoSchema(base), basePath.toString());
      }
      blocks = readBlocks(dir, slice);
    } catch (IOException | RuntimeException e) {
      if (base != null) {
        base.close();
      }
      throw e;
    }
    return new SliceReader(slice, base, baseDecoder, blocks);
  }

  /** The usable blocks of a slice's log files, oldest first, rollbacks and log compactions applied. */
  private List<Block> readBlocks(Path dir, FileSlice slice) throws IOException {
    List<Block> kept = new ArrayList<>();
    for (LogFile log : slice.logFiles()) {
      for (LogBlock block : LogFileReader.read(fs, new Path(dir, log.name()))) {
        String instant = block.instantTime();
        switch (block.type()) {
          case COMMAND -> {
            if (block.isRollback()) {
              String target = block.rollbackTargetInstant();
              kept.removeIf(b -> target.equals(b.instant));
            } else {
              LOG.warn("Ignoring unknown command block {}", block);
            }
          }
          case HFILE_DATA, DELETE -> {
            String compacted = block.header(HeaderKey.COMPACTED_BLOCK_TIMES);
            boolean usable = isValidBlock(instant, compacted != null);
            if (!usable) {
              LOG.debug("Skipping {}: instant {} is not valid for readers", block, instant);
              continue;
            }
            if (compacted != null) {
              Set<String> replaced = new HashSet<>(Arrays.asList(compacted.split(",")));
              kept.removeIf(b -> replaced.contains(b.instant));
            }
            kept.add(block.type() == LogBlockType.DELETE ? deleteBlock(block) : dataBlock(block));
          }
          case CORRUPT -> LOG.warn("Skipping corrupt block {}", block);
          default -> throw new HudiTableException(
            "unexpected " +
              block.type() +
              " block in metadata table log " +
              block.source() +
              " (metadata tables hold only HFile data, delete and command blocks)"
          );
        }
      }
    }
    return kept;
  }

  private Block dataBlock(LogBlock block) throws IOException {
    HFileReader hfile = HFileReader.fromBytes(block.hfileContent(), block.toString());
    String schema = block.header(HeaderKey.SCHEMA);
    if (schema == null) {
      schema = fileInfoSchema(hfile);
    }
    return new Block(block.instantTime(), hfile, decoder(schema, block.toString()), null, block.toString());
  }

  private static Block deleteBlock(LogBlock block) {
    Set<String> keys = new HashSet<>();
    for (DeleteRecord d : block.deleteRecords()) {
      if (d.recordKey() != null) {
        keys.add(d.recordKey());
      }
    }
    return new Block(block.instantTime(), null, null, keys, block.toString());
  }

  private static String fileInfoSchema(HFileReader reader) {
    byte[] schema = reader.fileInfo().get("schema");
    if (schema == null) {
      throw new HudiTableException(reader + " has no 'schema' in its file info");
    }
    return new String(schema, StandardCharsets.UTF_8);
  }

  private GenericDatumReader<GenericRecord> decoder(String schemaJson, String where) {
    if (schemaJson == null) {
      throw new HudiTableException(where + " carries no writer schema");
    }
    return decoders.computeIfAbsent(schemaJson, json -> {
      Schema schema = AvroSchemas.parse(json);
      return new GenericDatumReader<>(schema);
    });
  }

  static MetadataRecord decode(Cell cell, GenericDatumReader<GenericRecord> decoder, String where) {
    String key = cell.rowString();
    try {
      GenericRecord record = decoder.read(null, DecoderFactory.get().binaryDecoder(cell.value(), null));
      return MetadataRecord.decode(key, record);
    } catch (IOException | RuntimeException e) {
      throw new HudiTableException("cannot decode metadata record '" + key + "' in " + where + ": " + e, e);
    }
  }

  @Override
  public synchronized void close() {
    if (closed) {
      return;
    }
    closed = true;
    partitions.values().forEach(p -> p.slices.forEach(SliceReader::close));
    partitions.clear();
  }

  @Override
  public String toString() {
    return "MetadataTable(" + path + ")";
  }

  // ---- per-partition state ----

  private static final class PartitionReader {

    final String name;
    final List<SliceReader> slices;
    /** slices by file-group index when keys can be routed by hash (record_index), else null. */
    final SliceReader[] byIndex;

    PartitionReader(String name, List<SliceReader> slices) {
      this.name = name;
      this.slices = Collections.unmodifiableList(slices);
      this.byIndex = name.equals(RECORD_INDEX) ? indexSlices(slices) : null;
    }

    private static SliceReader[] indexSlices(List<SliceReader> slices) {
      SliceReader[] out = new SliceReader[slices.size()];
      for (SliceReader s : slices) {
        Matcher m = INDEXED_FILE_ID.matcher(s.slice.fileId());
        if (!m.matches()) {
          return null;
        }
        int index = Integer.parseInt(m.group(2));
        if (index >= out.length || out[index] != null) {
          return null;
        }
        out[index] = s;
      }
      return out;
    }

    Map<SliceReader, List<String>> route(Collection<String> keys) {
      Map<SliceReader, List<String>> out = new HashMap<>();
      for (String key : keys) {
        if (byIndex != null && byIndex.length > 0) {
          out
            .computeIfAbsent(byIndex[MetadataKeys.fileGroupIndex(key, byIndex.length)], k -> new ArrayList<>())
            .add(key);
        } else {
          for (SliceReader s : slices) {
            out.computeIfAbsent(s, k -> new ArrayList<>()).add(key);
          }
        }
      }
      return out;
    }
  }

  /** One usable log block: an HFile data block (hfile + decoder) or a delete block (deletes). */
  private record Block(
    String instant,
    HFileReader hfile,
    GenericDatumReader<GenericRecord> decoder,
    Set<String> deletes,
    String source
  ) {}

  private static final class SliceReader {

    final FileSlice slice;
    final HFileReader base;
    final GenericDatumReader<GenericRecord> baseDecoder;
    final List<Block> blocks;

    SliceReader(FileSlice slice, HFileReader base, GenericDatumReader<GenericRecord> baseDecoder, List<Block> blocks) {
      this.slice = slice;
      this.base = base;
      this.baseDecoder = baseDecoder;
      this.blocks = blocks;
    }

    void collectKeys(Set<String> keys, Map<String, MetadataRecord> merged) {
      try {
        if (base != null) {
          for (Map.Entry<String, Cell> e : base.getAll(keys).entrySet()) {
            apply(merged, decode(e.getValue(), baseDecoder, base.toString()));
          }
        }
        for (Block b : blocks) {
          if (b.deletes != null) {
            for (String key : keys) {
              if (b.deletes.contains(key)) {
                merged.put(key, MetadataRecord.deletion(key));
              }
            }
          } else {
            for (Map.Entry<String, Cell> e : b.hfile.getAll(keys).entrySet()) {
              apply(merged, decode(e.getValue(), b.decoder, b.source));
            }
          }
        }
      } catch (IOException e) {
        throw new UncheckedIOException(failure(e), e);
      } catch (CorruptHFileException e) {
        throw new CorruptTableException(failure(e), e);
      }
    }

    void collectPrefixes(List<String> prefixes, Map<String, MetadataRecord> merged) {
      try {
        if (base != null) {
          for (Cell c : base.scanPrefixes(prefixes)) {
            apply(merged, decode(c, baseDecoder, base.toString()));
          }
        }
        for (Block b : blocks) {
          if (b.deletes != null) {
            for (String key : b.deletes) {
              if (startsWithAny(key, prefixes)) {
                merged.put(key, MetadataRecord.deletion(key));
              }
            }
          } else {
            for (Cell c : b.hfile.scanPrefixes(prefixes)) {
              apply(merged, decode(c, b.decoder, b.source));
            }
          }
        }
      } catch (IOException e) {
        throw new UncheckedIOException(failure(e), e);
      } catch (CorruptHFileException e) {
        throw new CorruptTableException(failure(e), e);
      }
    }

    private String failure(Exception e) {
      return "cannot read metadata file slice " + slice.fileId() + ": " + e.getMessage();
    }

    private static boolean startsWithAny(String key, List<String> prefixes) {
      for (String p : prefixes) {
        if (key.startsWith(p)) {
          return true;
        }
      }
      return false;
    }

    private static void apply(Map<String, MetadataRecord> merged, MetadataRecord record) {
      merged.merge(record.key(), record, MetadataRecord::combine);
    }

    void close() {
      if (base != null) {
        try {
          base.close();
        } catch (IOException e) {
          LOG.debug("Closing {} failed", base, e);
        }
      }
    }
  }
}
