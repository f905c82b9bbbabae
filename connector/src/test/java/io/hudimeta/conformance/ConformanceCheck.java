package io.hudimeta.conformance;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.hudimeta.index.SecondaryKeyVectors;
import io.hudimeta.metadata.BlockValidity;
import io.hudimeta.metadata.MetadataKeys;
import io.hudimeta.spark.options.ReadOptions;
import io.hudimeta.table.BaseFile;
import io.hudimeta.table.FileNames;
import io.hudimeta.table.FileSliceVectors;
import io.hudimeta.table.Instant;
import io.hudimeta.table.LogFile;
import io.hudimeta.table.TableConfigVectors;
import io.hudimeta.table.Timeline;
import io.hudimeta.table.TimelineVectors;
import io.hudimeta.write.BloomFilterVectors;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Function;

/**
 * Runs the conformance vectors ({@code tests/conformance/*.json}, shared with the Python tests)
 * through the connector's own code. Prints every mismatch, then {@code conformance: <n> cases,
 * <m> mismatches} and one {@code rule <name>: <n> cases} line per file; exits 1 on any mismatch
 * and 2 on a file whose rule it does not know, so no case goes unchecked.
 *
 * <p>Usage: {@code java -cp <test jar>:<main jar>:<spark jars>/* io.hudimeta.conformance.ConformanceCheck <dir>}
 */
public final class ConformanceCheck {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Map<String, Function<JsonNode, Object>> RULES = Map.ofEntries(
    Map.entry("instant_file_names", ConformanceCheck::instant),
    Map.entry("base_file_names", ConformanceCheck::baseFile),
    Map.entry("log_file_names", ConformanceCheck::logFile),
    Map.entry("metadata_keys", ConformanceCheck::metadataKey),
    Map.entry("metadata_block_validity", ConformanceCheck::blockValidity),
    Map.entry("file_slices", FileSliceVectors::slices),
    Map.entry("timeline_state", TimelineVectors::state),
    Map.entry("read_option_keys", ConformanceCheck::readOptionKey),
    Map.entry("secondary_index_keys", SecondaryKeyVectors::keys),
    Map.entry("bloom_filters", BloomFilterVectors::filter),
    Map.entry("table_config", TableConfigVectors::load)
  );

  private ConformanceCheck() {}

  public static void main(String[] args) throws IOException {
    File[] files = new File(args.length > 0 ? args[0] : "tests/conformance").listFiles((d, n) -> n.endsWith(".json"));
    if (files == null || files.length == 0) {
      System.err.println("no conformance vectors in " + (args.length > 0 ? args[0] : "tests/conformance"));
      System.exit(2);
    }
    Arrays.sort(files);
    Map<String, Integer> counts = new TreeMap<>();
    int mismatches = 0;
    for (File file : files) {
      JsonNode doc = JSON.readTree(file);
      Function<JsonNode, Object> rule = RULES.get(doc.path("rule").asText());
      if (rule == null) {
        System.err.println(file + ": no runner for rule '" + doc.path("rule").asText() + "'");
        System.exit(2);
      }
      String name = doc.path("rule").asText();
      counts.putIfAbsent(name, 0);
      for (JsonNode c : doc.path("cases")) {
        mismatches += check(name, c, rule) ? 0 : 1;
        counts.merge(name, 1, Integer::sum);
      }
    }
    System.out.println(
      "conformance: " +
        counts.values().stream().mapToInt(Integer::intValue).sum() +
        " cases, " +
        mismatches +
        " mismatches"
    );
    counts.forEach((rule, n) -> System.out.println("rule " + rule + ": " + n + " cases"));
    System.exit(mismatches == 0 ? 0 : 1);
  }

  /** True when the case's expected value equals what the connector gives; prints the case otherwise. */
  private static boolean check(String rule, JsonNode c, Function<JsonNode, Object> run) {
    JsonNode actual;
    try {
      Object value = run.apply(c.path("input"));
      actual = value == null ? JSON.getNodeFactory().nullNode() : JSON.valueToTree(value);
    } catch (RuntimeException e) {
      actual = JSON.getNodeFactory().textNode("threw " + e);
    }
    JsonNode expected = c.path("expected");
    if (expected.equals(actual)) {
      return true;
    }
    System.out.println(
      "MISMATCH " + rule + " [" + c.path("id").asText() + "]: expected " + expected + ", got " + actual
    );
    return false;
  }

  /** The key a read-option constant of the connector spells, by the constant's name (null: no such constant). */
  private static Object readOptionKey(JsonNode in) {
    try {
      return ReadOptions.class.getField(in.path("name").asText()).get(null);
    } catch (ReflectiveOperationException e) {
      return null;
    }
  }

  private static Object instant(JsonNode in) {
    Instant i = parseInstant(in.path("fileName").asText(), in.path("layoutVersion").asInt());
    if (i == null) {
      return null;
    }
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("requestedTime", i.requestedTime());
    out.put("action", i.action());
    out.put("state", i.state().name());
    out.put("completionTime", i.completionTime());
    return out;
  }

  /** Timeline's instant-name parser; the layout decides some names (layout 1 has no completion times). */
  private static Instant parseInstant(String name, int layout) {
    return Timeline.parseFileName(name, layout);
  }

  private static Object baseFile(JsonNode in) {
    BaseFile b = FileNames.parseBaseFile(in.path("fileName").asText(), -1);
    if (b == null) {
      return null;
    }
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("fileId", b.fileId());
    out.put("writeToken", b.writeToken());
    out.put("instantTime", b.instantTime());
    out.put("extension", b.extension());
    return out;
  }

  private static Object logFile(JsonNode in) {
    LogFile l = FileNames.parseLogFile(in.path("fileName").asText(), -1);
    if (l == null) {
      return null;
    }
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("fileId", l.fileId());
    out.put("instantTime", l.instantTime());
    out.put("version", l.version());
    out.put("writeToken", l.writeToken());
    out.put("cdcSuffix", l.suffix());
    return out;
  }

  private static Object metadataKey(JsonNode in) {
    String fn = in.path("function").asText();
    return switch (fn) {
      case "hashId64" -> MetadataKeys.hashId64(in.path("value").asText());
      case "hashId128" -> MetadataKeys.hashId128(in.path("value").asText());
      case "filesKey" -> MetadataKeys.partitionId(in.path("partition").asText());
      case "columnStatsKey" -> MetadataKeys.columnStatsKey(
        in.path("column").asText(),
        in.path("partition").asText(),
        in.path("fileName").asText()
      );
      case "partitionStatsKey" -> MetadataKeys.partitionStatsKey(
        in.path("column").asText(),
        in.path("partition").asText()
      );
      case "bloomFilterKey" -> MetadataKeys.bloomFilterKey(in.path("partition").asText(), in.path("fileName").asText());
      case "fileGroupIndex" -> fileGroupIndex(in.path("key").asText(), in.path("fileGroupCount").asInt());
      default -> throw new IllegalArgumentException("unknown metadata_keys function " + fn);
    };
  }

  /** The group of a key hashed as a String and as its UTF-8 bytes (the executor lookup's way): one answer, or both. */
  private static Object fileGroupIndex(String key, int count) {
    int byString = MetadataKeys.fileGroupIndex(key, count);
    int byBytes = MetadataKeys.fileGroupIndex(key.getBytes(StandardCharsets.UTF_8), count);
    return byString == byBytes ? byString : "as a String " + byString + ", as UTF-8 bytes " + byBytes;
  }

  private static Object blockValidity(JsonNode in) {
    return BlockValidity.isValid(
      in.path("instant").isNull() ? null : in.path("instant").asText(),
      in.path("logCompacted").asBoolean(),
      in.path("mdtAction").isNull() ? null : in.path("mdtAction").asText(),
      BlockValidity.DataState.valueOf(in.path("data").asText()),
      in.path("firstDataInstant").isNull() ? null : in.path("firstDataInstant").asText()
    );
  }
}
