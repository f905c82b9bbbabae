package io.hudimeta.table;

import java.io.Serializable;
import java.util.List;

/**
 * One file-group operation of a compaction plan ({@code <t>.compaction.requested}).
 *
 * @param instantTime     requested time of the compaction
 * @param baseInstantTime base instant of the slice being compacted
 * @param dataFileName    base file of that slice, or null for log-only slices
 * @param deltaFileNames  its log files, as listed in the plan
 */
public record CompactionOperation(
  String instantTime,
  String partitionPath,
  String fileId,
  String baseInstantTime,
  String dataFileName,
  List<String> deltaFileNames
) implements Serializable {
  public FileGroupId fileGroupId() {
    return new FileGroupId(partitionPath, fileId);
  }
}
