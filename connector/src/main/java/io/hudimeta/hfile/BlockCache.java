package io.hudimeta.hfile;

import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.UnaryOperator;

/**
 * The process-wide cache of decoded HFile data blocks (Apache Hudi 1.1's HFile block cache, with its
 * option keys): a block read once is not read, gunzipped and split into cells again by later readers
 * of the same file in this JVM, the driver or an executor. A batched record-index lookup touches most
 * data blocks of the index, so without it every lookup inflates the whole index again.
 *
 * <p>Least recently used blocks go first once {@value #SIZE} blocks are held; blocks expire
 * {@value #TTL_MINUTES} minutes after they were read. Keys name the file by path, length and
 * modification time, so a file written again under the same name is never served stale blocks.
 * Loads run outside the lock: tasks reading different files in parallel do not wait for each other.
 */
public final class BlockCache {

  public static final String ENABLED = "hoodie.hfile.block.cache.enabled";
  public static final String SIZE = "hoodie.hfile.block.cache.size";
  public static final String TTL_MINUTES = "hoodie.hfile.block.cache.ttl.minutes";
  static final int DEFAULT_SIZE = 100;
  static final int DEFAULT_TTL_MINUTES = 60;

  private static final BlockCache GLOBAL = new BlockCache();

  /** One data block of one version of a file. */
  record Key(String path, long length, long modified, long offset) {}

  private record Entry(DataBlock block, long loadedNanos) {}

  private volatile boolean enabled = true;
  private volatile int capacity = DEFAULT_SIZE;
  private volatile long ttlNanos = TimeUnit.MINUTES.toNanos(DEFAULT_TTL_MINUTES);
  private final AtomicLong hits = new AtomicLong();
  private final AtomicLong misses = new AtomicLong();
  private final LinkedHashMap<Key, Entry> entries = new LinkedHashMap<>(256, 0.75f, true) {
    @Override
    protected boolean removeEldestEntry(Map.Entry<Key, Entry> eldest) {
      return size() > capacity;
    }
  };

  private BlockCache() {}

  public static BlockCache shared() {
    return GLOBAL;
  }

  /**
   * Applies the cache options that {@code settings} gives (a read or write option map, a Hadoop
   * configuration's {@code get}); options it does not give keep their current value. The cache is
   * one per JVM, so the last value set applies to every reader of the process.
   *
   * @throws IllegalArgumentException naming the option when a value is not a number or out of range
   */
  public void configure(UnaryOperator<String> settings) {
    String on = settings.apply(ENABLED);
    String size = settings.apply(SIZE);
    String ttl = settings.apply(TTL_MINUTES);
    // every value parsed before any is applied: a bad one leaves the cache as it was
    Boolean enable = on == null ? null : bool(ENABLED, on);
    Integer blocks = size == null ? null : positive(SIZE, size);
    Integer minutes = ttl == null ? null : positive(TTL_MINUTES, ttl);
    if (enable != null) {
      enabled = enable;
    }
    if (blocks != null) {
      synchronized (this) {
        capacity = blocks;
        shrinkTo(blocks);
      }
    }
    if (minutes != null) {
      ttlNanos = TimeUnit.MINUTES.toNanos(minutes);
    }
  }

  public boolean enabled() {
    return enabled;
  }

  /** Blocks served from the cache since the JVM started (for tests and metrics). */
  public long hits() {
    return hits.get();
  }

  /** Blocks read from storage through the cache since the JVM started. */
  public long misses() {
    return misses.get();
  }

  /** Drops every cached block. */
  public synchronized void clear() {
    entries.clear();
  }

  DataBlock get(Key key, LruCache.Loader<DataBlock> loader) throws IOException {
    synchronized (this) {
      Entry cached = entries.get(key);
      if (cached != null && System.nanoTime() - cached.loadedNanos() < ttlNanos) {
        hits.incrementAndGet();
        return cached.block();
      }
    }
    misses.incrementAndGet();
    DataBlock block = loader.load();
    synchronized (this) {
      entries.put(key, new Entry(block, System.nanoTime()));
    }
    return block;
  }

  private void shrinkTo(int size) {
    var it = entries.entrySet().iterator();
    while (entries.size() > size && it.hasNext()) {
      it.next();
      it.remove();
    }
  }

  private static boolean bool(String key, String value) {
    String v = value.trim();
    if (!v.equalsIgnoreCase("true") && !v.equalsIgnoreCase("false")) {
      throw new IllegalArgumentException(key + " must be true or false, got '" + value + "'");
    }
    return Boolean.parseBoolean(v);
  }

  private static int positive(String key, String value) {
    int n;
    try {
      n = Integer.parseInt(value.trim());
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(key + " must be a whole number, got '" + value + "'", e);
    }
    if (n < 1) {
      throw new IllegalArgumentException(
        key + " must be at least 1, got " + n + " (set " + ENABLED + "=false to turn the cache off)"
      );
    }
    return n;
  }
}
