package io.hudimeta.hfile;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/** Block kinds by their 8-byte magic. */
enum BlockType {
  DATA("DATABLK*"),
  ENCODED_DATA("DATABLKE"),
  LEAF_INDEX("IDXLEAF2"),
  INTERMEDIATE_INDEX("IDXINTE2"),
  ROOT_INDEX("IDXROOT2"),
  META("METABLKc"),
  FILE_INFO("FILEINF2");

  static final int MAGIC_LENGTH = 8;

  private final byte[] magic;

  BlockType(String magic) {
    this.magic = magic.getBytes(StandardCharsets.US_ASCII);
  }

  /** The type whose magic starts at pos, or null for an unknown magic. */
  static BlockType atPosition(byte[] buf, int pos) {
    for (BlockType t : values()) {
      if (Arrays.equals(buf, pos, pos + MAGIC_LENGTH, t.magic, 0, MAGIC_LENGTH)) {
        return t;
      }
    }
    return null;
  }

  String magic() {
    return new String(magic, StandardCharsets.US_ASCII);
  }
}
