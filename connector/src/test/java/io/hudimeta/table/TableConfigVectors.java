package io.hudimeta.table;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.Comparator;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;

/**
 * Runs a {@code table_config} conformance case (tests/conformance/table_config.json): the case's files are
 * written into the {@code .hoodie} folder of a scratch table, then {@link TableConfig#exists} and
 * {@link TableConfig#load} answer as for any table.
 */
public final class TableConfigVectors {

  private TableConfigVectors() {}

  /** {exists, properties (the case's keys of the file read)} or {exists, error: "not found" | "invalid"}. */
  public static Map<String, Object> load(JsonNode input) {
    java.nio.file.Path dir;
    try {
      dir = Files.createTempDirectory("table-config-");
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    try {
      return loadIn(dir, input);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } finally {
      delete(dir);
    }
  }

  private static Map<String, Object> loadIn(java.nio.file.Path dir, JsonNode input) throws IOException {
    java.nio.file.Path meta = dir.resolve(TableConfig.META_FOLDER);
    if (input.path("metaFolder").asBoolean()) {
      Files.createDirectories(meta);
    }
    for (Iterator<Map.Entry<String, JsonNode>> it = input.path("files").fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> f = it.next();
      Files.write(meta.resolve(f.getKey()), f.getValue().asText().getBytes(StandardCharsets.ISO_8859_1));
    }
    FileSystem fs = FileSystem.getLocal(new Configuration());
    Path base = new Path(dir.toUri());
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("exists", TableConfig.exists(fs, base));
    try {
      TableConfig config = TableConfig.load(fs, base);
      Map<String, Object> props = new LinkedHashMap<>();
      input.path("keys").forEach(k -> props.put(k.asText(), config.get(k.asText())));
      out.put("properties", props);
    } catch (TableNotFoundException e) {
      out.put("error", "not found");
    } catch (CorruptTableException e) {
      out.put("error", "invalid");
    }
    return out;
  }

  private static void delete(java.nio.file.Path dir) {
    try (Stream<java.nio.file.Path> paths = Files.walk(dir)) {
      paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (IOException e) {
      // a scratch directory under java.io.tmpdir; leaving it behind changes no result
    }
  }
}
