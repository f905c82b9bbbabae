package io.hudimeta.table;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code HoodieCommitMetadata} / {@code HoodieReplaceCommitMetadata} of a commit, deltacommit or
 * replacecommit, decoded from either encoding (layout-2 Avro, layout-1 JSON). Field names are the
 * same in both.
 */
public final class CommitMetadata {

  /**
   * One file written by the commit.
   *
   * @param path     relative to the table base path ({@code <partition>/<file>}; just the file name
   *                 in non-partitioned tables)
   * @param baseFile for log appends: the base file of the slice in layout 1, often {@code ""} in layout 2
   * @param logFiles for log appends: the slice's log files known to the writer
   * @param cdcStats the CDC log files written beside a rewritten base file (path as {@code path}) and their sizes
   */
  public record WriteStat(
    String partitionPath,
    String fileId,
    String path,
    String prevCommit,
    long numWrites,
    long numDeletes,
    long numInserts,
    long numUpdateWrites,
    long fileSizeInBytes,
    String baseFile,
    List<String> logFiles,
    Map<String, Long> cdcStats
  ) {
    /** Last segment of {@code path}, or null when the stat names no file (placeholder stats of inflight files). */
    public String fileName() {
      if (path == null || path.isEmpty()) {
        return null;
      }
      return path.substring(path.lastIndexOf('/') + 1);
    }
  }

  private final Map<String, List<WriteStat>> partitionToWriteStats;
  private final Map<String, List<String>> partitionToReplaceFileIds;
  private final Map<String, String> extraMetadata;
  private final String operationType;
  private final boolean compacted;

  private CommitMetadata(
    Map<String, List<WriteStat>> stats,
    Map<String, List<String>> replaced,
    Map<String, String> extra,
    String operationType,
    boolean compacted
  ) {
    this.partitionToWriteStats = stats;
    this.partitionToReplaceFileIds = replaced;
    this.extraMetadata = extra;
    this.operationType = operationType;
    this.compacted = compacted;
  }

  /** From the JSON tree of an instant file; an empty tree gives empty metadata. */
  public static CommitMetadata fromJson(JsonNode root) {
    Map<String, List<WriteStat>> stats = new LinkedHashMap<>();
    root
      .path("partitionToWriteStats")
      .properties()
      .forEach(e -> {
        List<WriteStat> list = new ArrayList<>();
        e.getValue().forEach(s -> list.add(writeStat(e.getKey(), s)));
        stats.put(e.getKey(), Collections.unmodifiableList(list));
      });
    Map<String, List<String>> replaced = new LinkedHashMap<>();
    root
      .path("partitionToReplaceFileIds")
      .properties()
      .forEach(e -> replaced.put(e.getKey(), strings(e.getValue())));
    Map<String, String> extra = new LinkedHashMap<>();
    root
      .path("extraMetadata")
      .properties()
      .forEach(e -> extra.put(e.getKey(), text(e.getValue())));
    return new CommitMetadata(
      Collections.unmodifiableMap(stats),
      Collections.unmodifiableMap(replaced),
      Collections.unmodifiableMap(extra),
      text(root.get("operationType")),
      root.path("compacted").asBoolean(false)
    );
  }

  private static WriteStat writeStat(String partitionKey, JsonNode s) {
    String partition = text(s.get("partitionPath"));
    return new WriteStat(
      partition != null ? partition : partitionKey,
      text(s.get("fileId")),
      text(s.get("path")),
      text(s.get("prevCommit")),
      s.path("numWrites").asLong(0),
      s.path("numDeletes").asLong(0),
      s.path("numInserts").asLong(0),
      s.path("numUpdateWrites").asLong(0),
      s.path("fileSizeInBytes").asLong(0),
      text(s.get("baseFile")),
      strings(s.get("logFiles")),
      sizes(s.get("cdcStats"))
    );
  }

  static String text(JsonNode node) {
    return node == null || node.isNull() || node.isMissingNode() ? null : node.asText();
  }

  private static Map<String, Long> sizes(JsonNode node) {
    Map<String, Long> out = new LinkedHashMap<>();
    if (node != null) {
      node.properties().forEach(e -> out.put(e.getKey(), e.getValue().asLong()));
    }
    return Collections.unmodifiableMap(out);
  }

  static List<String> strings(JsonNode node) {
    List<String> out = new ArrayList<>();
    if (node != null) {
      node.forEach(n -> out.add(n.asText()));
    }
    return Collections.unmodifiableList(out);
  }

  public Map<String, List<WriteStat>> partitionToWriteStats() {
    return partitionToWriteStats;
  }

  public List<WriteStat> allWriteStats() {
    List<WriteStat> all = new ArrayList<>();
    partitionToWriteStats.values().forEach(all::addAll);
    return all;
  }

  /** Replacecommits only: file groups (ids per partition) this commit made obsolete. */
  public Map<String, List<String>> partitionToReplaceFileIds() {
    return partitionToReplaceFileIds;
  }

  public Map<String, String> extraMetadata() {
    return extraMetadata;
  }

  /** Writer Avro schema JSON ({@code extraMetadata["schema"]}), or null when absent or empty. */
  public String schema() {
    String schema = extraMetadata.get("schema");
    return schema == null || schema.isBlank() ? null : schema;
  }

  /** UPSERT, INSERT_OVERWRITE, COMPACT, CLUSTER...; null when not recorded. */
  public String operationType() {
    return operationType;
  }

  public boolean compacted() {
    return compacted;
  }
}
