package io.hudimeta.spark.bridge;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.hudimeta.table.FileSlice;
import io.hudimeta.table.FileSystemView;
import io.hudimeta.view.SyncedView;
import io.hudimeta.view.TableViews;
import io.hudimeta.view.ViewStorageConfig;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;

/**
 * What pyhudi's writer needs of an existing table (one py4j call): the latest file slice of each
 * file group in the partitions a write touches, from the JVM's synced view of the table
 * ({@link TableViews}): the first write lists those partitions like a read plans (metadata table when in
 * sync, else storage), later ones pay for the instants completed since. Commit metadata is read only
 * for new instants.
 */
public final class WriterView {

  private WriterView() {}

  /** {@link #latestFileSlices(Configuration, String, String[], Map, String, String)} with default options. */
  public static String latestFileSlices(Configuration conf, String basePath, String[] partitions) {
    return latestFileSlices(conf, basePath, partitions, Map.of(), null, null);
  }

  /**
   * JSON {@code {"listing": "metadata"|"storage", "lastInstant", "timelineHash", "slices": [{"partitionPath",
   * "fileId", "baseInstantTime", "baseFile" (name or null), "baseFileSize" (bytes or null), "logFiles": [names]}]}},
   * by partition then file id.
   *
   * @param partitions   relative partition paths ("" for a non-partitioned table); null for every partition
   * @param options      the write's options: hoodie.metadata.enable and the hoodie.filesystem.view.* keys
   * @param lastInstant  the caller's latest completed instant and timeline hash: when both match the view's,
   * @param timelineHash the view is current and storage is not asked (null: sync)
   */
  public static String latestFileSlices(
    Configuration conf,
    String basePath,
    String[] partitions,
    Map<String, String> options,
    String lastInstant,
    String timelineHash
  ) {
    Path base = new Path(basePath);
    SyncedView synced = TableViews.current(
      fileSystem(base, conf),
      base,
      ViewStorageConfig.of(options),
      lastInstant,
      timelineHash
    );
    List<String> asked = partitions == null ? synced.partitions() : Arrays.asList(partitions);
    return json(synced, synced.view(asked));
  }

  private static FileSystem fileSystem(Path base, Configuration conf) {
    try {
      return base.getFileSystem(conf);
    } catch (IOException e) {
      throw new UncheckedIOException("hudi-meta: cannot reach " + base, e);
    }
  }

  private static String json(SyncedView synced, FileSystemView view) {
    ObjectNode root = JsonNodeFactory.instance.objectNode();
    root.put("listing", synced.source());
    root.put("lastInstant", synced.lastInstant());
    root.put("timelineHash", synced.timelineHash());
    ArrayNode slices = root.putArray("slices");
    for (String partition : view.allPartitions()) {
      // the asked ones, sorted and once each
      for (FileSlice s : view.latestFileSlices(partition, null)) {
        slice(slices.addObject(), s);
      }
    }
    return root.toString();
  }

  private static void slice(ObjectNode n, FileSlice s) {
    n.put("partitionPath", s.partitionPath());
    n.put("fileId", s.fileId());
    n.put("baseInstantTime", s.baseInstantTime());
    n.put("baseFile", s.baseFile() == null ? null : s.baseFile().name());
    if (s.baseFile() == null || s.baseFile().size() < 0) {
      n.putNull("baseFileSize");
    } else {
      n.put("baseFileSize", s.baseFile().size());
    }
    ArrayNode logs = n.putArray("logFiles");
    s.logFiles().forEach(l -> logs.add(l.name()));
  }
}
