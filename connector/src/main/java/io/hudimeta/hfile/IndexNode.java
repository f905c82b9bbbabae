package io.hudimeta.hfile;

import java.util.Arrays;

/**
 * The entries of one index block: (block offset, on-disk size, key) per child block, in key order.
 * For the data index the key kept here is the row part of the stored key; for the meta index it is
 * the meta block name.
 */
final class IndexNode {

  private final long[] offsets;
  private final int[] sizes;
  private final byte[][] keys;

  private IndexNode(long[] offsets, int[] sizes, byte[][] keys) {
    this.offsets = offsets;
    this.sizes = sizes;
    this.keys = keys;
  }

  /**
   * Root index payload: count entries of {@code int64 offset | int32 size | VInt keyLen | key}, then
   * exactly {@code trailing} bytes (16 of mid-key metadata in a multi-level data index, else none), so
   * a corrupt count cannot silently drop or invent blocks.
   */
  static IndexNode parseRoot(byte[] p, long count, int trailing, boolean cellKeys, String where)
    throws CorruptHFileException {
    if (count < 0 || count > p.length / 13) {
      // an entry takes at least 13 bytes
      throw new CorruptHFileException(where + " cannot hold " + count + " entries in " + p.length + " bytes");
    }
    long[] offsets = new long[(int) count];
    int[] sizes = new int[(int) count];
    byte[][] keys = new byte[(int) count][];
    int pos = 0;
    try {
      for (int i = 0; i < count; i++) {
        offsets[i] = Bytes.readLong(p, pos);
        sizes[i] = Bytes.readInt(p, pos + 8);
        pos += 12;
        long keyLen = Bytes.readVLong(p, pos);
        pos += Bytes.vlongSize(p[pos]);
        if (keyLen < 0 || keyLen > p.length - pos) {
          throw new CorruptHFileException("index key length " + keyLen + " overruns " + where);
        }
        keys[i] = keyBytes(p, pos, (int) keyLen, cellKeys, where);
        pos += (int) keyLen;
      }
    } catch (ArrayIndexOutOfBoundsException e) {
      throw new CorruptHFileException(where + " is shorter than its " + count + " entries", e);
    }
    if (p.length - pos != trailing) {
      throw new CorruptHFileException(
        where + " holds " + (p.length - pos) + " bytes after its " + count + " entries, expected " + trailing
      );
    }
    return new IndexNode(offsets, sizes, keys);
  }

  /**
   * Leaf/intermediate payload: {@code int32 n}, {@code int32[n+1]} entry offsets relative to the
   * end of that array, then n entries of {@code int64 offset | int32 size | key}.
   */
  static IndexNode parseNonRoot(byte[] p, String where) throws CorruptHFileException {
    try {
      int n = Bytes.readInt(p, 0);
      if (n < 0 || 4L * ((long) n + 2) > p.length) {
        throw new CorruptHFileException("entry count " + n + " does not fit " + where);
      }
      int entriesStart = 4 * (n + 2);
      long[] offsets = new long[n];
      int[] sizes = new int[n];
      byte[][] keys = new byte[n][];
      for (int i = 0; i < n; i++) {
        int start = entriesStart + Bytes.readInt(p, 4 + 4 * i);
        int end = entriesStart + Bytes.readInt(p, 8 + 4 * i);
        if (start < entriesStart || end - start < 12 || end > p.length) {
          throw new CorruptHFileException("bad entry " + i + " in " + where);
        }
        offsets[i] = Bytes.readLong(p, start);
        sizes[i] = Bytes.readInt(p, start + 8);
        keys[i] = keyBytes(p, start + 12, end - start - 12, true, where);
      }
      return new IndexNode(offsets, sizes, keys);
    } catch (ArrayIndexOutOfBoundsException e) {
      throw new CorruptHFileException("truncated " + where, e);
    }
  }

  /**
   * Data index keys start with {@code int16 rowLength | row} in both flavours: HBase appends
   * family/qualifier/timestamp/type, Hudi's native writer stores the row only. Lookups compare rows.
   */
  private static byte[] keyBytes(byte[] p, int pos, int len, boolean cellKeys, String where)
    throws CorruptHFileException {
    if (!cellKeys) {
      return Arrays.copyOfRange(p, pos, pos + len);
    }
    if (len < 2 || Bytes.readUnsignedShort(p, pos) > len - 2) {
      throw new CorruptHFileException("index key of " + len + " bytes has a bad row length in " + where);
    }
    return Arrays.copyOfRange(p, pos + 2, pos + 2 + Bytes.readUnsignedShort(p, pos));
  }

  int size() {
    return keys.length;
  }

  long offset(int i) {
    return offsets[i];
  }

  int onDiskSize(int i) {
    return sizes[i];
  }

  byte[] key(int i) {
    return keys[i];
  }

  /**
   * Slot of the child where a search for row must start: the last entry whose key sorts strictly
   * before row, or 0. Strictly, because an index key is only a lower bound of its block (HBase
   * "fake" keys) and an equal key may have duplicates at the end of the previous block.
   */
  int startSlot(byte[] row) {
    int lo = 0;
    int hi = keys.length - 1;
    int found = 0;
    while (lo <= hi) {
      int mid = (lo + hi) >>> 1;
      if (Arrays.compareUnsigned(keys[mid], row) < 0) {
        found = mid;
        lo = mid + 1;
      } else {
        hi = mid - 1;
      }
    }
    return found;
  }

  /** Slot whose key equals name exactly, or -1. */
  int find(byte[] name) {
    for (int i = 0; i < keys.length; i++) {
      if (Arrays.equals(keys[i], name)) {
        return i;
      }
    }
    return -1;
  }
}
