package io.hudimeta.spark;

import org.apache.spark.sql.connector.read.InputPartition;

/** One file slice to read: a base file (may be absent) and its log files, oldest first. */
final class SliceSplit implements InputPartition {

  final String partitionPath;
  final String fileId;
  final String baseFile;
  final long baseFileSize;
  final String[] logFiles;

  SliceSplit(String partitionPath, String fileId, String baseFile, long baseFileSize, String[] logFiles) {
    this.partitionPath = partitionPath;
    this.fileId = fileId;
    this.baseFile = baseFile;
    this.baseFileSize = baseFileSize;
    this.logFiles = logFiles;
  }

  /** The slice without its base file: what a log compaction merges. */
  SliceSplit logsOnly() {
    return new SliceSplit(partitionPath, fileId, null, -1, logFiles);
  }

  boolean hasLogs() {
    return logFiles.length > 0;
  }
}
