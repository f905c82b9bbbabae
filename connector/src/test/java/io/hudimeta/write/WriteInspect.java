package io.hudimeta.write;

/** Test access to the row writer's package-private parts. */
public final class WriteInspect {

  private WriteInspect() {}

  /** The serialized {@link KeyBloomFilter} of {@code keys} (UTF-8), added in order. */
  public static String bloom(String type, int entries, double fpp, int maxEntries, java.util.List<String> keys) {
    KeyBloomFilter filter = new KeyBloomFilter(type, entries, fpp, maxEntries);
    for (String key : keys) {
      byte[] bytes = ("@" + key).getBytes(java.nio.charset.StandardCharsets.UTF_8);
      filter.add(bytes, 1, bytes.length - 1); // at an offset, as keys inside a row's buffer are
    }
    return filter.serialize();
  }
}
