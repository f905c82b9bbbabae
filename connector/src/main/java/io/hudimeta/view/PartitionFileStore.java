package io.hudimeta.view;

import io.hudimeta.table.FileEntry;
import java.io.Closeable;
import java.util.List;
import java.util.Set;

/**
 * Where a {@link SyncedView} keeps the files of the partitions it has loaded: in memory
 * ({@link MemoryFileStore}) or, past a memory bound, spilled to local disk ({@link SpillableFileStore},
 * {@code hoodie.filesystem.view.type=SPILLABLE_DISK}). Not thread-safe: the view serialises calls.
 */
public interface PartitionFileStore extends Closeable {
  /** Files of a loaded partition, or null when the partition is not loaded. */
  List<FileEntry> get(String partition);

  /** Loads (or replaces) a partition's files. */
  void put(String partition, List<FileEntry> files);

  boolean contains(String partition);

  /** The loaded partitions. */
  Set<String> partitions();

  /** Forgets every partition (a rebuild). */
  void clear();

  /** Releases what the store holds (memory, local files); the store is not used afterwards. */
  @Override
  void close();
}
