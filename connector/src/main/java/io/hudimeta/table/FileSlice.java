package io.hudimeta.table;

import java.io.Serializable;
import java.util.List;

/**
 * A base file (optional) and the log files applying on top of it: the unit a reader merges.
 *
 * @param baseInstantTime instant that started the slice (its base file's instant, or a compaction's)
 * @param baseFile        null for log-only slices
 * @param logFiles        in {@link LogFile#ORDER}, oldest first; change-data (CDC) log files are not included
 */
public record FileSlice(
  String partitionPath,
  String fileId,
  String baseInstantTime,
  BaseFile baseFile,
  List<LogFile> logFiles
) implements Serializable {
  public FileGroupId fileGroupId() {
    return new FileGroupId(partitionPath, fileId);
  }

  public boolean isEmpty() {
    return baseFile == null && logFiles.isEmpty();
  }

  /** Path of the base file relative to the table base path, or null. */
  public String baseFilePath() {
    return baseFile == null ? null : relative(baseFile.name());
  }

  private String relative(String name) {
    return partitionPath.isEmpty() ? name : partitionPath + "/" + name;
  }
}
