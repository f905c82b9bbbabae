package io.hudimeta.table;

import java.io.Serializable;

/**
 * A data file named in the write stats of a completed commit.
 *
 * @param instantTime requested time of the commit that wrote it
 * @param fileName    name inside the partition directory
 */
public record WrittenFile(
  String instantTime,
  String partitionPath,
  String fileId,
  String fileName,
  long fileSize
) implements Serializable {}
