package io.hudimeta.spark;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.hudimeta.metadata.MetadataFileListing;
import io.hudimeta.table.FileListing;
import io.hudimeta.table.FileSlice;
import io.hudimeta.table.FileSystemView;
import io.hudimeta.table.StorageListing;
import io.hudimeta.table.TableConfig;
import io.hudimeta.table.Timeline;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;

/**
 * What pyhudi's writer needs of an existing table (one py4j call): the latest file slice of each
 * file group in the partitions a write touches. Listed like a read plans: from the metadata table
 * when it is in sync, else from storage, and then only those partitions; commit metadata is not read.
 */
public final class WriterView {

  private WriterView() {}

  /**
   * JSON {@code {"listing": "metadata"|"storage", "slices": [{"partitionPath", "fileId", "baseInstantTime",
   * "baseFile" (name or null), "baseFileSize" (bytes or null), "logFiles": [names]}]}}, by partition then file id.
   *
   * @param partitions relative partition paths ("" for a non-partitioned table); null for every partition
   */
  public static String latestFileSlices(Configuration conf, String basePath, String[] partitions) {
    Path base = new Path(basePath);
    FileSystem fs = fileSystem(base, conf);
    TableConfig config = TableConfig.load(fs, base);
    Timeline timeline = Timeline.load(fs, base, config);
    Optional<MetadataFileListing> mdt = MetadataFileListing.openInSync(fs, base, config, timeline);
    try {
      FileListing listing = mdt.isPresent() ? mdt.get() : StorageListing.lazy(fs, base);
      List<String> asked = partitions == null ? listing.partitions() : Arrays.asList(partitions);
      FileSystemView view = FileSystemView.of(timeline, config, listing, asked);
      return json(mdt.isPresent() ? "metadata" : "storage", view);
    } finally {
      mdt.ifPresent(MetadataFileListing::close);
    }
  }

  private static FileSystem fileSystem(Path base, Configuration conf) {
    try {
      return base.getFileSystem(conf);
    } catch (IOException e) {
      throw new UncheckedIOException("hudi-meta: cannot reach " + base, e);
    }
  }

  private static String json(String listing, FileSystemView view) {
    ObjectNode root = JsonNodeFactory.instance.objectNode();
    root.put("listing", listing);
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
