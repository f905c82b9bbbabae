package io.hudimeta.spark.plan;

import io.hudimeta.table.FileEntry;
import io.hudimeta.table.FileGroupId;
import io.hudimeta.table.Instant;
import io.hudimeta.table.Timeline;
import io.hudimeta.table.Visibility;
import io.hudimeta.table.WrittenFile;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

/** The check a plan from a storage listing makes before it reads: no file the timeline names is missing. */
final class LatestWrites {

  private LatestWrites() {}

  /**
   * The newest file the timeline says was written to each live file group must be there: a
   * missing one means lost data, and reading on would silently return old or no rows.
   */
  static void check(Timeline timeline, Visibility v, Map<String, List<FileEntry>> files, String path) {
    List<Instant> commits = timeline
      .commitsBetween(null, null)
      .stream()
      .filter(i -> v.isCommitted(i.requestedTime()))
      .collect(Collectors.toList());
    Map<FileGroupId, WrittenFile> latest = new HashMap<>();
    for (WrittenFile f : timeline.filesWrittenBy(commits)) {
      latest.put(new FileGroupId(f.partitionPath(), f.fileId()), f);
    }
    Map<String, Set<String>> names = new HashMap<>();
    for (Map.Entry<FileGroupId, WrittenFile> e : latest.entrySet()) {
      String partition = e.getKey().partitionPath();
      List<FileEntry> listed = files.get(partition);
      if (listed == null || v.isReplaced(e.getKey())) {
        continue;
      }
      String name = e.getValue().fileName();
      Set<String> present = names.computeIfAbsent(partition, p ->
        listed.stream().map(FileEntry::name).collect(Collectors.toSet())
      );
      if (!present.contains(name)) {
        String rel = e.getKey().partitionPath().isEmpty() ? name : e.getKey().partitionPath() + "/" + name;
        throw new IllegalStateException(
          "hudi-meta: file " +
            rel +
            " written by commit " +
            e.getValue().instantTime() +
            " is missing from " +
            path +
            "; the table has lost data (restore the file, or roll back / " +
            "restore the table to an earlier savepoint)"
        );
      }
    }
  }
}
