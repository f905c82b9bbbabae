package io.hudimeta.spark.procedures;

import io.hudimeta.HudiException;
import io.hudimeta.table.FileGroup;
import io.hudimeta.table.FileSlice;
import io.hudimeta.table.LogFile;
import io.hudimeta.table.Timeline;
import io.hudimeta.view.SyncedView;
import io.hudimeta.view.TableViews;
import io.hudimeta.view.ViewStorageConfig;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;
import java.util.stream.Collectors;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.GlobPattern;
import org.apache.hadoop.fs.Path;
import org.apache.spark.sql.classic.SparkSession;

/**
 * {@code show_fsview_latest}, from the JVM's synced view of the table (what readers plan with): one row per
 * file group's latest slice, Hudi's columns. Of Hudi's arguments, max_instant, include_in_flight and
 * exclude_compaction (views of other timelines) are refused rather than ignored.
 */
final class FsViewLatest {

  private static final String ALL_PARTITIONS = "ALL_PARTITIONS";

  private FsViewLatest() {}

  static List<Object[]> rows(String basePath, Args args) {
    refuseOtherTimelines(args);
    Path base = new Path(basePath);
    FileSystem fs = fileSystem(base);
    SyncedView view = TableViews.synced(fs, base, ViewStorageConfig.of(Map.of()));
    String root = fs.makeQualified(base).toString(); // Hudi prints full paths
    Predicate<String> wanted = partitions(args);
    List<Object[]> rows = new ArrayList<>();
    for (String partition : view.partitions()) {
      if (wanted.test(partition)) {
        for (FileSlice s : slices(view, partition, args.flag("merge"))) {
          rows.add(row(root, view.timeline(), s));
        }
      }
    }
    return rows.subList(0, Math.min(rows.size(), args.integer("limit", 10)));
  }

  private static void refuseOtherTimelines(Args args) {
    String max = args.string("max_instant");
    if ((max != null && !max.isEmpty()) || args.flag("include_in_flight") || args.flag("exclude_compaction")) {
      throw new HudiException(
        "CALL show_fsview_latest: max_instant, include_in_flight and exclude_compaction are not supported; " +
          "the view is the latest completed one (read time travel with VERSION AS OF)"
      );
    }
  }

  /** Hudi's path_regex / partition_path: a glob over partition paths (at most one of them). */
  private static Predicate<String> partitions(Args args) {
    String regex = args.string("path_regex");
    String partition = args.string("partition_path");
    if (regex != null && partition != null) {
      throw new HudiException("CALL show_fsview_latest: path_regex and partition_path cannot be used together");
    }
    String glob = regex != null ? regex : partition;
    if (glob == null || glob.equals(ALL_PARTITIONS)) {
      return p -> true;
    }
    GlobPattern pattern = new GlobPattern(glob);
    return p -> pattern.matches(p);
  }

  /** With merge (Hudi's default) a slice a pending compaction opened is read with the one before it. */
  private static List<FileSlice> slices(SyncedView view, String partition, boolean merge) {
    if (merge) {
      return view.latestFileSlices(partition, null);
    }
    return view
      .view(List.of(partition))
      .fileGroups(partition, null)
      .stream()
      .map(FileGroup::latestSlice)
      .collect(Collectors.toList());
  }

  private static Object[] row(String root, Timeline timeline, FileSlice s) {
    String prefix = s.partitionPath().isEmpty() ? root + "/" : root + "/" + s.partitionPath() + "/";
    long baseSize = s.baseFile() == null ? 0L : s.baseFile().size();
    long logSize = 0;
    long completedSize = 0;
    List<String> sameInstant = new ArrayList<>();
    List<String> others = new ArrayList<>();
    for (LogFile log : s.logFiles()) {
      logSize += log.size();
      // Hudi's "scheduled for compaction": logs of deltacommits that completed
      completedSize += timeline.completionTime(log.instantTime()) != null ? log.size() : 0;
      String text = "HoodieLogFile{pathStr='" + prefix + log.name() + "', fileLen=" + log.size() + "}";
      (log.instantTime().equals(s.baseInstantTime()) ? sameInstant : others).add(text);
    }
    return new Object[] {
      s.partitionPath(),
      s.fileId(),
      s.baseInstantTime(),
      s.baseFile() == null ? "" : prefix + s.baseFile().name(),
      baseSize,
      (long) s.logFiles().size(),
      logSize,
      completedSize,
      logSize - completedSize,
      baseSize > 0 ? completedSize / (double) baseSize : -1.0,
      baseSize > 0 ? (logSize - completedSize) / (double) baseSize : -1.0,
      "[" + String.join(",", sameInstant) + "]",
      "[" + String.join(",", others) + "]",
    };
  }

  private static FileSystem fileSystem(Path base) {
    try {
      return base.getFileSystem(SparkSession.active().sessionState().newHadoopConf());
    } catch (IOException e) {
      throw new UncheckedIOException("hudi-meta: cannot reach " + base, e);
    }
  }
}
