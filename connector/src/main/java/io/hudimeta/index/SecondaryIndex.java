package io.hudimeta.index;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.hudimeta.avro.AvroSchemas;
import io.hudimeta.metadata.MetadataTable;
import io.hudimeta.table.HudiTableException;
import io.hudimeta.table.TableConfig;
import io.hudimeta.table.Timeline;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.StructType;

/**
 * One secondary index of a table ({@code secondary_index_<name>} in its metadata table): the value of a
 * column → the record keys of the rows holding it. A query then finds the file groups of those keys with
 * the record index, which Apache Hudi builds and keeps with every secondary index. Lookups are prefix
 * scans ({@code escape(value) + "$"}, {@link SecondaryKeys}) of every file group of the partition, whatever
 * its version, so they need not know how keys hash to file groups.
 */
public final class SecondaryIndex {

  private static final ObjectMapper JSON = new ObjectMapper();

  private final MetadataTable mdt;
  private final IndexDefinitions.Secondary definition;

  private SecondaryIndex(MetadataTable mdt, IndexDefinitions.Secondary definition) {
    this.mdt = mdt;
    this.definition = definition;
  }

  /** Whether an opened metadata table holds the index completed (listed, not inflight). */
  public static boolean available(MetadataTable mdt, IndexDefinitions.Secondary definition) {
    return mdt != null && mdt.hasPartition(definition.partition());
  }

  /**
   * The index of an opened metadata table, which stays the caller's to close.
   *
   * @throws IllegalArgumentException when its partition is not among the completed ones
   */
  public static SecondaryIndex of(MetadataTable mdt, IndexDefinitions.Secondary definition) {
    if (!available(mdt, definition)) {
      throw new IllegalArgumentException(whyUnavailable(mdt.dataConfig(), definition.partition()));
    }
    return new SecondaryIndex(mdt, definition);
  }

  public IndexDefinitions.Secondary definition() {
    return definition;
  }

  /**
   * The record keys (sorted) of the rows holding each value, by value text ({@link SecondaryValues});
   * values no row holds are absent. {@code null} stands for the null value (written by Hudi 1.1 only).
   */
  public Map<String, Set<String>> recordKeys(Collection<String> valueTexts) {
    Map<String, String> byPrefix = new HashMap<>();
    for (String text : valueTexts) {
      SecondaryKeys.valuePrefixes(text).forEach(p -> byPrefix.put(p, text));
    }
    Map<String, Set<String>> out = new TreeMap<>();
    for (String key : mdt.scanPrefixes(definition.partition(), byPrefix.keySet()).keySet()) {
      String text = byPrefix.get(SecondaryKeys.prefixOf(key));
      if (text != null) {
        out.computeIfAbsent(text, t -> new TreeSet<>()).add(SecondaryKeys.recordKey(key));
      }
    }
    return out;
  }

  private static String whyUnavailable(TableConfig config, String partition) {
    if (config.inflightMetadataPartitions().contains(partition)) {
      return "hudi-meta: " + partition + " is still being built (in hoodie.table.metadata.partitions.inflight)";
    }
    return (
      "hudi-meta: " + partition + " is not built: not among the metadata partitions " + config.metadataPartitions()
    );
  }

  // ---- py4j entry point ----

  /**
   * Driver-side lookup for the CLI: JSON {@code {value: [recordKey, ...]}} for each value of the JSON array
   * {@code valuesJson} (strings, numbers, booleans; a date column also takes {@code "yyyy-MM-dd"}), the keys
   * sorted, {@code []} for a value no row holds.
   *
   * @param indexName with or without the {@code secondary_index_} prefix
   * @param options   Hadoop settings for reaching the table (e.g. fs.s3a.*), applied over the active session's
   * @throws IllegalArgumentException when the table has no such completed index (the message names those it has)
   */
  public static String lookupJson(String tablePath, Map<String, String> options, String indexName, String valuesJson) {
    JsonNode values = parseValues(valuesJson);
    Path base = new Path(tablePath);
    FileSystem fs = RecordIndex.fileSystem(
      base,
      RecordIndex.hadoopConf(SparkSession.getActiveSession().getOrElse(() -> null), options)
    );
    TableConfig config = TableConfig.load(fs, base);
    IndexDefinitions.Secondary definition = definition(fs, base, config, indexName);
    Timeline timeline = Timeline.load(fs, base, config);
    try (MetadataTable mdt = openInSync(fs, base, config, timeline)) {
      DataType type = columnType(timeline, definition.column());
      Map<String, String> texts = new LinkedHashMap<>();
      values.forEach(v -> texts.put(v.asText(), SecondaryValues.fromJson(type, v)));
      Map<String, Set<String>> found = of(mdt, definition).recordKeys(texts.values());
      ObjectNode out = JsonNodeFactory.instance.objectNode();
      texts.forEach((given, text) -> {
        ArrayNode keys = out.putArray(given);
        found.getOrDefault(text, Set.of()).forEach(keys::add);
      });
      return out.toString();
    }
  }

  private static JsonNode parseValues(String valuesJson) {
    try {
      JsonNode values = JSON.readTree(valuesJson);
      if (values != null && values.isArray()) {
        return values;
      }
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException("hudi-meta: values must be a JSON array: " + e.getMessage(), e);
    }
    throw new IllegalArgumentException("hudi-meta: values must be a JSON array, got " + valuesJson);
  }

  /** The completed secondary index called {@code name}, or why there is none (naming those there are). */
  private static IndexDefinitions.Secondary definition(FileSystem fs, Path base, TableConfig config, String name) {
    IndexDefinitions defs = IndexDefinitions.load(fs, base, config);
    IndexDefinitions.Secondary d = defs.secondary(name);
    Set<String> built = new TreeSet<>(config.metadataPartitions());
    built.removeAll(config.inflightMetadataPartitions());
    if (d == null) {
      built.retainAll(defs.secondary().keySet());
      throw new IllegalArgumentException(
        "hudi-meta: the table at " + base + " has no secondary index '" + name + "'; its secondary indexes: " + built
      );
    }
    if (!built.contains(d.partition())) {
      throw new IllegalArgumentException(whyUnavailable(config, d.partition()));
    }
    return d;
  }

  /** The metadata table, when it is readable and has every completed data commit (else keys would be missing). */
  private static MetadataTable openInSync(FileSystem fs, Path base, TableConfig config, Timeline timeline) {
    MetadataTable mdt = MetadataTable.open(fs, base, config, timeline).orElseThrow(() ->
      new HudiTableException("hudi-meta: the metadata table of " + base + " cannot be used; the log says why")
    );
    if (!mdt.inSync()) {
      mdt.close();
      throw new HudiTableException(
        "hudi-meta: the metadata table of " + base + " is behind the data timeline, so its indexes may miss rows"
      );
    }
    return mdt;
  }

  /** The type of {@code column} in the table's latest schema; null when unknown. */
  private static DataType columnType(Timeline timeline, String column) {
    String avro = timeline.latestSchema();
    if (avro == null) {
      return null;
    }
    StructType schema = AvroSchemas.toStructType(AvroSchemas.parse(avro));
    return schema.getFieldIndex(column).isDefined() ? schema.apply(column).dataType() : null;
  }
}
