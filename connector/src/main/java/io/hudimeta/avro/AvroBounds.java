package io.hudimeta.avro;

import java.io.IOException;
import java.util.Arrays;
import java.util.IdentityHashMap;
import java.util.Map;
import org.apache.avro.Schema;

/**
 * Bounds-checked reading of Avro binary, for bytes that may be corrupt. Avro's own decoder allocates
 * a string, bytes value or array from a length read off the data before it knows the bytes are there,
 * so one flipped bit can ask for gigabytes. {@link Input#skipDatum} walks a datum under its writer
 * schema without allocating, checking every length and item count against the bytes that remain;
 * after it passes, Avro's decoder reads the same bytes safely.
 */
public final class AvroBounds {

  /** Deeper nesting than any schema Hudi writes; a corrupt recursive union could go on forever. */
  private static final int MAX_DEPTH = 512;
  /** Items of a type that takes no bytes (null, empty record) cannot be bounded by the data. */
  private static final long MAX_EMPTY_ITEMS = 1 << 16;

  private AvroBounds() {}

  /** The bytes are not a valid encoding: a length, count or index that cannot be right. */
  public static final class MalformedAvroException extends IOException {

    private static final long serialVersionUID = 1L;

    MalformedAvroException(String message) {
      super(message);
    }
  }

  /** Throws unless {@code buf[off, off+len)} holds exactly one datum of {@code schema}. */
  public static void checkDatum(Schema schema, byte[] buf, int off, int len) throws MalformedAvroException {
    Input in = new Input(buf, off, len);
    in.skipDatum(schema);
    if (!in.atEnd()) {
      throw new MalformedAvroException(in.remaining() + " bytes after the datum that its schema does not read");
    }
  }

  /** A cursor over {@code buf[off, off+len)} whose every read is checked against the end. */
  public static final class Input {

    private final byte[] buf;
    private final int end;
    private int pos;
    private final Map<Schema, Integer> minSizes = new IdentityHashMap<>();

    public Input(byte[] buf, int off, int len) {
      if (off < 0 || len < 0 || off > buf.length - len) {
        throw new IllegalArgumentException("range " + off + "+" + len + " outside " + buf.length + " bytes");
      }
      this.buf = buf;
      this.pos = off;
      this.end = off + len;
    }

    public int position() {
      return pos;
    }

    public int remaining() {
      return end - pos;
    }

    public boolean atEnd() {
      return pos == end;
    }

    /** An Avro int or long: zig-zag varint of at most 10 bytes. */
    public long readLong() throws MalformedAvroException {
      long raw = 0;
      for (int shift = 0; shift < 70; shift += 7) {
        if (pos >= end) {
          throw new MalformedAvroException("varint cut off at offset " + pos);
        }
        byte b = buf[pos++];
        raw |= (long) (b & 0x7F) << shift;
        if (b >= 0) {
          return (raw >>> 1) ^ -(raw & 1);
        }
      }
      throw new MalformedAvroException("varint longer than 10 bytes before offset " + pos);
    }

    /** A length-prefixed bytes or string value. */
    public byte[] readBytes() throws MalformedAvroException {
      int len = length(readLong(), "bytes");
      byte[] out = Arrays.copyOfRange(buf, pos, pos + len);
      pos += len;
      return out;
    }

    public byte[] readFixed(int len) throws MalformedAvroException {
      int n = length(len, "fixed");
      byte[] out = Arrays.copyOfRange(buf, pos, pos + n);
      pos += n;
      return out;
    }

    private int length(long len, String what) throws MalformedAvroException {
      if (len < 0 || len > end - pos) {
        throw new MalformedAvroException(
          what + " length " + len + " at offset " + pos + " exceeds the " + (end - pos) + " bytes left"
        );
      }
      return (int) len;
    }

    private void skip(long len, String what) throws MalformedAvroException {
      pos += length(len, what);
    }

    /** Skips one datum of {@code schema}, checking it fits. */
    public void skipDatum(Schema schema) throws MalformedAvroException {
      skip(schema, 0);
    }

    private void skip(Schema s, int depth) throws MalformedAvroException {
      if (depth > MAX_DEPTH) {
        throw new MalformedAvroException("datum nested deeper than " + MAX_DEPTH + " levels at offset " + pos);
      }
      switch (s.getType()) {
        case NULL -> {
        }
        case BOOLEAN -> skip(1, "boolean");
        case INT, LONG -> readLong();
        case FLOAT -> skip(4, "float");
        case DOUBLE -> skip(8, "double");
        case BYTES, STRING -> skip(readLong(), s.getType().getName());
        case FIXED -> skip(s.getFixedSize(), "fixed");
        case ENUM -> index(s.getEnumSymbols().size(), "enum symbol");
        case UNION -> skip(s.getTypes().get(index(s.getTypes().size(), "union branch")), depth + 1);
        case RECORD -> {
          for (Schema.Field f : s.getFields()) {
            skip(f.schema(), depth + 1);
          }
        }
        case ARRAY -> skipItems(s.getElementType(), false, depth);
        case MAP -> skipItems(s.getValueType(), true, depth);
        default -> throw new MalformedAvroException("unknown Avro type " + s.getType());
      }
    }

    private int index(int size, String what) throws MalformedAvroException {
      int at = pos;
      long i = readLong();
      if (i < 0 || i >= size) {
        throw new MalformedAvroException(what + " " + i + " at offset " + at + " is not one of " + size);
      }
      return (int) i;
    }

    /** Array/map blocks: count (negative: followed by the block's byte size), items, until count 0. */
    private void skipItems(Schema item, boolean map, int depth) throws MalformedAvroException {
      long itemMin = (map ? 1 : 0) + minSize(item);
      for (long count = readLong(); count != 0; count = readLong()) {
        int at = pos;
        if (count < 0) {
          count = -count; // Long.MIN_VALUE stays negative and fails below
          length(readLong(), "array block");
        }
        if (count < 0 || (itemMin > 0 ? count > (end - pos) / itemMin : count > MAX_EMPTY_ITEMS)) {
          throw new MalformedAvroException("item count " + count + " at offset " + at + " cannot fit the bytes left");
        }
        for (long i = 0; i < count; i++) {
          if (map) {
            skip(readLong(), "map key");
          }
          skip(item, depth + 1);
        }
      }
    }

    /** Fewest bytes a datum of the schema takes (recursive references count as 0). */
    private long minSize(Schema s) {
      Integer known = minSizes.get(s);
      if (known != null) {
        return known;
      }
      minSizes.put(s, 0);
      long size = switch (s.getType()) {
        case NULL -> 0;
        case FLOAT -> 4;
        case DOUBLE -> 8;
        case FIXED -> s.getFixedSize();
        case RECORD -> {
          long sum = 0;
          for (Schema.Field f : s.getFields()) {
            sum += minSize(f.schema());
          }
          yield sum;
        }
        default -> 1; // varints, lengths, union branches, block counts
      };
      minSizes.put(s, (int) Math.min(size, Integer.MAX_VALUE));
      return size;
    }
  }
}
