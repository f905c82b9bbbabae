package io.hudimeta.hfile;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/** Parses the FILE_INFO payload: {@code PBUF}, a varint length, then InfoProto's BytesBytesPair entries. */
final class FileInfo {

  private static final byte[] PBUF = "PBUF".getBytes(StandardCharsets.US_ASCII);
  private static final int MAP_ENTRY = 1;
  private static final int PAIR_FIRST = 1;
  private static final int PAIR_SECOND = 2;

  private FileInfo() {}

  static Map<String, byte[]> parse(byte[] p, String where) throws CorruptHFileException {
    if (p.length < PBUF.length || !Arrays.equals(p, 0, PBUF.length, PBUF, 0, PBUF.length)) {
      throw new CorruptHFileException(where + " does not start with PBUF");
    }
    ProtoReader outer = new ProtoReader(p, PBUF.length, p.length, where);
    int len = outer.lengthPrefix();
    ProtoReader info = new ProtoReader(p, outer.position(), outer.position() + len, where);
    Map<String, byte[]> entries = new LinkedHashMap<>();
    while (info.hasMore()) {
      int tag = info.readTag();
      if (tag >>> 3 != MAP_ENTRY || (tag & 7) != ProtoReader.LENGTH_DELIMITED) {
        info.skip(tag & 7);
        continue;
      }
      byte[] pair = info.readBytes();
      readPair(new ProtoReader(pair, 0, pair.length, where), entries);
    }
    return Collections.unmodifiableMap(entries);
  }

  private static void readPair(ProtoReader pair, Map<String, byte[]> into) throws CorruptHFileException {
    byte[] first = new byte[0];
    byte[] second = new byte[0];
    while (pair.hasMore()) {
      int tag = pair.readTag();
      switch (tag >>> 3) {
        case PAIR_FIRST -> first = pair.readBytes();
        case PAIR_SECOND -> second = pair.readBytes();
        default -> pair.skip(tag & 7);
      }
    }
    into.put(new String(first, StandardCharsets.UTF_8), second);
  }
}
