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
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;
import java.util.stream.Collectors;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.GlobPattern;
import org.apache.hadoop.fs.Path;
import org.apache.spark.sql.classic.SparkSession;

/**
 * {@code show_fsview_latest} and {@code show_fsview_all}, from the JVM's synced view of the table (what
 * readers plan with): Hudi's columns, one row per file group's latest slice, or per slice. Of Hudi's
 * arguments, max_instant, include_in_flight and exclude_compaction (views of other timelines) are refused
 * rather than ignored. Log files are named as the release of the table's version prints a HoodieLogFile.
 */
final class FsView {

  private static final String ALL_PARTITIONS = "ALL_PARTITIONS";

  private FsView() {}

  /** show_fsview_latest: each file group's latest (merged, by default) slice. */
  static List<Object[]> latest(String basePath, Args args) {
    return rows(basePath, args, (view, partition) -> slices(view, partition, args.flag("merge")), FsView::latestRow);
  }

  /** show_fsview_all: every slice of every file group, newest first within a group (Hudi's order). */
  static List<Object[]> all(String basePath, Args args) {
    return rows(basePath, args, FsView::allSlices, FsView::allRow);
  }

  private static List<Object[]> rows(String basePath, Args args, Slices slices, RowOf rowOf) {
    refuseOtherTimelines(args);
    Path base = new Path(basePath);
    FileSystem fs = fileSystem(base);
    SyncedView view = TableViews.synced(fs, base, ViewStorageConfig.of(Map.of()));
    Files files = new Files(fs.makeQualified(base).toString(), view.timeline()); // Hudi prints full paths
    Predicate<String> wanted = partitions(args);
    List<Object[]> rows = new ArrayList<>();
    for (String partition : view.partitions()) {
      if (wanted.test(partition)) {
        for (FileSlice s : slices.of(view, partition)) {
          rows.add(rowOf.row(files, s));
        }
      }
    }
    return rows.subList(0, Math.min(rows.size(), args.integer("limit", 10)));
  }

  private interface Slices {
    List<FileSlice> of(SyncedView view, String partition);
  }

  private interface RowOf {
    Object[] row(Files files, FileSlice slice);
  }

  private static void refuseOtherTimelines(Args args) {
    String max = args.string("max_instant");
    if ((max != null && !max.isEmpty()) || args.flag("include_in_flight") || args.flag("exclude_compaction")) {
      throw new HudiException(
        "CALL show_fsview_*: max_instant, include_in_flight and exclude_compaction are not supported; " +
          "the view is the latest completed one (read time travel with VERSION AS OF)"
      );
    }
  }

  /** Hudi's path_regex / partition_path (show_fsview_latest only): a glob over partition paths (at most one). */
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

  private static List<FileSlice> allSlices(SyncedView view, String partition) {
    List<FileSlice> out = new ArrayList<>();
    for (FileGroup group : view.view(List.of(partition)).fileGroups(partition, null)) {
      List<FileSlice> slices = new ArrayList<>(group.slices());
      Collections.reverse(slices);
      out.addAll(slices);
    }
    return out;
  }

  private static Object[] allRow(Files files, FileSlice s) {
    List<String> logs = new ArrayList<>();
    long logSize = 0;
    for (LogFile log : files.newestFirst(s)) {
      logSize += log.size();
      logs.add(files.text(s, log));
    }
    return row(files, s, logSize, "[" + String.join(", ", logs) + "]"); // a Java List's toString
  }

  /** The columns both procedures begin with, then {@code more}. */
  private static Object[] row(Files files, FileSlice s, long logSize, Object... more) {
    Object[] first = {
      s.partitionPath(),
      s.fileId(),
      s.baseInstantTime(),
      files.base(s),
      s.baseFile() == null ? 0L : s.baseFile().size(),
      (long) s.logFiles().size(),
      logSize,
    };
    Object[] out = Arrays.copyOf(first, first.length + more.length);
    System.arraycopy(more, 0, out, first.length, more.length);
    return out;
  }

  private static Object[] latestRow(Files files, FileSlice s) {
    long baseSize = s.baseFile() == null ? 0L : s.baseFile().size();
    long logSize = 0;
    long completedSize = 0;
    List<String> sameInstant = new ArrayList<>();
    List<String> others = new ArrayList<>();
    for (LogFile log : files.newestFirst(s)) {
      logSize += log.size();
      // Hudi's "scheduled for compaction": logs of deltacommits that completed
      completedSize += files.timeline.completionTime(log.instantTime()) != null ? log.size() : 0;
      (log.instantTime().equals(s.baseInstantTime()) ? sameInstant : others).add(files.text(s, log));
    }
    return row(
      files,
      s,
      logSize,
      completedSize,
      logSize - completedSize,
      baseSize > 0 ? completedSize / (double) baseSize : -1.0,
      baseSize > 0 ? (logSize - completedSize) / (double) baseSize : -1.0,
      "[" + String.join(",", sameInstant) + "]", // Scala's mkString
      "[" + String.join(",", others) + "]"
    );
  }

  /** Paths as Hudi prints them: full, and a log file as HoodieLogFile.toString of the table's release. */
  private record Files(String root, Timeline timeline) {
    String prefix(FileSlice s) {
      return s.partitionPath().isEmpty() ? root + "/" : root + "/" + s.partitionPath() + "/";
    }

    String base(FileSlice s) {
      return s.baseFile() == null ? "" : prefix(s) + s.baseFile().name();
    }

    /** Hudi 1.1+ (table version 9) is Lombok's text, Hudi 1.0 (version 8 and before) its own. */
    String text(FileSlice s, LogFile log) {
      String path = prefix(s) + log.name();
      return timeline.config().tableVersion() >= 9
        ? "HoodieLogFile(pathStr=" + path + ", fileSize=" + log.size() + ")"
        : "HoodieLogFile{pathStr='" + path + "', fileLen=" + log.size() + "}";
    }

    /** A slice's log files as Hudi's FileSlice holds them: newest first. */
    List<LogFile> newestFirst(FileSlice s) {
      List<LogFile> logs = new ArrayList<>(s.logFiles());
      logs.sort(LogFile.ORDER.reversed());
      return logs;
    }
  }

  static FileSystem fileSystem(Path base) {
    try {
      return base.getFileSystem(SparkSession.active().sessionState().newHadoopConf());
    } catch (IOException e) {
      throw new UncheckedIOException("hudi-meta: cannot reach " + base, e);
    }
  }
}
