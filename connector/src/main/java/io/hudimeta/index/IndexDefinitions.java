package io.hudimeta.index;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.hudimeta.table.HudiTableException;
import io.hudimeta.table.TableConfig;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Collections;
import java.util.Map;
import java.util.TreeMap;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;

/**
 * The secondary indexes a table defines (Apache Hudi's HoodieIndexMetadata), from the JSON file
 * {@code hoodie.table.index.defs.path} names: only there does a reader learn which column a
 * {@code secondary_index_<name>} partition of the metadata table covers. Whether the partition may be
 * read is the metadata table's business (completed, not inflight), not the definition's.
 */
public final class IndexDefinitions {

  /** {@code indexType} of a secondary index. */
  public static final String SECONDARY_TYPE = "secondary_index";
  /** Metadata-table partitions of secondary indexes are named this prefix plus the index name. */
  public static final String SECONDARY_PREFIX = SECONDARY_TYPE + "_";
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final IndexDefinitions NONE = new IndexDefinitions(Map.of());

  /**
   * One secondary index.
   *
   * @param partition its metadata-table partition, {@code secondary_index_<name>}
   * @param column    the one top-level column it covers
   * @param version   {@code V1} (Hudi 1.0, table version 8, where definitions carry no version: entries go
   *                  to file groups by the hash of the whole key) or {@code V2} (by the hash of the value
   *                  part); readers that scan every file group need not care
   */
  public record Secondary(String partition, String column, String version) {}

  private final Map<String, Secondary> secondary;

  private IndexDefinitions(Map<String, Secondary> secondary) {
    this.secondary = Collections.unmodifiableMap(new TreeMap<>(secondary));
  }

  /**
   * The definitions of the table at {@code basePath}; none when it names no file or the file is gone.
   *
   * @throws HudiTableException when the file is not an index definitions file
   */
  public static IndexDefinitions load(FileSystem fs, Path basePath, TableConfig config) {
    String rel = config.indexDefinitionsPath();
    if (rel == null) {
      return NONE;
    }
    Path file = new Path(rel).isAbsolute() ? new Path(rel) : new Path(basePath, rel);
    try (InputStream in = fs.open(file)) {
      return parse(file.toString(), JSON.readTree(in));
    } catch (FileNotFoundException e) {
      return NONE;
    } catch (IOException e) {
      throw new UncheckedIOException("hudi-meta: cannot read the index definitions " + file, e);
    }
  }

  /** The secondary indexes of {@code {"indexDefinitions": {name: {indexType, sourceFields, version}}}}. */
  static IndexDefinitions parse(String source, JsonNode root) {
    JsonNode all = root == null ? null : root.get("indexDefinitions");
    if (all == null || !all.isObject()) {
      throw new HudiTableException("hudi-meta: " + source + " is not an index definitions file (no indexDefinitions)");
    }
    Map<String, Secondary> out = new TreeMap<>();
    all.fields().forEachRemaining(e -> {
      JsonNode d = e.getValue();
      JsonNode fields = d.path("sourceFields");
      boolean secondary =
        SECONDARY_TYPE.equals(d.path("indexType").asText()) && e.getKey().startsWith(SECONDARY_PREFIX);
      if (secondary && fields.isArray() && fields.size() == 1) {
        out.put(e.getKey(), new Secondary(e.getKey(), fields.get(0).asText(), d.path("version").asText("V1")));
      }
    });
    return new IndexDefinitions(out);
  }

  /** Every secondary index defined, by partition name. */
  public Map<String, Secondary> secondary() {
    return secondary;
  }

  /** The secondary index called {@code name}, with or without the {@code secondary_index_} prefix; null if none. */
  public Secondary secondary(String name) {
    return secondary.get(name.startsWith(SECONDARY_PREFIX) ? name : SECONDARY_PREFIX + name);
  }
}
