package io.hudimeta.hfile;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.util.Arrays;
import java.util.zip.GZIPInputStream;

/**
 * Compression codecs in the order of their on-disk ordinals (trailer field 12).
 * Hudi writes GZ (the default) or NONE; the others are recognised only to name them in errors.
 */
public enum Codec {
  LZO,
  GZ,
  NONE,
  SNAPPY,
  LZ4,
  BZIP2,
  ZSTD;

  static Codec fromOrdinal(long ordinal, String source) throws CorruptHFileException {
    if (ordinal < 0 || ordinal >= values().length) {
      throw new CorruptHFileException("unknown compression codec ordinal " + ordinal + " in the trailer of " + source);
    }
    return values()[(int) ordinal];
  }

  /** Fails early (at open) for codecs this reader cannot decompress. */
  void requireSupported(String source) {
    if (this != GZ && this != NONE) {
      throw new UnsupportedOperationException(
        "HFile " + source + " is compressed with " + name() + "; only GZ and NONE are supported"
      );
    }
  }

  /** Decompresses one block payload; GZ payloads are single gzip members (RFC 1952). */
  byte[] decompress(byte[] buf, int off, int len, int uncompressedSize, String where) throws IOException {
    requireSupported(where);
    byte[] out =
      this == NONE ? Arrays.copyOfRange(buf, off, off + len) : gunzip(buf, off, len, uncompressedSize, where);
    if (out.length != uncompressedSize) {
      throw new CorruptHFileException(
        where + " decompresses to " + out.length + " bytes, header says " + uncompressedSize
      );
    }
    return out;
  }

  /** At most one byte more than the header promises: a corrupt stream cannot inflate without bound. */
  private static byte[] gunzip(byte[] buf, int off, int len, int expected, String where) throws CorruptHFileException {
    try (GZIPInputStream in = new GZIPInputStream(new ByteArrayInputStream(buf, off, len), 8192)) {
      return in.readNBytes(Math.max(expected, 0) + (expected < Integer.MAX_VALUE ? 1 : 0));
    } catch (IOException e) {
      throw new CorruptHFileException("cannot gunzip " + where + ": " + e.getMessage(), e);
    }
  }
}
