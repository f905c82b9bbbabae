package io.hudimeta.table;

import java.util.Collection;
import java.util.List;
import java.util.Map;

/**
 * Source of partition and file names for a {@link FileSystemView}: storage listing
 * ({@link StorageListing}) or the metadata table's {@code files} partition. Implementations report
 * I/O failures as {@link java.io.UncheckedIOException} or {@link HudiTableException}.
 */
public interface FileListing {
  /** Relative partition paths, "" for a non-partitioned table. */
  List<String> partitions();

  /** Files of the given partitions (unknown partitions map to an empty list). */
  Map<String, List<FileEntry>> files(Collection<String> partitions);
}
