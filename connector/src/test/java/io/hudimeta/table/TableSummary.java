package io.hudimeta.table;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;

/**
 * The whole table model of one table as a JSON string: config, instants, partitions and file slices.
 * One py4j call per table for tests and debugging ({@code spark._jvm.io.hudimeta.table.TableSummary}).
 */
public final class TableSummary {

  private TableSummary() {}

  /** Summary with the latest slices plus the slices as of each time in {@code asOfCsv} (comma list, may be empty). */
  public static String json(String basePath, String asOfCsv) {
    return json(new Configuration(), basePath, asOfCsv);
  }

  public static String json(Configuration conf, String basePath, String asOfCsv) {
    Path base = new Path(basePath);
    FileSystem fs;
    try {
      fs = base.getFileSystem(conf);
    } catch (IOException e) {
      throw new UncheckedIOException("no file system for " + basePath + ": " + e.getMessage(), e);
    }
    FileSystemView view = FileSystemView.load(fs, base);
    ObjectNode root = InstantContent.JSON.createObjectNode();
    root.set("config", config(view.config()));
    root.set("instants", instants(view.timeline()));
    root.set("rolledBack", InstantContent.JSON.valueToTree(view.timeline().rolledBackInstants()));
    root.set("pendingCompactions", InstantContent.JSON.valueToTree(view.timeline().pendingCompactions()));
    root.set("partitions", InstantContent.JSON.valueToTree(view.allPartitions()));
    root.put("latestSchema", view.timeline().latestSchema());
    root.set("commits", commits(view.timeline()));
    ObjectNode slices = root.putObject("slices");
    slices.set("latest", slices(view.latestFileSlices(null)));
    for (String asOf : asOfList(asOfCsv)) {
      slices.set(asOf, slices(view.latestFileSlices(asOf)));
    }
    return root.toString();
  }

  private static List<String> asOfList(String csv) {
    List<String> out = new ArrayList<>();
    if (csv != null) {
      for (String part : csv.split(",")) {
        if (!part.isBlank()) {
          out.add(part.trim());
        }
      }
    }
    return out;
  }

  private static ObjectNode config(TableConfig c) {
    ObjectNode n = InstantContent.JSON.createObjectNode();
    n.put("tableName", c.tableName());
    n.put("databaseName", c.databaseName());
    n.put("tableType", c.tableType().name());
    n.put("tableVersion", c.tableVersion());
    n.put("timelineLayoutVersion", c.timelineLayoutVersion());
    n.put("timelinePath", c.timelinePath().toString());
    n.put("sourceFile", c.sourceFile().getName());
    n.set("recordKeyFields", InstantContent.JSON.valueToTree(c.recordKeyFields()));
    n.set("partitionFields", InstantContent.JSON.valueToTree(c.partitionFields()));
    n.set("orderingFields", InstantContent.JSON.valueToTree(c.orderingFields()));
    n.put("recordMergeMode", c.recordMergeMode().name());
    n.put("payloadClass", c.payloadClass());
    n.put("recordMergeStrategyId", c.recordMergeStrategyId());
    n.put("hiveStylePartitioning", c.hiveStylePartitioning());
    n.put("urlEncodePartitioning", c.urlEncodePartitioning());
    n.put("populateMetaFields", c.populateMetaFields());
    n.put("dropPartitionColumns", c.dropPartitionColumns());
    n.set("metadataPartitions", InstantContent.JSON.valueToTree(c.metadataPartitions()));
    n.put("baseFileFormat", c.baseFileFormat());
    n.put("keyGeneratorType", c.keyGeneratorType());
    n.put("keyGeneratorClass", c.keyGeneratorClass());
    n.put("createSchema", c.createSchema());
    return n;
  }

  private static ArrayNode instants(Timeline timeline) {
    ArrayNode list = InstantContent.JSON.createArrayNode();
    for (Instant i : timeline.all()) {
      ObjectNode n = list.addObject();
      n.put("requestedTime", i.requestedTime());
      n.put("completionTime", i.completionTime());
      n.put("action", i.action());
      n.put("state", i.state().name());
      n.put("fileName", i.fileName());
    }
    return list;
  }

  /** Decoded commit metadata of every completed commit-like instant, keyed by requested time. */
  private static ObjectNode commits(Timeline timeline) {
    ObjectNode all = InstantContent.JSON.createObjectNode();
    for (Instant i : timeline.completedCommits()) {
      CommitMetadata meta = timeline.commitMetadata(i);
      ObjectNode n = all.putObject(i.requestedTime());
      n.put("operationType", meta.operationType());
      n.put("schema", meta.schema());
      n.set("partitionToReplaceFileIds", InstantContent.JSON.valueToTree(meta.partitionToReplaceFileIds()));
      n.set("writeStats", InstantContent.JSON.valueToTree(meta.allWriteStats()));
    }
    return all;
  }

  /** {@link Timeline#commitsBetween} and {@link Timeline#filesWrittenBy} of that range, as JSON. */
  public static String incrementalJson(String basePath, String beginExclusive, String endInclusive) {
    Path base = new Path(basePath);
    FileSystem fs;
    try {
      fs = base.getFileSystem(new Configuration());
    } catch (IOException e) {
      throw new UncheckedIOException("no file system for " + basePath + ": " + e.getMessage(), e);
    }
    Timeline timeline = Timeline.load(fs, base, TableConfig.load(fs, base));
    List<Instant> commits = timeline.commitsBetween(beginExclusive, endInclusive);
    ObjectNode root = InstantContent.JSON.createObjectNode();
    ArrayNode times = root.putArray("commits");
    commits.forEach(i -> times.add(i.requestedTime()));
    root.set("files", InstantContent.JSON.valueToTree(timeline.filesWrittenBy(commits)));
    return root.toString();
  }

  private static ArrayNode slices(List<FileSlice> slices) {
    ArrayNode list = InstantContent.JSON.createArrayNode();
    for (FileSlice s : slices) {
      ObjectNode n = list.addObject();
      n.put("partitionPath", s.partitionPath());
      n.put("fileId", s.fileId());
      n.put("baseInstantTime", s.baseInstantTime());
      n.put("baseFile", s.baseFile() == null ? null : s.baseFile().name());
      ArrayNode logs = n.putArray("logFiles");
      s.logFiles().forEach(l -> logs.add(l.name()));
    }
    return list;
  }
}
