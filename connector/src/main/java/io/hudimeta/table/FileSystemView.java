package io.hudimeta.table;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;

/**
 * File groups and slices of a table as of an instant, built from the timeline and a file listing.
 * Slicing rules are documented on {@link FileGroup}, visibility rules on {@link Visibility}; file groups
 * replaced by a committed replacecommit (insert_overwrite, clustering) are left out.
 */
public final class FileSystemView {

  private static final Set<String> BASE_FORMATS = Set.of("parquet", "orc", "hfile", "lance");

  private final Timeline timeline;
  private final TableConfig config;
  private final Map<String, List<FileEntry>> listing;
  private final Map<String, Map<String, GroupFiles>> parsed = new ConcurrentHashMap<>();
  private final boolean multipleFormats; // asked for every file: read from the config once
  private final String baseExtension;

  /** @param listing partition path ("" when non-partitioned) to the files in it */
  public FileSystemView(Timeline timeline, TableConfig config, Map<String, List<FileEntry>> listing) {
    this.timeline = timeline;
    this.config = config;
    this.listing = new TreeMap<>(listing);
    this.multipleFormats = config.multipleBaseFileFormats();
    this.baseExtension = config.baseFileFormat().toLowerCase();
  }

  /** A view over every partition the listing knows. */
  public static FileSystemView of(Timeline timeline, TableConfig config, FileListing listing) {
    return of(timeline, config, listing, listing.partitions());
  }

  /** A view over the given partitions only (partition pruning before listing files). */
  public static FileSystemView of(
    Timeline timeline,
    TableConfig config,
    FileListing listing,
    Collection<String> partitions
  ) {
    return new FileSystemView(timeline, config, listing.files(partitions));
  }

  /** Config, timeline and storage listing of the table at {@code basePath}, in one call. */
  public static FileSystemView load(FileSystem fs, Path basePath) {
    TableConfig config = TableConfig.load(fs, basePath);
    Timeline timeline = Timeline.load(fs, basePath, config);
    return of(timeline, config, StorageListing.list(fs, basePath));
  }

  public Timeline timeline() {
    return timeline;
  }

  public TableConfig config() {
    return config;
  }

  /** Partition paths of the listing, sorted. */
  public List<String> allPartitions() {
    return new ArrayList<>(listing.keySet());
  }

  /**
   * File groups of a partition as of {@code asOf} (null = latest) that are not replaced and have at
   * least one committed slice, by file id.
   */
  public List<FileGroup> fileGroups(String partition, String asOf) {
    Visibility visibility = timeline.visibility(asOf);
    List<FileGroup> groups = new ArrayList<>();
    groupFiles(partition).forEach((fileId, files) -> {
      FileGroupId id = new FileGroupId(partition, fileId);
      if (!visibility.isReplaced(id)) {
        FileGroup group = FileGroup.build(id, files.bases, files.logs, visibility, timeline.layoutVersion());
        if (!group.slices().isEmpty()) {
          groups.add(group);
        }
      }
    });
    return groups;
  }

  /** The slice to read per file group of a partition, as of {@code asOf} (null = latest), by file id. */
  public List<FileSlice> latestFileSlices(String partition, String asOf) {
    List<FileSlice> slices = new ArrayList<>();
    for (FileGroup group : fileGroups(partition, asOf)) {
      FileSlice slice = group.latestMergedSlice();
      if (slice != null) {
        slices.add(slice);
      }
    }
    return slices;
  }

  /** {@link #latestFileSlices(String, String)} over every partition. */
  public List<FileSlice> latestFileSlices(String asOf) {
    List<FileSlice> slices = new ArrayList<>();
    for (String partition : allPartitions()) {
      slices.addAll(latestFileSlices(partition, asOf));
    }
    return slices;
  }

  /** Base and (non-CDC) log files of a partition grouped by file id; parsed once. */
  private Map<String, GroupFiles> groupFiles(String partition) {
    return parsed.computeIfAbsent(partition, p -> {
      Map<String, GroupFiles> groups = new TreeMap<>();
      for (FileEntry entry : listing.getOrDefault(p, List.of())) {
        BaseFile base = FileNames.parseBaseFile(entry.name(), entry.size());
        if (base != null && isBaseFormat(base.extension())) {
          groups.computeIfAbsent(base.fileId(), k -> new GroupFiles()).bases.add(base);
          continue;
        }
        LogFile log = FileNames.parseLogFile(entry.name(), entry.size());
        if (log != null && !log.isCdc()) {
          groups.computeIfAbsent(log.fileId(), k -> new GroupFiles()).logs.add(log);
        }
      }
      return groups;
    });
  }

  private boolean isBaseFormat(String extension) {
    String ext = extension.toLowerCase();
    return multipleFormats ? BASE_FORMATS.contains(ext) : ext.equals(baseExtension);
  }

  private static final class GroupFiles {

    final List<BaseFile> bases = new ArrayList<>();
    final List<LogFile> logs = new ArrayList<>();
  }
}
