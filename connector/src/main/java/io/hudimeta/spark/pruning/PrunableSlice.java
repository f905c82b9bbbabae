package io.hudimeta.spark.pruning;

/**
 * A file slice as pruning judges it: its file group and the files a read of it opens (the planner's split;
 * pruning keeps or drops them and never reads them).
 */
public interface PrunableSlice {
  String partitionPath();

  String fileId();

  /** The base file's path, or null. */
  String baseFile();

  /** The log files' paths, none when the query reads base files only. */
  String[] logFiles();
}
