package io.hudimeta.view;

import com.fasterxml.jackson.databind.JsonNode;
import io.hudimeta.metadata.MetadataFileListing;
import io.hudimeta.metadata.MetadataTable;
import io.hudimeta.table.BaseFile;
import io.hudimeta.table.CommitMetadata;
import io.hudimeta.table.CompactionOperation;
import io.hudimeta.table.FileEntry;
import io.hudimeta.table.FileGroupId;
import io.hudimeta.table.FileListing;
import io.hudimeta.table.FileSlice;
import io.hudimeta.table.FileSystemView;
import io.hudimeta.table.Instant;
import io.hudimeta.table.StorageListing;
import io.hudimeta.table.TableConfig;
import io.hudimeta.table.Timeline;
import java.io.Closeable;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Consumer;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;

/**
 * The file-system view of one table kept in memory and synced incrementally (Apache Hudi RFC-03): the
 * files of the partitions asked for so far, loaded once from the metadata table's {@code files}
 * partition when it is in sync (else from a listing of just those partitions), then kept current by
 * applying the metadata of each instant that completes (files added by commits, deltacommits,
 * replacecommits, compactions and clustering; files deleted by cleans and rollbacks). Replaced file
 * groups, pending compactions and rolled-back instants come from the synced {@link Timeline}, which
 * decodes only instant files it has not seen. The view is rebuilt only when the timeline shows what
 * cannot be applied: a completed instant gone (archival, restore), rewritten or moved back, a restore,
 * another timeline layout.
 *
 * <p>So after the first build a sync costs one listing of the timeline directory, one read of
 * hoodie.properties and one read per new instant, whatever the table's size and history; a caller that
 * knows the timeline's hash ({@link #syncIfStale}) skips even that when nothing changed. Views handed
 * out ({@link #view}) are immutable snapshots: a later sync does not change them. Thread-safe.
 */
public final class SyncedView implements Closeable {

  private final FileSystem fs;
  private final Path basePath;
  private final ViewStorageConfig storage;
  private final PartitionFileStore files;
  private TableConfig config;
  private Timeline timeline;
  private String hash;
  private List<String> partitions; // every partition, once asked; kept current with the files
  private String source = "none"; // where the last partitions were loaded from
  private MetadataLease.Shared metadata; // the metadata table of this state, opened on first use
  private String metadataState; // the state it was opened for
  private final Map<String, Long> counters = new LinkedHashMap<>();

  SyncedView(FileSystem fs, Path basePath, ViewStorageConfig storage) {
    this.fs = fs;
    this.basePath = basePath;
    this.storage = storage;
    this.files = storage.newStore();
    for (String c : List.of("builds", "syncs", "current", "instantsApplied", "partitionsLoaded", "loadMicros")) {
      counters.put(c, 0L);
    }
  }

  // ---- syncing ----

  /** Brings the view to the table's timeline now, applying new instants or rebuilding. */
  public synchronized SyncedView sync() {
    long start = System.nanoTime();
    TableConfig nextConfig = TableConfig.load(fs, basePath);
    Timeline next = Timeline.load(fs, basePath, nextConfig, timeline);
    String rebuild = timeline == null ? "first build" : cannotApply(nextConfig, next);
    if (rebuild != null) {
      files.clear();
      partitions = null;
      count("builds");
    } else {
      apply(next);
      count("syncs");
    }
    config = nextConfig;
    timeline = next;
    hash = next.hash();
    if (metadata != null && (rebuild != null || !state(config, hash).equals(metadataState) || metadataMoved())) {
      metadata.retire();
      metadata = null;
    }
    counters.put("lastSyncMicros", (System.nanoTime() - start) / 1000);
    return this;
  }

  /**
   * Syncs unless a client's last instant and timeline hash equal the view's: then the view is current
   * and no storage call is made.
   */
  public synchronized SyncedView syncIfStale(String lastInstant, String timelineHash) {
    if (
      timeline != null &&
      timelineHash != null &&
      timelineHash.equals(hash) &&
      Objects.equals(lastInstant, lastInstant())
    ) {
      count("current");
      return this;
    }
    return sync();
  }

  /** Why {@code next} cannot be applied to the view incrementally, or null when it can. */
  private String cannotApply(TableConfig nextConfig, Timeline next) {
    if (nextConfig.timelineLayoutVersion() != config.timelineLayoutVersion()) {
      return "timeline layout changed";
    }
    boolean mdtNow = nextConfig.metadataPartitions().contains(MetadataTable.FILES);
    if (
      storage.metadataEnabled() &&
      source.equals("storage") &&
      mdtNow &&
      !config.metadataPartitions().contains(MetadataTable.FILES)
    ) {
      return "the metadata table became available"; // list from it from now on (and say so)
    }
    for (Instant old : timeline.all()) {
      Instant now = next.find(old.requestedTime());
      if (now == null) {
        if (old.isCompleted()) {
          return "instant " + old.requestedTime() + " left the active timeline";
        }
      } else if (
        now.state().compareTo(old.state()) < 0 || (old.isCompleted() && !now.fileName().equals(old.fileName()))
      ) {
        return "instant " + old.requestedTime() + " was rewritten";
      } else if (now.action().equals(Instant.RESTORE) && now.state() != old.state()) {
        return "restore " + now.requestedTime();
      }
    }
    for (Instant now : next.all()) {
      if (now.action().equals(Instant.RESTORE) && timeline.find(now.requestedTime()) == null) {
        return "restore " + now.requestedTime();
      }
    }
    return null;
  }

  /** Applies the instants completed since the last sync, in the order they completed. */
  private void apply(Timeline next) {
    List<Instant> done = new ArrayList<>();
    for (Instant i : next.completed()) {
      Instant before = timeline.find(i.requestedTime());
      if (before == null || !before.isCompleted()) {
        done.add(i);
      }
    }
    done.sort(Comparator.comparing((Instant i) -> i.completionTime() == null ? i.requestedTime() : i.completionTime()));
    for (Instant i : done) {
      FileChanges changes = FileChanges.of(next, i);
      changes.added.forEach((p, added) -> update(p, added, Set.of()));
      changes.deleted.forEach((p, deleted) -> update(p, Map.of(), deleted));
      if (partitions != null) {
        Set<String> all = new TreeSet<>(partitions);
        all.addAll(changes.added.keySet());
        all.removeAll(changes.partitionsDeleted);
        partitions = new ArrayList<>(all);
      }
      changes.partitionsDeleted.forEach(p -> files.put(p, List.of()));
      count("instantsApplied");
    }
  }

  private void update(String partition, Map<String, Long> added, Set<String> deleted) {
    List<FileEntry> current = files.get(partition);
    if (current == null) {
      return; // not loaded: loading it later reads the state after this instant
    }
    Map<String, FileEntry> byName = new LinkedHashMap<>();
    current.forEach(f -> byName.put(f.name(), f));
    added.forEach((name, size) -> byName.put(name, new FileEntry(name, size)));
    deleted.forEach(byName::remove);
    files.put(partition, new ArrayList<>(byName.values()));
  }

  // ---- loading ----

  private void ensureLoaded(Collection<String> asked) {
    List<String> missing = new ArrayList<>();
    for (String p : new TreeSet<>(asked)) {
      if (!files.contains(p)) {
        missing.add(p);
      }
    }
    if (missing.isEmpty()) {
      return;
    }
    long start = System.nanoTime();
    withListing(listing -> {
      listing.files(missing).forEach(files::put);
      counters.merge("partitionsLoaded", (long) missing.size(), Long::sum);
    });
    counters.merge("loadMicros", (System.nanoTime() - start) / 1000, Long::sum);
  }

  /** Runs {@code use} over the metadata table's listing when it is enabled and in sync, else over storage. */
  private void withListing(Consumer<FileListing> use) {
    MetadataFileListing mdt = storage.metadataEnabled() ? shared().listing() : null;
    source = mdt != null ? "metadata" : "storage";
    use.accept(mdt != null ? mdt : StorageListing.lazy(fs, basePath));
  }

  /**
   * The metadata table of this state, opened once per state; tried again while it is absent, behind or found
   * damaged (each query then lists storage and warns, as before it was shared).
   */
  private MetadataLease.Shared shared() {
    if (metadata != null && (metadata.listing() == null || metadata.listing().damaged())) {
      metadata.retire();
      metadata = null;
    }
    if (metadata == null) {
      metadata = new MetadataLease.Shared(MetadataFileListing.openInSync(fs, basePath, config, timeline).orElse(null));
      metadataState = state(config, hash);
    }
    return metadata;
  }

  /**
   * A lease on the metadata table in sync with {@code asOf} (a timeline this view handed out): the view's own
   * when the view is still at that state, else one opened for the caller alone; {@link MetadataLease#NONE}
   * when the metadata table is off, absent or behind.
   */
  public synchronized MetadataLease metadata(TableConfig asOfConfig, Timeline asOf) {
    if (!storage.metadataEnabled()) {
      return MetadataLease.NONE;
    }
    if (timeline != null && state(asOfConfig, asOf.hash()).equals(state(config, hash))) {
      return shared().lease();
    }
    return MetadataLease.own(MetadataTable.openInSync(fs, basePath, asOfConfig, asOf).orElse(null));
  }

  /**
   * Whether the open metadata table's own timeline changed without the data table's (a repair, a rebuild of a
   * partition from another process): one listing of it, only while one is open.
   */
  private boolean metadataMoved() {
    MetadataFileListing listing = metadata.listing();
    if (listing == null) {
      return false;
    }
    MetadataTable mdt = listing.metadataTable();
    return !mdt.timeline().sameFilesAs(Timeline.load(fs, mdt.path(), mdt.config()));
  }

  /** What an opened metadata table depends on: the instants and the metadata partitions the table marks. */
  private static String state(TableConfig config, String timelineHash) {
    return timelineHash + "|" + config.metadataPartitions() + "|" + config.inflightMetadataPartitions();
  }

  // ---- queries (each on the state of the last sync) ----

  /** Every partition path, sorted ("" for a non-partitioned table); a storage listing walks the table once. */
  public synchronized List<String> partitions() {
    if (partitions == null) {
      long start = System.nanoTime();
      withListing(listing -> {
        List<String> all = new ArrayList<>(listing.partitions());
        if (listing instanceof StorageListing walked) {
          walked.all().forEach(files::put); // the walk listed every file already
        }
        partitions = all;
      });
      counters.merge("loadMicros", (System.nanoTime() - start) / 1000, Long::sum);
    }
    return List.copyOf(partitions);
  }

  /** Files of the given partitions (loaded first where needed); unknown partitions have none. */
  public synchronized Map<String, List<FileEntry>> files(Collection<String> asked) {
    ensureLoaded(asked);
    Map<String, List<FileEntry>> out = new LinkedHashMap<>();
    for (String p : asked) {
      out.put(p, files.get(p));
    }
    return out;
  }

  /** An immutable file-system view of these partitions as of the last sync. */
  public FileSystemView view(Collection<String> asked) {
    Map<String, List<FileEntry>> listed;
    Timeline tl;
    TableConfig cfg;
    synchronized (this) {
      listed = files(asked);
      tl = timeline;
      cfg = config;
    }
    return new FileSystemView(tl, cfg, listed);
  }

  /** The latest slice of each file group of a partition, as of an instant (null = latest), by file id. */
  public List<FileSlice> latestFileSlices(String partition, String asOf) {
    return view(List.of(partition)).latestFileSlices(partition, asOf);
  }

  /** The base files of {@link #latestFileSlices} (slices with only log files have none). */
  public List<BaseFile> latestBaseFiles(String partition, String asOf) {
    List<BaseFile> out = new ArrayList<>();
    for (FileSlice s : latestFileSlices(partition, asOf)) {
      if (s.baseFile() != null) {
        out.add(s.baseFile());
      }
    }
    return out;
  }

  public synchronized List<CompactionOperation> pendingCompactions() {
    return timeline.pendingCompactions();
  }

  /** File groups replaced by replacecommits requested at or before {@code asOf} (null = all). */
  public synchronized Map<FileGroupId, String> replacedFileGroups(String asOf) {
    return timeline.replacedFileGroups(asOf);
  }

  public synchronized Timeline timeline() {
    return timeline;
  }

  public synchronized TableConfig config() {
    return config;
  }

  /** Requested time of the latest completed commit-like instant, null on an empty timeline. */
  public synchronized String lastInstant() {
    Instant last = timeline == null ? null : timeline.lastCompleted();
    return last == null ? null : last.requestedTime();
  }

  public synchronized String timelineHash() {
    return hash;
  }

  /** "metadata" or "storage": where the partitions were last loaded from ("none" before any). */
  public synchronized String source() {
    return source;
  }

  /**
   * Counters since the view was made: builds (first and rebuilds), syncs (incremental), current (sync
   * requests the client's hash showed needless), instantsApplied, partitionsLoaded; loadMicros (time spent
   * loading partitions) and lastSyncMicros (the last sync), for benchmarks.
   */
  public synchronized Map<String, Long> counters() {
    return new LinkedHashMap<>(counters);
  }

  private void count(String counter) {
    counters.merge(counter, 1L, Long::sum);
  }

  @Override
  public synchronized void close() {
    files.close();
    if (metadata != null) {
      metadata.retire();
      metadata = null;
    }
  }

  /** What one completed instant did to the files: added (name -> size) and deleted names, per partition. */
  private static final class FileChanges {

    final Map<String, Map<String, Long>> added = new HashMap<>();
    final Map<String, Set<String>> deleted = new HashMap<>();
    final Set<String> partitionsDeleted = new HashSet<>();

    static FileChanges of(Timeline timeline, Instant instant) {
      FileChanges c = new FileChanges();
      if (instant.isCommitLike()) {
        for (CommitMetadata.WriteStat s : timeline.commitMetadata(instant).allWriteStats()) {
          if (s.fileName() != null && s.partitionPath() != null) {
            c.added
              .computeIfAbsent(s.partitionPath(), p -> new LinkedHashMap<>())
              .put(s.fileName(), s.fileSizeInBytes());
          }
        }
      } else if (instant.action().equals(Instant.CLEAN) || instant.action().equals(Instant.ROLLBACK)) {
        timeline
          .metadata(instant)
          .path("partitionMetadata")
          .fields()
          .forEachRemaining(e -> c.partition(e.getKey(), e.getValue()));
      }
      return c;
    }

    /** HoodieCleanPartitionMetadata / HoodieRollbackPartitionMetadata of one partition. */
    private void partition(String partition, JsonNode meta) {
      String p = partition.equals(".") ? "" : partition;
      meta
        .path("successDeleteFiles")
        .forEach(f -> deleted.computeIfAbsent(p, k -> new HashSet<>()).add(name(f.asText())));
      // log files a rollback appended a command block to (layout 1) stay, with a new size
      if (meta.path("rollbackLogFiles").isObject()) {
        meta
          .path("rollbackLogFiles")
          .fields()
          .forEachRemaining(e ->
            added.computeIfAbsent(p, k -> new LinkedHashMap<>()).put(name(e.getKey()), e.getValue().asLong(-1))
          );
      }
      if (meta.path("isPartitionDeleted").asBoolean(false)) {
        partitionsDeleted.add(p);
      }
    }

    private static String name(String path) {
      return path.substring(path.lastIndexOf('/') + 1);
    }
  }
}
