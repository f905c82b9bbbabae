package io.hudimeta.hfile;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.Comparator;

/** Big-endian integer reads and unsigned byte comparisons shared by the parsers. */
final class Bytes {

  /** Unsigned lexicographic order of whole arrays: the order of HFile rows. */
  static final Comparator<byte[]> UNSIGNED = Arrays::compareUnsigned;

  private static final VarHandle LONG_BE = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.BIG_ENDIAN);

  private Bytes() {}

  static int readInt(byte[] b, int pos) {
    return ((b[pos] & 0xFF) << 24) | ((b[pos + 1] & 0xFF) << 16) | ((b[pos + 2] & 0xFF) << 8) | (b[pos + 3] & 0xFF);
  }

  static long readLong(byte[] b, int pos) {
    return ((long) readInt(b, pos) << 32) | (readInt(b, pos + 4) & 0xFFFFFFFFL);
  }

  static int readUnsignedShort(byte[] b, int pos) {
    return ((b[pos] & 0xFF) << 8) | (b[pos + 1] & 0xFF);
  }

  /** Total byte length (first byte included) of a Hadoop VInt/VLong starting with this byte. */
  static int vlongSize(byte first) {
    if (first >= -112) {
      return 1;
    }
    return first < -120 ? -119 - first : -111 - first;
  }

  /** Decodes a Hadoop VInt/VLong (WritableUtils encoding) at pos. */
  static long readVLong(byte[] b, int pos) {
    byte first = b[pos];
    int size = vlongSize(first);
    if (size == 1) {
      return first;
    }
    long magnitude = 0;
    for (int i = 1; i < size; i++) {
      magnitude = (magnitude << 8) | (b[pos + i] & 0xFF);
    }
    boolean negative = first < -120;
    return negative ? ~magnitude : magnitude;
  }

  /**
   * The first 8 bytes of a[off, off + len) as an unsigned big-endian long, zero-padded: heads that differ
   * order their byte strings as an unsigned comparison of the strings would; equal heads decide nothing.
   */
  static long head(byte[] a, int off, int len) {
    if (len >= 8) {
      return (long) LONG_BE.get(a, off);
    }
    long h = 0;
    for (int i = 0; i < 8; i++) {
      h = (h << 8) | (i < len ? a[off + i] & 0xFF : 0);
    }
    return h;
  }

  static int compare(byte[] a, int aOff, int aLen, byte[] b) {
    return Arrays.compareUnsigned(a, aOff, aOff + aLen, b, 0, b.length);
  }

  static boolean startsWith(byte[] a, int aOff, int aLen, byte[] prefix) {
    return aLen >= prefix.length && Arrays.equals(a, aOff, aOff + prefix.length, prefix, 0, prefix.length);
  }
}
