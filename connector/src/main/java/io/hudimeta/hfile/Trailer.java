package io.hudimeta.hfile;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * The fixed 4096-byte trailer at the end of an HFile v3: magic {@code TRABLK"$}, a varint-delimited
 * TrailerProto, zero padding, and a 4-byte version word {@code (minor << 24) | major}.
 */
public final class Trailer {

  static final int SIZE = 4096;
  private static final byte[] MAGIC = "TRABLK\"$".getBytes(StandardCharsets.US_ASCII);

  private long fileInfoOffset;
  private long loadOnOpenOffset;
  private long dataIndexCount;
  private long metaIndexCount;
  private long entryCount;
  private long dataIndexLevels = 1;
  private long firstDataBlockOffset = -1;
  private long lastDataBlockOffset = -1;
  private String comparatorClassName = "";
  private Codec codec = Codec.NONE;
  private int majorVersion;
  private int minorVersion;

  private Trailer() {}

  /** Parses the last {@link #SIZE} bytes of a file. */
  static Trailer parse(byte[] b, String source) throws CorruptHFileException {
    if (b.length != SIZE || !Arrays.equals(b, 0, MAGIC.length, MAGIC, 0, MAGIC.length)) {
      throw new CorruptHFileException(
        "not an HFile: " + source + " does not end with a 4096-byte trailer starting " + "with TRABLK\"$"
      );
    }
    Trailer t = new Trailer();
    int version = Bytes.readInt(b, SIZE - 4);
    t.majorVersion = version & 0x00FFFFFF;
    t.minorVersion = version >>> 24;
    if (t.majorVersion != 3) {
      throw new UnsupportedOperationException(
        "HFile " + source + " has major version " + t.majorVersion + "; only HFile v3 is supported"
      );
    }
    ProtoReader header = new ProtoReader(b, MAGIC.length, SIZE - 4, "trailer of " + source);
    int len = header.lengthPrefix();
    t.readFields(new ProtoReader(b, header.position(), header.position() + len, "trailer of " + source), source);
    t.codec.requireSupported(source);
    return t;
  }

  private void readFields(ProtoReader p, String source) throws CorruptHFileException {
    while (p.hasMore()) {
      int tag = p.readTag();
      int wireType = tag & 7;
      int field = tag >>> 3;
      boolean bytesField = field == 11 || field == 13;
      if (field >= 1 && field <= 13 && wireType != (bytesField ? ProtoReader.LENGTH_DELIMITED : ProtoReader.VARINT)) {
        throw new CorruptHFileException("trailer field " + field + " has wire type " + wireType + " in " + source);
      }
      switch (field) {
        case 1 -> fileInfoOffset = p.readVarint();
        case 2 -> loadOnOpenOffset = p.readVarint();
        case 5 -> dataIndexCount = p.readVarint();
        case 6 -> metaIndexCount = p.readVarint();
        case 7 -> entryCount = p.readVarint();
        case 8 -> dataIndexLevels = p.readVarint();
        case 9 -> firstDataBlockOffset = p.readVarint();
        case 10 -> lastDataBlockOffset = p.readVarint();
        case 11 -> comparatorClassName = new String(p.readBytes(), StandardCharsets.UTF_8);
        case 12 -> codec = Codec.fromOrdinal(p.readVarint(), source);
        default -> p.skip(wireType); // sizes (3, 4) and encryption key (13) are not needed
      }
    }
    if (
      dataIndexCount < 0 ||
      dataIndexCount > Integer.MAX_VALUE ||
      metaIndexCount < 0 ||
      metaIndexCount > Integer.MAX_VALUE
    ) {
      throw new CorruptHFileException(
        "implausible index entry counts " + dataIndexCount + " (data), " + metaIndexCount + " (meta) in " + source
      );
    }
    if (dataIndexLevels < 1 || dataIndexLevels > 8) {
      throw new CorruptHFileException("implausible number of data index levels " + dataIndexLevels + " in " + source);
    }
  }

  public long fileInfoOffset() {
    return fileInfoOffset;
  }

  public long loadOnOpenOffset() {
    return loadOnOpenOffset;
  }

  public int dataIndexCount() {
    return (int) dataIndexCount;
  }

  public int metaIndexCount() {
    return (int) metaIndexCount;
  }

  public long entryCount() {
    return entryCount;
  }

  /** 1: the root index points at data blocks; 2: at leaf index blocks; 3: at intermediate blocks. */
  public int dataIndexLevels() {
    return (int) dataIndexLevels;
  }

  /** -1 in an empty file. */
  public long firstDataBlockOffset() {
    return firstDataBlockOffset;
  }

  /** HBase-written: offset of the last data block (-1 when empty); Hudi's native writer: 0. */
  public long lastDataBlockOffset() {
    return lastDataBlockOffset;
  }

  public String comparatorClassName() {
    return comparatorClassName;
  }

  public Codec codec() {
    return codec;
  }

  public int majorVersion() {
    return majorVersion;
  }

  /** 3 in HBase-written files (Hudi 1.0), 0 in Hudi-native files (Hudi 1.1). */
  public int minorVersion() {
    return minorVersion;
  }
}
