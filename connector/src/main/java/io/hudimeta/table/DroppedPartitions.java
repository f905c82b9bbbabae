package io.hudimeta.table;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * The partitions a table no longer has, as Apache Hudi's TimelineUtils.getDroppedPartitions finds them
 * (what its SHOW PARTITIONS and catalog sync leave out): a partition replaced whole by a completed
 * delete_partition, or removed by a clean, with no write into it after that. Its files may still be
 * listed until the cleaner removes them; its name is not.
 */
public final class DroppedPartitions {

  private DroppedPartitions() {}

  /** The dropped partition paths of the active timeline. */
  public static Set<String> of(Timeline timeline) {
    Map<String, String> deleted = new HashMap<>(); // partition -> latest delete
    for (Instant i : timeline.completed()) {
      if (i.action().equals(Instant.REPLACE_COMMIT)) {
        CommitMetadata meta = timeline.commitMetadata(i);
        if ("delete_partition".equalsIgnoreCase(String.valueOf(meta.operationType()))) {
          meta
            .partitionToReplaceFileIds()
            .keySet()
            .forEach(p -> deleted.put(p, i.requestedTime()));
        }
      } else if (i.action().equals(Instant.CLEAN)) {
        cleanedWhole(timeline.metadata(i)).forEachRemaining(p -> deleted.put(p, i.requestedTime()));
      }
    }
    Set<String> out = new TreeSet<>();
    if (deleted.isEmpty()) {
      return out;
    }
    Map<String, String> written = new HashMap<>(); // partition -> latest write
    for (Instant i : timeline.completedCommits()) {
      timeline
        .commitMetadata(i)
        .partitionToWriteStats()
        .keySet()
        .forEach(p -> written.put(p, i.requestedTime()));
    }
    deleted.forEach((partition, at) -> {
      String write = written.get(partition);
      if (!partition.isEmpty() && (write == null || at.compareTo(write) > 0)) {
        out.add(partition);
      }
    });
    return out;
  }

  /** The partitions a clean's metadata marks isPartitionDeleted. */
  private static Iterator<String> cleanedWhole(JsonNode clean) {
    Set<String> out = new TreeSet<>();
    clean
      .path("partitionMetadata")
      .fields()
      .forEachRemaining(e -> {
        if (e.getValue().path("isPartitionDeleted").asBoolean(false)) {
          out.add(e.getKey());
        }
      });
    return out.iterator();
  }
}
