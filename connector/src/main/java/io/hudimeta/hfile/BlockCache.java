package io.hudimeta.hfile;

import java.io.IOException;
import java.lang.ref.Reference;
import java.lang.ref.ReferenceQueue;
import java.lang.ref.SoftReference;
import java.util.HashMap;
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
 * <p>Least recently used blocks leave the cache once {@value #SIZE} blocks are held (Hudi's count); with
 * {@value #SOFT} (pyhudi's, on by default) they are then held softly, so a later reader still finds them
 * while the heap has room: the JVM drops softly held blocks before it would run out of memory. A writer that
 * keeps running thus inflates its record index once, however many blocks the index has; the strongly held
 * count bounds what the cache keeps whatever the heap. Blocks expire {@value #TTL_MINUTES} minutes after
 * they were read. Keys name the file by path, length and modification time, so a file written again under
 * the same name is never served stale blocks. Loads run outside the lock: tasks reading different files in
 * parallel do not wait for each other.
 */
public final class BlockCache {

  public static final String ENABLED = "hoodie.hfile.block.cache.enabled";
  public static final String SIZE = "hoodie.hfile.block.cache.size";
  public static final String TTL_MINUTES = "hoodie.hfile.block.cache.ttl.minutes";
  public static final String SOFT = "pyhudi.hfile.block.cache.soft.enabled";
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
  private volatile boolean soft = true;
  private final LinkedHashMap<Key, Entry> entries = new LinkedHashMap<>(256, 0.75f, true) {
    @Override
    protected boolean removeEldestEntry(Map.Entry<Key, Entry> eldest) {
      if (size() <= capacity) {
        return false;
      }
      holdSoftly(eldest.getKey(), eldest.getValue());
      return true;
    }
  };
  /** Blocks past the count, while the JVM keeps them; their references come back on {@link #dropped} when it does not. */
  private final Map<Key, Held> softly = new HashMap<>();
  private final ReferenceQueue<Entry> dropped = new ReferenceQueue<>();

  /** A softly held block, knowing its key so that the map forgets it once the JVM drops the block. */
  private static final class Held extends SoftReference<Entry> {

    final Key key;

    Held(Key key, Entry entry, ReferenceQueue<Entry> queue) {
      super(entry, queue);
      this.key = key;
    }
  }

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
    String softValue = settings.apply(SOFT);
    // every value parsed before any is applied: a bad one leaves the cache as it was
    Boolean enable = on == null ? null : bool(ENABLED, on);
    Boolean keepSoft = softValue == null ? null : bool(SOFT, softValue);
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
    if (keepSoft != null) {
      synchronized (this) {
        soft = keepSoft;
        if (!keepSoft) {
          softly.clear();
        }
      }
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

  /** Blocks held softly now, past the count (for tests and metrics). */
  public synchronized int softlyHeld() {
    forgetDropped();
    return softly.size();
  }

  /** Drops every cached block. */
  public synchronized void clear() {
    entries.clear();
    softly.clear();
  }

  DataBlock get(Key key, LruCache.Loader<DataBlock> loader) throws IOException {
    synchronized (this) {
      forgetDropped();
      Entry cached = entries.get(key);
      if (cached == null) {
        Held held = softly.remove(key);
        cached = held == null ? null : held.get();
        if (cached != null) {
          entries.put(key, cached); // back among the strongly held: used again
        }
      }
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
      Map.Entry<Key, Entry> eldest = it.next();
      holdSoftly(eldest.getKey(), eldest.getValue());
      it.remove();
    }
  }

  private void holdSoftly(Key key, Entry entry) {
    if (soft) {
      softly.put(key, new Held(key, entry, dropped));
    }
  }

  /** Forgets the keys of blocks the JVM dropped. */
  private void forgetDropped() {
    for (Reference<? extends Entry> ref; (ref = dropped.poll()) != null; ) {
      Held held = (Held) ref;
      softly.remove(held.key, held);
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
