package io.hudimeta.hfile;

import java.io.IOException;
import java.util.Arrays;
import java.util.zip.CRC32;
import java.util.zip.DataFormatException;
import java.util.zip.Inflater;

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

  /** Deflate's largest expansion: a 258-byte match in every 2 bits or so (zlib's documentation: 1032:1). */
  private static final int MAX_DEFLATE_RATIO = 1032;

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

  /**
   * Inflates the gzip members of a payload (one, as HBase and Hudi write; RFC 1952 allows several) straight
   * into an array of the size the block header gives (no stream, no chunk copies: a record-index lookup
   * inflates hundreds of 1 MB blocks), checking each member's CRC-32 and length. A payload that inflates to
   * more or less than promised is corrupt.
   */
  private static byte[] gunzip(byte[] buf, int off, int len, int expected, String where) throws CorruptHFileException {
    if (expected < 0) {
      throw new CorruptHFileException(where + " has a negative uncompressed size " + expected);
    }
    gzipHeaderLength(buf, off, len, where); // bytes that are no gzip stream are named so first
    // a size deflate cannot reach from these bytes is a corrupt header, refused before it is allocated
    if (expected > (long) len * MAX_DEFLATE_RATIO + 1024) {
      throw new CorruptHFileException(
        where +
          " claims " +
          expected +
          " uncompressed bytes from " +
          len +
          " gzip bytes, more than deflate can expand to"
      );
    }
    byte[] out = new byte[expected];
    int end = off + len;
    int pos = off;
    int n = 0;
    Inflater inflater = new Inflater(true);
    try {
      do {
        int data = pos + gzipHeaderLength(buf, pos, end - pos, where);
        inflater.reset();
        inflater.setInput(buf, data, end - data);
        int from = n;
        n = inflateMember(inflater, out, n, where);
        int trailer = data + (int) inflater.getBytesRead();
        if (trailer + 8 > end) {
          throw new CorruptHFileException("cannot gunzip " + where + ": the gzip stream is truncated");
        }
        CRC32 crc = new CRC32();
        crc.update(out, from, n - from);
        if (littleEndianInt(buf, trailer) != (int) crc.getValue() || littleEndianInt(buf, trailer + 4) != n - from) {
          throw new CorruptHFileException("cannot gunzip " + where + ": CRC-32 or length of the gzip trailer mismatch");
        }
        pos = trailer + 8;
      } while (n < expected && pos < end);
      if (n < expected) {
        throw new CorruptHFileException(where + " decompresses to " + n + " bytes, header says " + expected);
      }
      if (end - pos >= 2 && (buf[pos] & 0xff) == 0x1f && (buf[pos + 1] & 0xff) == 0x8b) {
        throw tooLong(where, expected);
      }
      return out;
    } catch (DataFormatException e) {
      throw new CorruptHFileException("cannot gunzip " + where + ": " + e.getMessage(), e);
    } finally {
      inflater.end();
    }
  }

  /** Inflates one member into out from n until it ends; the new fill of out. */
  private static int inflateMember(Inflater inflater, byte[] out, int n, String where)
    throws DataFormatException, CorruptHFileException {
    byte[] probe = new byte[1];
    while (!inflater.finished()) {
      boolean full = n == out.length;
      int k = full ? inflater.inflate(probe) : inflater.inflate(out, n, out.length - n);
      if (full && k > 0) {
        throw tooLong(where, out.length);
      }
      if (k == 0 && !inflater.finished() && (inflater.needsInput() || inflater.needsDictionary())) {
        throw new CorruptHFileException(where + " decompresses to " + n + " bytes, header says " + out.length);
      }
      n += k;
    }
    return n;
  }

  private static CorruptHFileException tooLong(String where, int expected) {
    return new CorruptHFileException(where + " decompresses to more than the " + expected + " bytes its header says");
  }

  private static final int FHCRC = 2;
  private static final int FEXTRA = 4;
  private static final int FNAME = 8;
  private static final int FCOMMENT = 16;

  /** Bytes of the gzip member header at off (RFC 1952 section 2.3: fixed 10 bytes, then the optional fields). */
  private static int gzipHeaderLength(byte[] buf, int off, int len, String where) throws CorruptHFileException {
    if (len < 18 || (buf[off] & 0xff) != 0x1f || (buf[off + 1] & 0xff) != 0x8b || buf[off + 2] != 8) {
      throw new CorruptHFileException("cannot gunzip " + where + ": not a gzip (deflate) member");
    }
    int flags = buf[off + 3] & 0xff;
    int pos = off + 10;
    try {
      if ((flags & FEXTRA) != 0) {
        pos += 2 + ((buf[pos] & 0xff) | ((buf[pos + 1] & 0xff) << 8));
      }
      for (int zeroTerminated : new int[] { FNAME, FCOMMENT }) {
        if ((flags & zeroTerminated) != 0) {
          while (buf[pos++] != 0) {
            // skip the field
          }
        }
      }
      if ((flags & FHCRC) != 0) {
        pos += 2;
      }
    } catch (ArrayIndexOutOfBoundsException e) {
      throw new CorruptHFileException("cannot gunzip " + where + ": truncated gzip header", e);
    }
    if (pos > off + len) {
      throw new CorruptHFileException("cannot gunzip " + where + ": truncated gzip header");
    }
    return pos - off;
  }

  private static int littleEndianInt(byte[] buf, int pos) {
    return (
      (buf[pos] & 0xff) | ((buf[pos + 1] & 0xff) << 8) | ((buf[pos + 2] & 0xff) << 16) | ((buf[pos + 3] & 0xff) << 24)
    );
  }
}
