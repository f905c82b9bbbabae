package io.hudimeta.metadata;

import io.hudimeta.table.FileEntry;
import io.hudimeta.table.FileListing;
import io.hudimeta.table.StorageListing;
import io.hudimeta.table.TableConfig;
import io.hudimeta.table.Timeline;
import java.io.Closeable;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;

/**
 * A {@link FileListing} answered from the metadata table's {@code files} partition, without listing a
 * data-table directory (unless that partition turns out damaged, below): partitions from the {@code __all_partitions__} record, files of
 * the requested partitions by one batched key lookup. A non-partitioned table's partition is
 * {@code "."} in the metadata table and {@code ""} here.
 *
 * <p>Callers should check {@link #inSync()} first and list storage when it is false. A {@code files} file
 * found damaged only now, past {@link MetadataTable#open} (a data block of an HFile failing its checksum),
 * makes this listing list storage from then on, with one warning ({@link MetadataDamage}): never a listing
 * that lacks the damaged file's records.
 */
public final class MetadataFileListing implements FileListing, Closeable {

  private final MetadataTable mdt;
  private List<String> partitions;
  /** Storage, once the {@code files} partition turned out damaged; null before. */
  private FileListing storage;

  public MetadataFileListing(MetadataTable mdt) {
    this.mdt = mdt;
  }

  /** A listing over the data table's metadata table; empty when {@link MetadataTable#open} is. */
  public static Optional<MetadataFileListing> open(
    FileSystem fs,
    Path dataBasePath,
    TableConfig dataConfig,
    Timeline dataTimeline
  ) {
    return MetadataTable.open(fs, dataBasePath, dataConfig, dataTimeline).map(MetadataFileListing::new);
  }

  /**
   * The listing to prefer over listing storage: the metadata table's when it opens and is in sync
   * with the data timeline, else empty (an opened one that is behind is closed again).
   */
  public static Optional<MetadataFileListing> openInSync(
    FileSystem fs,
    Path dataBasePath,
    TableConfig dataConfig,
    Timeline dataTimeline
  ) {
    return MetadataTable.openInSync(fs, dataBasePath, dataConfig, dataTimeline).map(MetadataFileListing::new);
  }

  public MetadataTable metadataTable() {
    return mdt;
  }

  /** Whether the {@code files} partition turned out damaged: this listing lists storage now. */
  public synchronized boolean damaged() {
    return storage != null;
  }

  /** See {@link MetadataTable#inSync()}. */
  public boolean inSync() {
    return mdt.inSync();
  }

  @Override
  public synchronized List<String> partitions() {
    if (partitions == null) {
      List<String> out = new ArrayList<>();
      Map<String, MetadataRecord> found = lookup(List.of(MetadataKeys.ALL_PARTITIONS_KEY));
      if (found == null) {
        return storage.partitions();
      }
      MetadataRecord all = found.get(MetadataKeys.ALL_PARTITIONS_KEY);
      if (all != null) {
        for (String id : all.liveFiles().keySet()) {
          out.add(MetadataKeys.partitionPath(id));
        }
      }
      Collections.sort(out);
      partitions = Collections.unmodifiableList(out);
    }
    return partitions;
  }

  @Override
  public synchronized Map<String, List<FileEntry>> files(Collection<String> partitionPaths) {
    Map<String, String> byId = new LinkedHashMap<>();
    for (String p : partitionPaths) {
      byId.put(MetadataKeys.partitionId(p), p);
    }
    Map<String, MetadataRecord> records = lookup(byId.keySet());
    if (records == null) {
      return storage.files(partitionPaths);
    }
    Map<String, List<FileEntry>> out = new LinkedHashMap<>();
    byId.forEach((id, partition) -> {
      List<FileEntry> entries = new ArrayList<>();
      MetadataRecord r = records.get(id);
      if (r != null) {
        r.liveFiles().forEach((name, size) -> entries.add(new FileEntry(name, size)));
      }
      out.put(partition, Collections.unmodifiableList(entries));
    });
    return out;
  }

  /**
   * The {@code files} records of these keys; null once the partition turned out damaged, then storage is
   * listed from now on (other failures are rethrown).
   */
  private Map<String, MetadataRecord> lookup(Collection<String> keys) {
    if (storage != null) {
      return null;
    }
    try {
      return mdt.lookup(MetadataTable.FILES, keys);
    } catch (RuntimeException e) {
      MetadataDamage damage = MetadataDamage.in(e);
      if (damage == null) {
        throw e;
      }
      damage.report("Listing storage for " + mdt.dataBasePath() + " instead of its metadata table");
      storage = StorageListing.lazy(mdt.fileSystem(), mdt.dataBasePath());
      return null;
    }
  }

  /** Every partition with its files. */
  public Map<String, List<FileEntry>> all() {
    return files(partitions());
  }

  @Override
  public void close() {
    mdt.close();
  }
}
