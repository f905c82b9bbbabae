package io.hudimeta.spark.options;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a read does with a {@code hoodie.*} option it does not honour, judged against the catalogue of
 * Apache Hudi's keys (resource hudi-option-keys.tsv, shared with pyhudi's writer): a key Hudi does not
 * define is refused with the nearest known key; an unhonoured read option of Hudi's datasource is
 * refused, since ignoring it could return other rows; any other Hudi option (a write, table-service or
 * tuning setting) does not change what a read returns and is left alone.
 */
public final class OptionKeys {

  /** What every key of Apache Hudi starts with. */
  public static final String PREFIX = "hoodie.";
  // shared with pyhudi (pyhudi.config.recognise reads it from the source tree and the jar): keeps its path
  private static final String CATALOGUE_RESOURCE = "/io/hudimeta/spark/hudi-option-keys.tsv";
  private static final Logger LOG = LoggerFactory.getLogger(OptionKeys.class);
  private static final String READ_OPTIONS_CLASS = "DataSourceReadOptions";
  /** Hudi read options about how Hudi's own reader lists files: nothing the rows depend on. */
  private static final Set<String> IGNORABLE_READ_OPTIONS = Set.of(
    "hoodie.datasource.read.file.index.listing.mode",
    "hoodie.datasource.read.file.index.listing.partition-path-prefix.analysis.enabled",
    "hoodie.file.index.enable",
    "hoodie.datasource.read.create.filesystem.relation"
  );
  private static final Map<String, String> CATALOGUE = load(); // lower-cased key -> defining Hudi class

  private OptionKeys() {}

  /** Refuses unknown and unsupported {@code hoodie.*} keys of a read; {@code honoured}: lower-cased keys. */
  static void check(Map<String, String> options, Set<String> honoured) {
    for (String raw : options.keySet()) {
      String key = raw.toLowerCase(Locale.ROOT);
      if (!key.startsWith(PREFIX) || honoured.stream().anyMatch(key::equalsIgnoreCase)) {
        continue;
      }
      String owner = CATALOGUE.get(key);
      if (owner == null) {
        throw new IllegalArgumentException(
          "hudi-meta: unknown option " +
            raw +
            ": not an Apache Hudi option; did you mean " +
            nearest(key, honoured) +
            "?"
        );
      }
      if (owner.equals(READ_OPTIONS_CLASS) && !IGNORABLE_READ_OPTIONS.contains(key)) {
        throw new IllegalArgumentException(
          "hudi-meta: " + raw + " is an Apache Hudi option hudi-meta does not support yet"
        );
      }
      LOG.debug("{} ({}) does not change what a read returns; ignored", raw, owner);
    }
  }

  /** The known key closest to {@code key} by edit distance, honoured read keys first on ties. */
  private static String nearest(String key, Set<String> honoured) {
    String best = null;
    int bestDistance = Integer.MAX_VALUE;
    for (String candidate : honoured) {
      int d = distance(key, candidate);
      if (d < bestDistance) {
        best = candidate;
        bestDistance = d;
      }
    }
    for (String candidate : CATALOGUE.keySet()) {
      int d = distance(key, candidate);
      if (d < bestDistance) {
        best = candidate;
        bestDistance = d;
      }
    }
    return best;
  }

  private static int distance(String a, String b) {
    int[] prev = new int[b.length() + 1];
    int[] cur = new int[b.length() + 1];
    for (int j = 0; j <= b.length(); j++) {
      prev[j] = j;
    }
    for (int i = 1; i <= a.length(); i++) {
      cur[0] = i;
      for (int j = 1; j <= b.length(); j++) {
        int substitution = prev[j - 1] + (a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1);
        cur[j] = Math.min(substitution, Math.min(prev[j] + 1, cur[j - 1] + 1));
      }
      int[] t = prev;
      prev = cur;
      cur = t;
    }
    return prev[b.length()];
  }

  private static Map<String, String> load() {
    Map<String, String> keys = new HashMap<>();
    try (InputStream in = OptionKeys.class.getResourceAsStream(CATALOGUE_RESOURCE)) {
      if (in == null) {
        throw new IllegalStateException("hudi-meta: hudi-option-keys.tsv is missing from the connector jar");
      }
      BufferedReader reader = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8));
      for (String line = reader.readLine(); line != null; line = reader.readLine()) {
        int tab = line.indexOf('\t');
        if (!line.startsWith("#") && tab > 0) {
          keys.put(line.substring(0, tab).toLowerCase(Locale.ROOT), line.substring(tab + 1));
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return Map.copyOf(keys);
  }
}
