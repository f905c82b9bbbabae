package io.hudimeta.hfile;

/**
 * Run in a JVM of a small heap by the block-cache tests: loads far more 1 MB blocks through the shared cache
 * than the heap can hold and prints "loaded=N softly=M hits=H" (hits: the last three blocks asked for again).
 * With the soft tier the JVM drops softly held blocks and goes on; blocks held strongly run it out of memory.
 *
 * <p>Arguments: blocks to load, the value of {@link BlockCache#SIZE}, the value of {@link BlockCache#SOFT}.
 */
public final class CacheUnderPressure {

  private CacheUnderPressure() {}

  public static void main(String[] args) throws Exception {
    int blocks = Integer.parseInt(args[0]);
    BlockCache cache = BlockCache.shared();
    cache.configure(
      key ->
        switch (key) {
          case BlockCache.SIZE -> args[1];
          case BlockCache.SOFT -> args[2];
          default -> null;
        }
    );
    for (int i = 0; i < blocks; i++) {
      load(cache, i);
    }
    long hits = cache.hits();
    for (int i = blocks - 3; i < blocks; i++) {
      load(cache, i);
    }
    System.out.println("loaded=" + blocks + " softly=" + cache.softlyHeld() + " hits=" + (cache.hits() - hits));
  }

  private static void load(BlockCache cache, int i) throws Exception {
    cache.get(new BlockCache.Key("f", 1, 1, i), () -> DataBlock.parse(oneCell(1 << 20), false, false, "test block"));
  }

  /** A payload of one cell (row "r", empty family and qualifier) whose value has {@code valueLength} bytes. */
  private static byte[] oneCell(int valueLength) {
    int keyLength = 2 + 1 + 1 + 8 + 1;
    byte[] p = new byte[8 + keyLength + valueLength];
    java.nio.ByteBuffer b = java.nio.ByteBuffer.wrap(p);
    b.putInt(keyLength)
      .putInt(valueLength)
      .putShort((short) 1)
      .put((byte) 'r')
      .put((byte) 0)
      .putLong(0)
      .put((byte) 4);
    return p;
  }
}
