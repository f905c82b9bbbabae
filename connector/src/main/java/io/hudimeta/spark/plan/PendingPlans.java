package io.hudimeta.spark.plan;

import io.hudimeta.table.CompactionOperation;
import io.hudimeta.table.FileEntry;
import io.hudimeta.table.Instant;
import io.hudimeta.table.Timeline;
import io.hudimeta.view.SyncedView;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.UnaryOperator;

/** The reads of a pending table service's plan ({@link TableSnapshot} with a compaction, log compaction or clustering instant). */
final class PendingPlans {

  private PendingPlans() {}

  /**
   * The slices a pending compaction or clustering plan names, each exactly as planned: base and log files.
   *
   * @param absolute a path relative to the table's base path made absolute
   */
  static List<SliceSplit> splits(
    Timeline timeline,
    SyncedView view,
    String path,
    String instant,
    String action,
    UnaryOperator<String> absolute
  ) {
    Instant pending = timeline.find(instant);
    boolean clustering = action.equals("clustering");
    List<CompactionOperation> ops =
      pending == null || pending.isCompleted()
        ? List.of()
        : clustering
          ? timeline.clusteringPlan(instant)
          : timeline.compactionPlan(instant, action);
    if (ops.isEmpty()) {
      throw new IllegalArgumentException(
        "hudi-meta: " +
          instant +
          " is not a pending " +
          action +
          " of " +
          path +
          "; list pending ones " +
          "with pyhudi timeline " +
          path
      );
    }
    Set<String> partitions = new TreeSet<>();
    ops.forEach(op -> partitions.add(op.partitionPath()));
    Map<String, List<FileEntry>> files = view.files(new ArrayList<>(partitions));
    List<SliceSplit> out = new ArrayList<>();
    for (CompactionOperation op : ops) {
      String prefix = op.partitionPath().isEmpty() ? "" : op.partitionPath() + "/";
      String base = op.dataFileName() == null ? null : absolute.apply(prefix + op.dataFileName());
      long size = -1;
      for (FileEntry f : files.getOrDefault(op.partitionPath(), List.of())) {
        size = f.name().equals(op.dataFileName()) ? f.size() : size;
      }
      String[] logs = op
        .deltaFileNames()
        .stream()
        .map(n -> absolute.apply(prefix + n))
        .toArray(String[]::new);
      out.add(new SliceSplit(op.partitionPath(), op.fileId(), base, size, logs));
    }
    return out;
  }
}
