package io.hudimeta.table;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.hudimeta.avro.AvroBounds;
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
  private static final int SYNC_SIZE = 16;
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
   * The first record of the container, its writer schema parsed once per schema text: Avro's own
   * container reader parses the schema and builds a new resolver for every file, ~10 ms per instant
   * file, most of what a synced view pays for a new commit. Every length is checked against the bytes
   * left before anything is allocated (a corrupt file must fail, not exhaust the heap), and the
   * block must end in the header's sync marker.
   */
  private static JsonNode fromAvroContainer(byte[] bytes) throws IOException {
    AvroBounds.Input in = new AvroBounds.Input(bytes, AVRO_MAGIC.length, bytes.length - AVRO_MAGIC.length);
    Map<String, byte[]> meta = new HashMap<>();
    for (long n = in.readLong(); n != 0; n = in.readLong()) {
      if (n < 0) {
        n = -n;
        in.readLong(); // byte size of the map block
      }
      for (long i = 0; i < n; i++) {
        meta.put(new String(in.readBytes(), StandardCharsets.UTF_8), in.readBytes());
      }
    }
    byte[] sync = in.readFixed(SYNC_SIZE);
    if (in.atEnd()) {
      // Hudi writes an instant's container in one go, with its one record
      throw new IOException("the container ends after its header, without the block holding the record");
    }
    long count = in.readLong();
    byte[] data = in.readBytes();
    if (count < 0 || !Arrays.equals(in.readFixed(SYNC_SIZE), sync)) {
      throw new IOException("the first data block (" + count + " records) does not end in the file's sync marker");
    }
    if (count == 0) {
      // Avro's writer never flushes an empty block
      throw new IOException("the first data block holds no record");
    }
    byte[] schemaText = meta.get("avro.schema");
    if (schemaText == null) {
      throw new IOException("no avro.schema in the container header");
    }
    byte[] codec = meta.get("avro.codec");
    data = decompress(codec == null ? "null" : new String(codec, StandardCharsets.UTF_8), data, bytes);
    Schema schema = schema(new String(schemaText, StandardCharsets.UTF_8));
    AvroBounds.Input record = new AvroBounds.Input(data, 0, data.length);
    record.skipDatum(schema); // lengths in the data, checked before Avro allocates them
    if (count == 1 && !record.atEnd()) {
      throw new IOException(record.remaining() + " bytes after the one record of the data block");
    }
    OrderedMapReader reader = new OrderedMapReader();
    reader.setSchema(schema);
    return toJson(reader.read(null, DecoderFactory.get().binaryDecoder(data, null)));
  }

  private static Schema schema(String text) {
    if (SCHEMAS.size() > 64) {
      SCHEMAS.clear(); // a handful of schemas in practice; bounded all the same
    }
    return SCHEMAS.computeIfAbsent(text, t -> new Schema.Parser().parse(t));
  }

  /** The first block's data; {@code file} is the whole container, its header and block already checked. */
  private static byte[] decompress(String codec, byte[] data, byte[] file) throws IOException {
    return switch (codec) {
      case "null" -> data;
      case "deflate" -> inflate(data);
      default -> {
        // never written by Hudi: Avro's own codecs (an unknown name fails here)
        try (
          DataFileStream<Object> in = new DataFileStream<>(new ByteArrayInputStream(file), new GenericDatumReader<>())
        ) {
          ByteBuffer out = in.nextBlock();
          byte[] copy = new byte[out.remaining()];
          out.get(copy);
          yield copy;
        }
      }
    };
  }

  private static byte[] inflate(byte[] data) throws IOException {
    Inflater inflater = new Inflater(true); // Avro's deflate codec writes raw deflate
    try (InflaterInputStream in = new InflaterInputStream(new ByteArrayInputStream(data), inflater)) {
      return in.readAllBytes();
    } finally {
      inflater.end();
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
