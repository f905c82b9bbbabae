package io.hudimeta.write;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;

/**
 * The record-key bloom filter of a base file's footer, as Hudi writes it (the same bits and bytes as
 * pyhudi.basefile.bloom): SIMPLE is one Hadoop {@code BloomFilter} bit vector; DYNAMIC_V0 is Hudi's
 * HoodieDynamicBoundedBloomFilter, rows of that vector, a new row every {@code numEntries} keys until
 * {@code maxEntries} are covered, then keys round-robin over the rows. A key's bit positions are Hadoop's: h0 = 0,
 * h(i+1) = MurmurHash2(key, seed h(i)) with Hadoop's tail, position |h rem vectorSize|. Hashed here rather than
 * through Hadoop's classes, which cost a quarter of a bulk load: the seed-independent mixing of the key's words
 * is done once per key, not once per hash, and no objects are made per key.
 */
final class KeyBloomFilter {

  static final String SIMPLE = "SIMPLE";
  static final String DYNAMIC_V0 = "DYNAMIC_V0";
  private static final int VERSION = -1; // Hadoop Filter's serialization version
  private static final byte MURMUR_HASH = 1; // Hadoop Hash.MURMUR_HASH
  private static final int M = 0x5bd1e995;

  private final String type;
  private final int vectorSize;
  private final int nbHash;
  private final int rowEntries;
  private final int maxEntries;
  private final List<long[]> rows = new ArrayList<>();
  private int inRow; // keys added to the current row (Hudi's currentNbRecord)
  private boolean reachedMax;
  private int roundRobin;
  private int[] words = new int[16]; // the key's mixed 4-byte words, reused

  KeyBloomFilter(String type, int numEntries, double fpp, int maxEntries) {
    if (!SIMPLE.equals(type) && !DYNAMIC_V0.equals(type)) {
      throw new IllegalArgumentException(
        "hoodie.bloom.index.filter.type must be SIMPLE or DYNAMIC_V0, not '" + type + "'"
      );
    }
    this.type = type;
    // BloomFilterUtils' sizing
    this.vectorSize = (int) Math.ceil(numEntries * (-Math.log(fpp) / (Math.log(2) * Math.log(2))));
    this.nbHash = (int) Math.ceil((Math.log(2) * vectorSize) / numEntries);
    this.rowEntries = numEntries;
    this.maxEntries = maxEntries;
    rows.add(newRow());
  }

  String type() {
    return type;
  }

  private long[] newRow() {
    return new long[(vectorSize + 63) >>> 6];
  }

  /** Adds the key whose UTF-8 bytes are {@code key[off, off + n)}. */
  void add(byte[] key, int off, int n) {
    long[] row = rowFor();
    int nb = n >>> 2;
    if (words.length < nb) {
      words = new int[nb * 2];
    }
    ByteBuffer le = ByteBuffer.wrap(key).order(ByteOrder.LITTLE_ENDIAN);
    for (int i = 0; i < nb; i++) {
      int k = le.getInt(off + (i << 2)) * M;
      k ^= k >>> 24;
      words[i] = k * M;
    }
    int left = n - (nb << 2);
    int end = off + n;
    int tail = 0; // Hadoop's tail: the last bytes counted from the end, sign-extended
    if (left >= 3) {
      tail ^= key[end - 3] << 16;
    }
    if (left >= 2) {
      tail ^= key[end - 2] << 8;
    }
    if (left >= 1) {
      tail ^= key[end - 1];
    }
    int h = 0;
    for (int i = 0; i < nbHash; i++) {
      h = murmur(nb, left, tail, n, h);
      int pos = Math.abs(h % vectorSize);
      row[pos >>> 6] |= 1L << pos;
    }
  }

  private int murmur(int nb, int left, int tail, int length, int seed) {
    int h = seed ^ length;
    for (int i = 0; i < nb; i++) {
      h = (h * M) ^ words[i];
    }
    if (left > 0) {
      h = (h ^ tail) * M;
    }
    h ^= h >>> 13;
    h *= M;
    return h ^ (h >>> 15);
  }

  /** The row the next key goes to, Hudi's InternalDynamicBloomFilter state advanced by one key. */
  private long[] rowFor() {
    if (SIMPLE.equals(type)) {
      return rows.get(0);
    }
    if (reachedMax) {
      inRow++;
      return rows.get(roundRobin++ % rows.size());
    }
    if (inRow >= rowEntries) {
      if ((long) rows.size() * rowEntries < maxEntries) {
        rows.add(newRow());
        inRow = 0;
      } else {
        reachedMax = true; // this key goes to row 0 without advancing the round-robin
        inRow++;
        return rows.get(0);
      }
    }
    inRow++;
    return rows.get(rows.size() - 1);
  }

  /** The Base64 text Hudi stores in the footer and in the metadata table. */
  String serialize() {
    int rowBytes = (vectorSize + 7) >>> 3;
    int header = 13;
    boolean dynamic = DYNAMIC_V0.equals(type);
    ByteBuffer out = ByteBuffer.allocate((dynamic ? header + 12 : 0) + rows.size() * (header + rowBytes));
    if (dynamic) {
      putHeader(out);
      out.putInt(rowEntries).putInt(inRow).putInt(rows.size());
    }
    for (long[] row : rows) {
      putHeader(out);
      // bit i in byte i >> 3 under mask 1 << (i & 7): the row's longs in little-endian byte order
      ByteBuffer bits = ByteBuffer.allocate(row.length * 8).order(ByteOrder.LITTLE_ENDIAN);
      bits.asLongBuffer().put(row);
      out.put(bits.array(), 0, rowBytes);
    }
    return Base64.getEncoder().encodeToString(out.array());
  }

  private void putHeader(ByteBuffer out) {
    out.putInt(VERSION).putInt(nbHash).put(MURMUR_HASH).putInt(vectorSize);
  }
}
