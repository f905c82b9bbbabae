package io.hudimeta.table;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.avro.Schema;
import org.apache.avro.file.DataFileStream;
import org.apache.avro.generic.GenericDatumReader;
import org.apache.avro.generic.GenericFixed;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.generic.IndexedRecord;

/**
 * Decodes the bytes of an instant file into one JSON tree, whatever its encoding: layout-2 files
 * and all plans are Avro object container files, layout-1 commit metadata is Jackson JSON, and many
 * requested/inflight files are empty. The encoding is told by the Avro magic, not by the layout.
 */
final class InstantContent {

  static final ObjectMapper JSON = new ObjectMapper();
  private static final JsonNodeFactory NODES = JsonNodeFactory.instance;
  private static final byte[] AVRO_MAGIC = { 'O', 'b', 'j', 1 };

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

  private static JsonNode fromAvroContainer(byte[] bytes) throws IOException {
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
