package io.hudimeta.view;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.hudimeta.table.BaseFile;
import io.hudimeta.table.CompactionOperation;
import io.hudimeta.table.FileGroupId;
import io.hudimeta.table.FileNames;
import io.hudimeta.table.FileSlice;
import io.hudimeta.table.Instant;
import io.hudimeta.table.LogFile;
import io.hudimeta.table.Timeline;
import java.util.List;

/**
 * The JSON of the {@link TimelineServer}: Apache Hudi's timeline-service DTOs
 * ({@code org.apache.hudi.common.table.timeline.dto}) under their field names, so Hudi's own
 * RemoteHoodieTableFileSystemView can read them. File statuses are never sent (null), as Hudi allows;
 * paths are full paths under the table's qualified base path, sizes in bytes (-1 when unknown).
 */
final class ViewJson {

  private static final JsonNodeFactory F = JsonNodeFactory.instance;

  private ViewJson() {}

  /** FileSliceDTO. */
  static ObjectNode slice(String basePath, FileSlice s) {
    ObjectNode n = F.objectNode();
    if (s.baseFile() == null) {
      n.putNull("baseFile");
    } else {
      n.set("baseFile", baseFile(basePath, s.partitionPath(), s.baseFile()));
    }
    ArrayNode logs = n.putArray("logFiles");
    s.logFiles().forEach(l -> logs.add(logFile(basePath, s.partitionPath(), l)));
    n.put("partition", s.partitionPath());
    n.put("fileId", s.fileId());
    n.put("baseInstant", s.baseInstantTime());
    return n;
  }

  static ArrayNode slices(String basePath, List<FileSlice> slices) {
    ArrayNode out = F.arrayNode();
    slices.forEach(s -> out.add(slice(basePath, s)));
    return out;
  }

  /** BaseFileDTO. */
  static ObjectNode baseFile(String basePath, String partition, BaseFile b) {
    ObjectNode n = F.objectNode();
    n.putNull("fileStatus");
    n.put("fullPath", path(basePath, partition, b.name()));
    n.put("fileLen", b.size());
    n.put("commitTime", b.instantTime());
    n.put("fileId", b.fileId());
    n.putNull("bootstrapBaseFile");
    return n;
  }

  /** LogFileDTO. */
  static ObjectNode logFile(String basePath, String partition, LogFile l) {
    ObjectNode n = F.objectNode();
    n.putNull("fileStatus");
    n.put("path", path(basePath, partition, l.name()));
    n.put("len", l.size());
    return n;
  }

  /** CompactionOpDTO: file names as in the plan, no metrics (the plan's are not decoded). */
  static ObjectNode compactionOp(CompactionOperation op) {
    ObjectNode n = F.objectNode();
    n.put("baseInstant", op.baseInstantTime());
    n.put("compactionInstant", op.instantTime());
    BaseFile data = op.dataFileName() == null ? null : FileNames.parseBaseFile(op.dataFileName(), -1);
    n.put("dataFileInstant", data == null ? null : data.instantTime());
    ArrayNode deltas = n.putArray("deltaFiles");
    op.deltaFileNames().forEach(deltas::add);
    n.put("baseFile", op.dataFileName());
    n.put("id", op.fileId());
    n.put("partition", op.partitionPath());
    n.putObject("metrics");
    n.putNull("externalBaseFile");
    return n;
  }

  /** FileGroupDTO: its committed slices, oldest first, and the view's timeline (shared node). */
  static ObjectNode fileGroup(String basePath, FileGroupId id, List<FileSlice> slices, ObjectNode timeline) {
    ObjectNode n = F.objectNode();
    n.put("partition", id.partitionPath());
    n.put("fileId", id.fileId());
    n.set("slices", slices(basePath, slices));
    n.set("timeline", timeline);
    return n;
  }

  /** InstantDTO. */
  static ObjectNode instant(Instant i) {
    ObjectNode n = F.objectNode();
    n.put("action", i.action());
    n.put("ts", i.requestedTime());
    n.put("state", i.state().name());
    return n;
  }

  /**
   * TimelineDTO of what a file group's timeline holds in Hudi (filterCompletedAndCompactionInstants):
   * completed commits, deltacommits and replacecommits, and compactions in any state.
   */
  static ObjectNode timeline(Timeline tl) {
    ObjectNode n = F.objectNode();
    ArrayNode instants = n.putArray("instants");
    for (Instant i : tl.all()) {
      if ((i.isCompleted() && i.isCommitLike()) || i.action().equals(Instant.COMPACTION)) {
        instants.add(instant(i));
      }
    }
    return n;
  }

  static ObjectNode error(String message) {
    return F.objectNode().put("error", message);
  }

  static String path(String basePath, String partition, String name) {
    return partition.isEmpty() ? basePath + "/" + name : basePath + "/" + partition + "/" + name;
  }
}
