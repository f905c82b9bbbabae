package io.hudimeta.hfile;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.StringJoiner;
import java.util.regex.Pattern;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;

/**
 * Bulk helpers for py4j callers (tests, debugging): each returns one joined string so Python does
 * not pay one gateway round trip per cell. Text helpers decode bytes as UTF-8.
 */
public final class HFileInspect {

  private HFileInspect() {}

  /** A block payload decompressed by {@code codec} ("GZ", "NONE") to the size a block header would give. */
  public static byte[] decompress(String codec, byte[] payload, int uncompressedSize) throws IOException {
    return Codec.valueOf(codec).decompress(payload, 0, payload.length, uncompressedSize, "test payload");
  }

  /** Opens a file by path or URI with the given Hadoop configuration. */
  public static HFileReader open(String path, Configuration conf) throws IOException {
    Path p = new Path(path);
    return HFileReader.open(p.getFileSystem(conf), p);
  }

  /** Rows of a full scan, joined with sep. */
  public static String rows(HFileReader reader, String sep) {
    return join(reader.scan(), sep, false);
  }

  /** Values of a full scan (as UTF-8 text), joined with sep. */
  public static String values(HFileReader reader, String sep) {
    return join(reader.scan(), sep, true);
  }

  /** Rows of a prefix scan, joined with sep. */
  public static String prefixRows(HFileReader reader, String prefix, String sep) {
    return join(reader.scanPrefix(prefix), sep, false);
  }

  /** Rows of {@link HFileReader#scanPrefixes} on sep-joined prefixes, joined with sep. */
  public static String multiPrefixRows(HFileReader reader, String prefixes, String sep) throws IOException {
    return join(reader.scanPrefixes(splitOn(prefixes, sep)).iterator(), sep, false);
  }

  /** {@link HFileReader#getAll} on sep-joined keys; returns "row=value" (UTF-8) of the found keys, sep-joined. */
  public static String getAll(HFileReader reader, String keys, String sep) throws IOException {
    StringJoiner out = new StringJoiner(sep);
    Map<String, Cell> found = reader.getAll(splitOn(keys, sep));
    for (Map.Entry<String, Cell> e : found.entrySet()) {
      out.add(e.getKey() + "=" + new String(e.getValue().value(), StandardCharsets.UTF_8));
    }
    return out.toString();
  }

  private static List<String> splitOn(String joined, String sep) {
    return Arrays.asList(joined.split(Pattern.quote(sep), -1));
  }

  private static String join(Iterator<Cell> cells, String sep, boolean values) {
    StringJoiner out = new StringJoiner(sep);
    while (cells.hasNext()) {
      Cell c = cells.next();
      out.add(values ? new String(c.value(), StandardCharsets.UTF_8) : c.rowString());
    }
    return out.toString();
  }
}
