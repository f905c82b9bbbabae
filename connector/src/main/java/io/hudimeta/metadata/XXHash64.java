package io.hudimeta.metadata;

/**
 * The 64-bit xxHash (XXH64) of a byte range, as used by Hudi's metadata-table hash ids
 * (docs/format.md §7.5). Little-endian input words; 32-byte stripes over four accumulators, then
 * the 8-, 4- and 1-byte tail, then the avalanche.
 */
public final class XXHash64 {

  private static final long PRIME1 = 0x9E3779B185EBCA87L;
  private static final long PRIME2 = 0xC2B2AE3D27D4EB4FL;
  private static final long PRIME3 = 0x165667B19E3779F9L;
  private static final long PRIME4 = 0x85EBCA77C2B2AE63L;
  private static final long PRIME5 = 0x27D4EB2F165667C5L;

  private XXHash64() {}

  public static long hash(byte[] data, long seed) {
    return hash(data, 0, data.length, seed);
  }

  public static long hash(byte[] data, int offset, int length, long seed) {
    if (offset < 0 || length < 0 || offset + length > data.length) {
      throw new IndexOutOfBoundsException("range " + offset + "+" + length + " outside " + data.length + " bytes");
    }
    int pos = offset;
    int end = offset + length;
    long h;
    if (length >= 32) {
      long acc1 = seed + PRIME1 + PRIME2;
      long acc2 = seed + PRIME2;
      long acc3 = seed;
      long acc4 = seed - PRIME1;
      int lastStripe = end - 32;
      while (pos <= lastStripe) {
        acc1 = round(acc1, longLE(data, pos));
        acc2 = round(acc2, longLE(data, pos + 8));
        acc3 = round(acc3, longLE(data, pos + 16));
        acc4 = round(acc4, longLE(data, pos + 24));
        pos += 32;
      }
      h = Long.rotateLeft(acc1, 1) + Long.rotateLeft(acc2, 7) + Long.rotateLeft(acc3, 12) + Long.rotateLeft(acc4, 18);
      h = mergeAccumulator(h, acc1);
      h = mergeAccumulator(h, acc2);
      h = mergeAccumulator(h, acc3);
      h = mergeAccumulator(h, acc4);
    } else {
      h = seed + PRIME5;
    }
    h += length;
    while (pos + 8 <= end) {
      h ^= round(0, longLE(data, pos));
      h = Long.rotateLeft(h, 27) * PRIME1 + PRIME4;
      pos += 8;
    }
    if (pos + 4 <= end) {
      h ^= (intLE(data, pos) & 0xFFFFFFFFL) * PRIME1;
      h = Long.rotateLeft(h, 23) * PRIME2 + PRIME3;
      pos += 4;
    }
    while (pos < end) {
      h ^= (data[pos] & 0xFFL) * PRIME5;
      h = Long.rotateLeft(h, 11) * PRIME1;
      pos++;
    }
    h ^= h >>> 33;
    h *= PRIME2;
    h ^= h >>> 29;
    h *= PRIME3;
    h ^= h >>> 32;
    return h;
  }

  private static long round(long acc, long input) {
    acc += input * PRIME2;
    acc = Long.rotateLeft(acc, 31);
    return acc * PRIME1;
  }

  private static long mergeAccumulator(long h, long acc) {
    h ^= round(0, acc);
    return h * PRIME1 + PRIME4;
  }

  private static long longLE(byte[] b, int i) {
    return (
      (b[i] & 0xFFL) |
      ((b[i + 1] & 0xFFL) << 8) |
      ((b[i + 2] & 0xFFL) << 16) |
      ((b[i + 3] & 0xFFL) << 24) |
      ((b[i + 4] & 0xFFL) << 32) |
      ((b[i + 5] & 0xFFL) << 40) |
      ((b[i + 6] & 0xFFL) << 48) |
      ((b[i + 7] & 0xFFL) << 56)
    );
  }

  private static int intLE(byte[] b, int i) {
    return (b[i] & 0xFF) | ((b[i + 1] & 0xFF) << 8) | ((b[i + 2] & 0xFF) << 16) | ((b[i + 3] & 0xFF) << 24);
  }
}
