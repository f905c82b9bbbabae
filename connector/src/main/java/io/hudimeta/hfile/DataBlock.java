package io.hudimeta.hfile;

import java.io.IOException;
import java.util.Arrays;

/**
 * A decompressed data block split into cells. Cell layout: {@code int32 keyLen | int32 valueLen |
 * key (int16 rowLen | row | family | qualifier | int64 ts | int8 type) | value}, then optionally
 * {@code int16 tagsLen | tags} and a Hadoop VLong memstore timestamp.
 */
final class DataBlock {

  private final byte[] payload;
  /** Where each cell starts; its row and value are found from its own length fields when asked. */
  private final int[] cellStart;
  /**
   * Each cell's row head ({@link Bytes#head}): a search compares these first, so it walks one small
   * array instead of reading rows scattered over the block (up to 1 MB), a cache miss at every step.
   */
  private final long[] rowHead;

  private DataBlock(byte[] payload, int[] cellStart, long[] rowHead) {
    this.payload = payload;
    this.cellStart = cellStart;
    this.rowHead = rowHead;
  }

  /** Splits the payload; each row's head is taken as its cell is checked, while its bytes are in the CPU cache. */
  static DataBlock parse(byte[] p, boolean hasTags, boolean hasMemstoreTs, String where) throws CorruptHFileException {
    IntList starts = new IntList();
    long[] heads = new long[64];
    int pos = 0;
    try {
      while (pos < p.length) {
        int keyLen = Bytes.readInt(p, pos);
        int valueLen = Bytes.readInt(p, pos + 4);
        int rLen = Bytes.readUnsignedShort(p, pos + 8);
        if (keyLen < rLen + 2 || valueLen < 0 || (long) pos + 8 + keyLen + valueLen > p.length) {
          throw new CorruptHFileException("bad cell at payload offset " + pos + " of " + where);
        }
        if (starts.size == heads.length) {
          heads = Arrays.copyOf(heads, heads.length * 2);
        }
        heads[starts.size] = Bytes.head(p, pos + 10, rLen);
        starts.add(pos);
        pos += 8 + keyLen + valueLen;
        if (hasTags) {
          pos += 2 + Bytes.readUnsignedShort(p, pos);
        }
        if (hasMemstoreTs) {
          pos += Bytes.vlongSize(p[pos]);
        }
      }
    } catch (ArrayIndexOutOfBoundsException e) {
      throw new CorruptHFileException("truncated cell at payload offset " + pos + " of " + where, e);
    }
    if (pos != p.length) {
      throw new CorruptHFileException("last cell overruns the payload of " + where);
    }
    return new DataBlock(p, starts.toArray(), Arrays.copyOf(heads, starts.size));
  }

  int count() {
    return cellStart.length;
  }

  /** Index of the first cell whose row is >= row (count() if none). */
  int lowerBound(byte[] row) {
    return search(row, Bytes.head(row, 0, row.length), 0, count());
  }

  /**
   * {@link #lowerBound(byte[])} when every cell before {@code from} sorts before row (whose head is
   * {@code head}). Gallops from {@code from} first: sorted lookups land a few cells on, and the cells near it
   * are in the CPU cache where a search over the whole block (up to 1 MB) misses it at every step.
   */
  int lowerBound(byte[] row, long head, int from) {
    int lo = from;
    int hi = from;
    for (int step = 1; hi < count() && compareRow(hi, row, head) < 0; step <<= 1) {
      lo = hi + 1;
      hi = from + step;
    }
    hi = Math.min(hi, count());
    return search(row, head, lo, hi);
  }

  /** The first cell in [lo, hi) whose row (head {@code head}) is >= row (hi if none); cells before lo sort before row. */
  private int search(byte[] row, long head, int lo, int hi) {
    while (lo < hi) {
      int mid = (lo + hi) >>> 1;
      if (compareRow(mid, row, head) < 0) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    return lo;
  }

  /** {@link #compareRow(int, byte[])} given row's head: the rows are read only when the heads tie. */
  int compareRow(int i, byte[] row, long head) {
    int byHead = Long.compareUnsigned(rowHead[i], head);
    return byHead != 0 ? byHead : compareRow(i, row);
  }

  int compareRow(int i, byte[] row) {
    int start = cellStart[i];
    return Bytes.compare(payload, start + 10, Bytes.readUnsignedShort(payload, start + 8), row);
  }

  boolean rowStartsWith(int i, byte[] prefix) {
    int start = cellStart[i];
    return Bytes.startsWith(payload, start + 10, Bytes.readUnsignedShort(payload, start + 8), prefix);
  }

  Cell cell(int i) {
    int start = cellStart[i];
    int rowStart = start + 10;
    byte[] row = Arrays.copyOfRange(payload, rowStart, rowStart + Bytes.readUnsignedShort(payload, start + 8));
    int valueStart = start + 8 + Bytes.readInt(payload, start);
    byte[] value = Arrays.copyOfRange(payload, valueStart, valueStart + Bytes.readInt(payload, start + 4));
    return new Cell(row, value);
  }

  /** Hands cell i's value, in place, to the visitor as key {@code key}'s. */
  void visitValue(int i, int key, HFileReader.ValueVisitor visitor) throws IOException {
    int start = cellStart[i];
    visitor.value(key, payload, start + 8 + Bytes.readInt(payload, start), Bytes.readInt(payload, start + 4));
  }

  /** Growable int array, to avoid boxing while splitting a block. */
  private static final class IntList {

    private int[] items = new int[64];
    private int size;

    void add(int v) {
      if (size == items.length) {
        items = Arrays.copyOf(items, size * 2);
      }
      items[size++] = v;
    }

    int[] toArray() {
      return Arrays.copyOf(items, size);
    }
  }
}
