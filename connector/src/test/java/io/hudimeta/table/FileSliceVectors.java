package io.hudimeta.table;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;

/**
 * Runs a {@code file_slices} conformance case (tests/conformance/file_slices.json) through the connector's
 * {@link Timeline}, {@link Visibility} and {@link FileSystemView}: the case's instants become instant files
 * of a layout-2 timeline in a scratch table (table version 8, Parquet base files) that {@link Timeline#load}
 * reads as for any table, and its files become the listing of one partition.
 */
public final class FileSliceVectors {

  private static final String PARTITION = "p";

  private FileSliceVectors() {}

  /** File id to its committed slices, oldest first: {baseInstantTime, baseFile (or null), logFiles}. */
  public static Map<String, List<Map<String, Object>>> slices(JsonNode input) {
    java.nio.file.Path dir;
    try {
      dir = Files.createTempDirectory("file-slices-");
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    try {
      return slicesIn(dir, input);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } finally {
      delete(dir);
    }
  }

  private static Map<String, List<Map<String, Object>>> slicesIn(java.nio.file.Path dir, JsonNode input)
    throws IOException {
    java.nio.file.Path timelineDir = Files.createDirectories(dir.resolve(".hoodie").resolve("timeline"));
    for (JsonNode i : input.path("instants")) {
      Files.createFile(timelineDir.resolve(instantFileName(i)));
    }
    String props = "hoodie.table.name=conformance\nhoodie.table.type=MERGE_ON_READ\nhoodie.table.version=8\n";
    byte[] bytes = props.getBytes(StandardCharsets.ISO_8859_1);
    Path basePath = new Path(dir.toUri());
    TableConfig config = TableConfig.parse(basePath, new Path(basePath, ".hoodie/hoodie.properties"), bytes);
    FileSystem fs = FileSystem.getLocal(new Configuration());
    Timeline timeline = Timeline.load(fs, basePath, config);
    List<FileEntry> files = new ArrayList<>();
    input.path("files").forEach(f -> files.add(new FileEntry(f.asText(), 1L)));
    FileSystemView view = new FileSystemView(timeline, config, Map.of(PARTITION, files));
    Map<String, List<Map<String, Object>>> out = new TreeMap<>();
    for (FileGroup group : view.fileGroups(PARTITION, null)) {
      List<Map<String, Object>> slices = new ArrayList<>();
      for (FileSlice slice : group.slices()) {
        Map<String, Object> s = new LinkedHashMap<>();
        s.put("baseInstantTime", slice.baseInstantTime());
        s.put("baseFile", slice.baseFile() == null ? null : slice.baseFile().name());
        s.put("logFiles", slice.logFiles().stream().map(LogFile::name).toList());
        slices.add(s);
      }
      out.put(group.fileId(), slices);
    }
    return out;
  }

  /** Layout-2 instant file name: {@code t.a.requested}, {@code t.a.inflight} ({@code t.inflight} for a commit), {@code t_c.a}. */
  static String instantFileName(JsonNode i) {
    String requested = i.path("requestedTime").asText();
    String action = i.path("action").asText();
    String state = i.path("state").asText();
    return switch (state) {
      case "REQUESTED" -> requested + "." + action + ".requested";
      case "INFLIGHT" -> action.equals("commit") ? requested + ".inflight" : requested + "." + action + ".inflight";
      case "COMPLETED" -> i.path("completionTime").isNull()
        ? requested + "." + action
        : requested + "_" + i.path("completionTime").asText() + "." + action;
      default -> throw new IllegalArgumentException("unknown instant state " + state);
    };
  }

  private static void delete(java.nio.file.Path dir) {
    try (Stream<java.nio.file.Path> paths = Files.walk(dir)) {
      paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (IOException e) {
      // a scratch directory under java.io.tmpdir; leaving it behind changes no result
    }
  }
}
