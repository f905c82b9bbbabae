package io.hudimeta.hfile;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.zip.CRC32;
import java.util.zip.CRC32C;
import java.util.zip.Checksum;

/**
 * Reads one block: checks the 33-byte header, verifies the chunk checksums that follow the
 * payload, and decompresses the payload with the file's codec.
 */
final class BlockReader {

  static final int HEADER_SIZE = 33;
  private static final int CHECKSUM_NULL = 0;
  private static final int CHECKSUM_CRC32 = 1;
  private static final int CHECKSUM_CRC32C = 2;

  /** A decoded block: its type, uncompressed payload, and size on disk including header and checksums. */
  record Block(BlockType type, byte[] payload, int onDiskSize) {}

  private final ByteSource source;
  private final Codec codec;

  BlockReader(ByteSource source, Codec codec) {
    this.source = source;
    this.codec = codec;
  }

  /** Reads the block at offset whose on-disk size (header included) is known from an index entry. */
  Block read(long offset, int onDiskSize, BlockType expected) throws IOException {
    if (onDiskSize < HEADER_SIZE || offset < 0 || offset > source.length() - onDiskSize) {
      throw new CorruptHFileException(
        "index entry gives size " +
          onDiskSize +
          " for the block at offset " +
          offset +
          " of " +
          source.name() +
          ", outside its " +
          source.length() +
          " bytes"
      );
    }
    byte[] buf = new byte[onDiskSize];
    source.readFully(offset, buf, 0, onDiskSize);
    Block block = parse(buf, 0, offset, expected);
    if (block.onDiskSize() != onDiskSize) {
      throw new CorruptHFileException(
        "block at offset " +
          offset +
          " of " +
          source.name() +
          " is " +
          block.onDiskSize() +
          " bytes on disk but its index entry says " +
          onDiskSize
      );
    }
    return block;
  }

  /** Decodes the block starting at buf[pos], which sits at fileOffset in the file. */
  Block parse(byte[] buf, int pos, long fileOffset, BlockType expected) throws IOException {
    String where = expected.magic() + " block at offset " + fileOffset + " of " + source.name();
    if (buf.length - pos < HEADER_SIZE) {
      throw new CorruptHFileException("truncated header of " + where);
    }
    BlockType type = BlockType.atPosition(buf, pos);
    if (type != expected) {
      String found =
        type == null ? new String(buf, pos, BlockType.MAGIC_LENGTH, StandardCharsets.ISO_8859_1) : type.magic();
      throw new CorruptHFileException("expected " + where + ", found magic '" + found + "'");
    }
    int onDiskWithoutHeader = Bytes.readInt(buf, pos + 8);
    int uncompressedSize = Bytes.readInt(buf, pos + 12);
    int checksumType = buf[pos + 24];
    int bytesPerChecksum = Bytes.readInt(buf, pos + 25);
    int dataWithHeader = Bytes.readInt(buf, pos + 29);
    int onDiskSize = HEADER_SIZE + onDiskWithoutHeader;
    if (
      onDiskWithoutHeader < 0 ||
      uncompressedSize < 0 ||
      dataWithHeader < HEADER_SIZE ||
      dataWithHeader > onDiskSize ||
      onDiskSize > buf.length - pos
    ) {
      throw new CorruptHFileException(
        "inconsistent sizes in the header of " +
          where +
          " (onDisk=" +
          onDiskWithoutHeader +
          ", data+header=" +
          dataWithHeader +
          ", " +
          (buf.length - pos) +
          " bytes available)"
      );
    }
    verifyChecksums(buf, pos, dataWithHeader, onDiskSize, checksumType, bytesPerChecksum, where);
    byte[] payload = codec.decompress(buf, pos + HEADER_SIZE, dataWithHeader - HEADER_SIZE, uncompressedSize, where);
    return new Block(type, payload, onDiskSize);
  }

  /**
   * One 4-byte checksum per bytesPerChecksum chunk of header + on-disk payload. Hudi's native
   * writer uses type 0 (NULL) and leaves zero placeholders (one per chunk, give or take one at a
   * chunk boundary), HBase none; anything else there means the type byte itself is corrupt.
   */
  private static void verifyChecksums(
    byte[] buf,
    int pos,
    int dataWithHeader,
    int onDiskSize,
    int checksumType,
    int bytesPerChecksum,
    String where
  ) throws CorruptHFileException {
    if (checksumType != CHECKSUM_NULL && checksumType != CHECKSUM_CRC32 && checksumType != CHECKSUM_CRC32C) {
      throw new CorruptHFileException("unknown checksum type " + checksumType + " in " + where);
    }
    if (bytesPerChecksum <= 0) {
      throw new CorruptHFileException("bytesPerChecksum " + bytesPerChecksum + " in " + where);
    }
    int chunks = (int) (((long) dataWithHeader + bytesPerChecksum - 1) / bytesPerChecksum);
    if (checksumType == CHECKSUM_NULL) {
      int area = onDiskSize - dataWithHeader;
      boolean zeros = area % 4 == 0 && area <= 4L * (chunks + 1);
      for (int i = pos + dataWithHeader; zeros && i < pos + onDiskSize; i++) {
        zeros = buf[i] == 0;
      }
      if (!zeros) {
        throw new CorruptHFileException(
          where + " has no checksums but " + area + " bytes that are not zero placeholders"
        );
      }
      return;
    }
    if (onDiskSize - dataWithHeader != 4 * chunks) {
      throw new CorruptHFileException(
        where + " has " + (onDiskSize - dataWithHeader) + " checksum bytes, expected " + 4 * chunks
      );
    }
    for (int i = 0; i < chunks; i++) {
      int start = i * bytesPerChecksum;
      int len = Math.min(bytesPerChecksum, dataWithHeader - start);
      Checksum sum = checksumType == CHECKSUM_CRC32C ? new CRC32C() : new CRC32();
      sum.update(buf, pos + start, len);
      int stored = Bytes.readInt(buf, pos + dataWithHeader + 4 * i);
      if ((int) sum.getValue() != stored) {
        throw new CorruptHFileException(
          String.format(
            "checksum mismatch in %s: %s of chunk %d (bytes %d..%d of the" + " block) is %08x, stored %08x",
            where,
            checksumType == CHECKSUM_CRC32C ? "CRC32C" : "CRC32",
            i,
            start,
            start + len,
            (int) sum.getValue(),
            stored
          )
        );
      }
    }
  }
}
