package io.hudimeta.index;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.hudimeta.metadata.MetadataDamage;
import io.hudimeta.metadata.MetadataKeys;
import io.hudimeta.metadata.MetadataRecord;
import io.hudimeta.metadata.MetadataTable;
import io.hudimeta.table.TableConfig;
import io.hudimeta.table.Timeline;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;
import java.util.Optional;
import org.apache.avro.generic.GenericRecord;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.spark.sql.SparkSession;

/**
 * The {@code bloom_filters} partition's filters of named data files, for pyhudi's bloom index: with log-file
 * indexing (RFC-06) each log file has one there, so a lookup skips a log file whose filter excludes every key
 * of the batch without opening it.
 */
public final class BloomFilters {

  private static final ObjectMapper JSON = new ObjectMapper();

  private BloomFilters() {}

  /**
   * py4j entry point: JSON {@code {partition: {file name: {"type", "filter" (Base64 text)}}}} of the files of
   * the JSON object {@code filesJson} ({@code {partition: [file name, ...]}}) that the partition holds a live
   * filter of; {@code {}} when the table has no usable {@code bloom_filters} partition or its metadata table
   * lags behind the data timeline (then a filter may be missing or stale, and every file is read), or when
   * the partition is damaged ({@link MetadataDamage}, warned of).
   */
  public static String filtersJson(String tablePath, Map<String, String> options, String filesJson) {
    Map<String, String[]> wanted = new HashMap<>(); // metadata key -> (partition, file name)
    try {
      for (Iterator<Map.Entry<String, JsonNode>> it = JSON.readTree(filesJson).fields(); it.hasNext(); ) {
        Map.Entry<String, JsonNode> e = it.next();
        for (JsonNode name : e.getValue()) {
          wanted.put(MetadataKeys.bloomFilterKey(e.getKey(), name.asText()), new String[] {
            e.getKey(),
            name.asText(),
          });
        }
      }
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException("hudi-meta: files must be a JSON object of arrays: " + e.getMessage(), e);
    }
    ObjectNode out = JsonNodeFactory.instance.objectNode();
    Path base = new Path(tablePath);
    FileSystem fs = RecordIndex.fileSystem(
      base,
      RecordIndex.hadoopConf(SparkSession.getActiveSession().getOrElse(() -> null), options)
    );
    TableConfig config = TableConfig.load(fs, base);
    if (wanted.isEmpty() || !config.metadataPartitions().contains(MetadataTable.BLOOM_FILTERS)) {
      return out.toString();
    }
    Optional<MetadataTable> opened = MetadataTable.open(fs, base, config, Timeline.load(fs, base, config));
    if (opened.isEmpty()) {
      return out.toString();
    }
    try (MetadataTable mdt = opened.get()) {
      if (!mdt.inSync()) {
        return out.toString();
      }
      mdt.lookup(MetadataTable.BLOOM_FILTERS, wanted.keySet()).forEach((key, r) -> put(out, wanted.get(key), r));
    } catch (RuntimeException e) {
      MetadataDamage damage = MetadataDamage.in(e);
      if (damage == null) {
        throw e;
      }
      damage.report("Not using the bloom filters of " + base + "'s metadata table (every file is read)");
      return "{}";
    }
    return out.toString();
  }

  private static void put(ObjectNode out, String[] file, MetadataRecord r) {
    GenericRecord info = (GenericRecord) r.payload().get("BloomFilterMetadata");
    if (r.isDeleted() || info == null || info.get("bloomFilter") == null) {
      return;
    }
    ByteBuffer raw = ((ByteBuffer) info.get("bloomFilter")).duplicate();
    byte[] text = new byte[raw.remaining()];
    raw.get(text);
    ObjectNode o = (out.has(file[0]) ? (ObjectNode) out.get(file[0]) : out.putObject(file[0])).putObject(file[1]);
    o.put("type", String.valueOf(info.get("type")));
    o.put("filter", new String(text, StandardCharsets.UTF_8));
  }
}
