package io.hudimeta.table;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.zip.Inflater;
import java.util.zip.InflaterInputStream;
import org.apache.avro.Schema;
import org.apache.avro.file.DataFileStream;
import org.apache.avro.generic.GenericDatumReader;
import org.apache.avro.generic.GenericFixed;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.generic.IndexedRecord;
import org.apache.avro.io.BinaryDecoder;
import org.apache.avro.io.DecoderFactory;

/**
 * Decodes the bytes of an instant file into one JSON tree, whatever its encoding: layout-2 files
 * and all plans are Avro object container files, layout-1 commit metadata is Jackson JSON, and many
 * requested/inflight files are empty. The encoding is told by the Avro magic, not by the layout.
 */
final class InstantContent {

  static final ObjectMapper JSON = new ObjectMapper();
  private static final JsonNodeFactory NODES = JsonNodeFactory.instance;
  private static final byte[] AVRO_MAGIC = { 'O', 'b', 'j', 1 };
  private static final Map<String, Schema> SCHEMAS = new ConcurrentHashMap<>();

  private InstantContent() {}

  /** An empty object for an empty file; {@code source} only names the file in errors. */
  static JsonNode parse(byte[] bytes, String source) {
    if (bytes.length == 0) {
      return NODES.objectNode();
    }
    try {
      if (bytes.length >= 4 && Arrays.equals(Arrays.copyOf(bytes, 4), AVRO_MAGIC)) {
        return fromAvroContainer(bytes);
      }
      return JSON.readTree(bytes);
    } catch (IOException | RuntimeException e) {
      throw new CorruptTableException(
        "cannot decode instant file " + source + " (expected an Avro container or JSON): " + e.getMessage(),
        e
      );
    }
  }

  /**
   * The first record of a null- or deflate-coded container, its writer schema parsed once per schema text:
   * Avro's own container reader parses the schema and builds a new resolver for every file, ~10 ms per
   * instant file, most of what a synced view pays for a new commit. Other codecs take Avro's reader.
   */
  private static JsonNode fromAvroContainer(byte[] bytes) throws IOException {
    BinaryDecoder in = DecoderFactory.get().binaryDecoder(bytes, 4, bytes.length - 4, null);
    Map<String, byte[]> meta = new HashMap<>();
    for (long n = in.readMapStart(); n != 0; n = in.mapNext()) {
      for (long i = 0; i < n; i++) {
        String key = in.readString();
        ByteBuffer value = in.readBytes(null);
        byte[] copy = new byte[value.remaining()];
        value.get(copy);
        meta.put(key, copy);
      }
    }
    String codec = meta.containsKey("avro.codec") ? new String(meta.get("avro.codec"), StandardCharsets.UTF_8) : "null";
    if (!codec.equals("null") && !codec.equals("deflate")) {
      return withAvroReader(bytes);
    }
    in.skipFixed(16); // sync marker
    if (in.isEnd() || in.readLong() == 0) {
      return NODES.objectNode();
    }
    ByteBuffer block = in.readBytes(null);
    byte[] data = new byte[block.remaining()];
    block.get(data);
    if (codec.equals("deflate")) {
      data = inflate(data);
    }
    OrderedMapReader reader = new OrderedMapReader();
    reader.setSchema(schema(new String(meta.get("avro.schema"), StandardCharsets.UTF_8)));
    return toJson(reader.read(null, DecoderFactory.get().binaryDecoder(data, null)));
  }

  private static Schema schema(String text) {
    if (SCHEMAS.size() > 64) {
      SCHEMAS.clear(); // a handful of schemas in practice; bounded all the same
    }
    return SCHEMAS.computeIfAbsent(text, t -> new Schema.Parser().parse(t));
  }

  private static byte[] inflate(byte[] data) throws IOException {
    Inflater inflater = new Inflater(true); // Avro's deflate codec writes raw deflate
    try (InflaterInputStream in = new InflaterInputStream(new ByteArrayInputStream(data), inflater)) {
      return in.readAllBytes();
    } finally {
      inflater.end();
    }
  }

  private static JsonNode withAvroReader(byte[] bytes) throws IOException {
    try (
      DataFileStream<GenericRecord> in = new DataFileStream<>(new ByteArrayInputStream(bytes), new OrderedMapReader())
    ) {
      return in.hasNext() ? toJson(in.next()) : NODES.objectNode();
    }
  }

  /** Keeps Avro maps (partition -> stats) in file order, so results do not depend on hashing. */
  private static final class OrderedMapReader extends GenericDatumReader<GenericRecord> {

    @Override
    protected Object newMap(Object old, int size) {
      return new LinkedHashMap<>(Math.max(16, size * 2));
    }
  }

  /** Avro generic value to a Jackson node; unions are already resolved by the reader. */
  static JsonNode toJson(Object value) {
    if (value == null) {
      return NODES.nullNode();
    }
    if (value instanceof IndexedRecord record) {
      ObjectNode node = NODES.objectNode();
      for (Schema.Field field : record.getSchema().getFields()) {
        node.set(field.name(), toJson(record.get(field.pos())));
      }
      return node;
    }
    if (value instanceof Map<?, ?> map) {
      ObjectNode node = NODES.objectNode();
      map.forEach((k, v) -> node.set(k.toString(), toJson(v)));
      return node;
    }
    if (value instanceof Collection<?> items) {
      ArrayNode node = NODES.arrayNode();
      items.forEach(item -> node.add(toJson(item)));
      return node;
    }
    return scalar(value);
  }

  private static JsonNode scalar(Object value) {
    if (value instanceof Integer i) {
      return NODES.numberNode(i);
    } else if (value instanceof Long l) {
      return NODES.numberNode(l);
    } else if (value instanceof Float f) {
      return NODES.numberNode(f);
    } else if (value instanceof Double d) {
      return NODES.numberNode(d);
    } else if (value instanceof Boolean b) {
      return NODES.booleanNode(b);
    } else if (value instanceof ByteBuffer buf) {
      byte[] copy = new byte[buf.remaining()];
      buf.duplicate().get(copy);
      return NODES.binaryNode(copy);
    } else if (value instanceof GenericFixed fixed) {
      return NODES.binaryNode(fixed.bytes());
    }
    return NODES.textNode(value.toString()); // CharSequence, enum symbols
  }
}
