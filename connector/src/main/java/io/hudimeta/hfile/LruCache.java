package io.hudimeta.hfile;

import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.Map;

/** A small synchronized least-recently-used cache of decoded blocks, keyed by file offset. */
final class LruCache<V> {

  interface Loader<V> {
    V load() throws IOException;
  }

  private final Map<Long, V> entries;

  LruCache(int capacity) {
    this.entries = new LinkedHashMap<>(capacity * 2, 0.75f, true) {
      @Override
      protected boolean removeEldestEntry(Map.Entry<Long, V> eldest) {
        return size() > capacity;
      }
    };
  }

  synchronized V get(long offset, Loader<V> loader) throws IOException {
    V value = entries.get(offset);
    if (value == null) {
      value = loader.load();
      entries.put(offset, value);
    }
    return value;
  }
}
