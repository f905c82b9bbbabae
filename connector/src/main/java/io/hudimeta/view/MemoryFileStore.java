package io.hudimeta.view;

import io.hudimeta.table.FileEntry;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** The default store ({@code hoodie.filesystem.view.type=MEMORY}): every loaded partition on the heap. */
public final class MemoryFileStore implements PartitionFileStore {

  private final Map<String, List<FileEntry>> files = new HashMap<>();

  @Override
  public List<FileEntry> get(String partition) {
    return files.get(partition);
  }

  @Override
  public void put(String partition, List<FileEntry> entries) {
    files.put(partition, List.copyOf(entries));
  }

  @Override
  public boolean contains(String partition) {
    return files.containsKey(partition);
  }

  @Override
  public Set<String> partitions() {
    return Set.copyOf(files.keySet());
  }

  @Override
  public void clear() {
    files.clear();
  }

  @Override
  public void close() {
    files.clear();
  }
}
