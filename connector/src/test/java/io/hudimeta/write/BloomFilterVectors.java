package io.hudimeta.write;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.ByteArrayInputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Base64;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.hadoop.util.bloom.BloomFilter;
import org.apache.hadoop.util.bloom.DynamicBloomFilter;
import org.apache.hadoop.util.bloom.Filter;
import org.apache.hadoop.util.bloom.Key;

/**
 * Runs a {@code bloom_filters} conformance case (tests/conformance/bloom_filters.json): the keys go through
 * the row writer's {@link KeyBloomFilter}, as into a base file's footer; the text is read back by Hadoop's
 * {@code BloomFilter} (SIMPLE) or {@code DynamicBloomFilter} (DYNAMIC_V0), the classes whose layout and hashing
 * Apache Hudi's InternalBloomFilter and InternalDynamicBloomFilter copy, to answer the probes.
 */
public final class BloomFilterVectors {

  private BloomFilterVectors() {}

  public static Map<String, Object> filter(JsonNode in) {
    String type = in.path("type").asText();
    KeyBloomFilter written = new KeyBloomFilter(
      type,
      in.path("numEntries").asInt(),
      in.path("fpp").asDouble(),
      in.path("maxEntries").asInt()
    );
    for (JsonNode key : in.path("keys")) {
      byte[] bytes = key.asText().getBytes(StandardCharsets.UTF_8);
      written.add(bytes, 0, bytes.length);
    }
    String text = written.serialize();
    Filter read = KeyBloomFilter.SIMPLE.equals(type) ? new BloomFilter() : new DynamicBloomFilter();
    Map<String, Object> out = new LinkedHashMap<>();
    try (DataInputStream data = new DataInputStream(new ByteArrayInputStream(Base64.getDecoder().decode(text)))) {
      read.readFields(data);
      out.put("serialized", text.length() <= 200 ? text : null);
      out.put(
        "sha256",
        HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.US_ASCII)))
      );
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
    Map<String, Boolean> probes = new LinkedHashMap<>();
    for (JsonNode key : in.path("probe")) {
      probes.put(key.asText(), read.membershipTest(new Key(key.asText().getBytes(StandardCharsets.UTF_8))));
    }
    out.put("mightContain", probes);
    return out;
  }
}
