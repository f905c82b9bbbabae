package io.hudimeta.spark.plan;

import io.hudimeta.spark.pruning.PrunableSlice;
import org.apache.spark.sql.connector.read.InputPartition;

/** One file slice to read: a base file (may be absent) and its log files, oldest first. */
public final class SliceSplit implements InputPartition, PrunableSlice {

  private final String partitionPath;
  private final String fileId;
  private final String baseFile;
  private final long baseFileSize;
  private final String[] logFiles;

  SliceSplit(String partitionPath, String fileId, String baseFile, long baseFileSize, String[] logFiles) {
    this.partitionPath = partitionPath;
    this.fileId = fileId;
    this.baseFile = baseFile;
    this.baseFileSize = baseFileSize;
    this.logFiles = logFiles;
  }

  @Override
  public String partitionPath() {
    return partitionPath;
  }

  @Override
  public String fileId() {
    return fileId;
  }

  /** The base file's path, or null. */
  @Override
  public String baseFile() {
    return baseFile;
  }

  public long baseFileSize() {
    return baseFileSize;
  }

  /** The log files' paths, oldest first. */
  @Override
  public String[] logFiles() {
    return logFiles;
  }

  /** The slice without its base file: what a log compaction merges. */
  SliceSplit logsOnly() {
    return new SliceSplit(partitionPath, fileId, null, -1, logFiles);
  }

  public boolean hasLogs() {
    return logFiles.length > 0;
  }
}
