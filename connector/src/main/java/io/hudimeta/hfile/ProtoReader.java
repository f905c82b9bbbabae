package io.hudimeta.hfile;

import java.util.Arrays;

/**
 * Minimal protobuf wire-format reader, enough for the HFile trailer and file-info messages
 * (varints and length-delimited fields; fixed-width fields are skipped).
 */
final class ProtoReader {

  static final int VARINT = 0;
  static final int FIXED64 = 1;
  static final int LENGTH_DELIMITED = 2;
  static final int FIXED32 = 5;

  private final byte[] buf;
  private final int end;
  private final String where;
  private int pos;

  ProtoReader(byte[] buf, int start, int end, String where) {
    this.buf = buf;
    this.pos = start;
    this.end = end;
    this.where = where;
  }

  boolean hasMore() {
    return pos < end;
  }

  int position() {
    return pos;
  }

  /** Reads a field key; returns it as (fieldNumber << 3 | wireType). */
  int readTag() throws CorruptHFileException {
    return (int) readVarint();
  }

  long readVarint() throws CorruptHFileException {
    long value = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      if (pos >= end) {
        throw new CorruptHFileException("truncated protobuf varint in " + where);
      }
      byte b = buf[pos++];
      value |= (long) (b & 0x7F) << shift;
      if (b >= 0) {
        return value;
      }
    }
    throw new CorruptHFileException("protobuf varint longer than 10 bytes in " + where);
  }

  byte[] readBytes() throws CorruptHFileException {
    int len = lengthPrefix();
    byte[] out = Arrays.copyOfRange(buf, pos, pos + len);
    pos += len;
    return out;
  }

  /** Reads a length prefix and returns it after checking the bytes are there. */
  int lengthPrefix() throws CorruptHFileException {
    long len = readVarint();
    if (len < 0 || len > end - pos) {
      throw new CorruptHFileException("protobuf length " + len + " overruns the message in " + where);
    }
    return (int) len;
  }

  void skip(int wireType) throws CorruptHFileException {
    switch (wireType) {
      case VARINT -> readVarint();
      case FIXED64 -> pos += 8;
      case LENGTH_DELIMITED -> pos += lengthPrefix();
      case FIXED32 -> pos += 4;
      default -> throw new CorruptHFileException("unsupported protobuf wire type " + wireType + " in " + where);
    }
    if (pos > end) {
      throw new CorruptHFileException("truncated protobuf field in " + where);
    }
  }
}
