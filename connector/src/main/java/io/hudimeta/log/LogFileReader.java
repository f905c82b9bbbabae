package io.hudimeta.log;

import io.hudimeta.hfile.Opened;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Splits a Hudi log file into its blocks (framing of docs/format.md §1.2 and §1.3).
 *
 * <p>A torn or corrupt block (no magic, a length running past the end of the file, a trailing
 * length that disagrees with the leading one, fields that do not fill the declared length) is
 * skipped with a warning and reading resumes at the next {@code #HUDI#} magic, as Hudi's reader
 * does. Unlike Hudi, a block whose own framing checks out is kept even when garbage follows it:
 * the two length fields already prove it complete. {@link #scan} skips the same ranges but reports them
 * instead of logging, for a reader that judges a torn range by the instant that wrote it (the metadata
 * table's: a torn block of a completed instant is damage there, never skipped).
 */
public final class LogFileReader {

  private static final Logger LOG = LoggerFactory.getLogger(LogFileReader.class);

  static final byte[] MAGIC = "#HUDI#".getBytes(StandardCharsets.US_ASCII);
  /** The only log format version in use; version 0 lacked type, header, footer and lengths. */
  private static final int LOG_FORMAT_VERSION = 1;
  /** Smallest block length: version, type, empty header, content length, empty footer, trailer. */
  private static final long MIN_BLOCK_LENGTH = 4 + 4 + 4 + 8 + 4 + 8;

  private LogFileReader() {}

  /** The intact blocks of the log file at {@code path}, in file order (torn ranges skipped with a warning). */
  public static List<LogBlock> read(FileSystem fs, Path path) throws IOException {
    return read(bytes(fs, fs.getFileStatus(path)), path.toString());
  }

  /** The intact blocks of a whole log file held in memory. */
  public static List<LogBlock> read(byte[] data) {
    return read(data, "<in-memory log file>");
  }

  /** As {@link #read(byte[])}; {@code source} names the file in messages. */
  public static List<LogBlock> read(byte[] data, String source) {
    Contents contents = scan(data, source);
    for (Skipped s : contents.skipped()) {
      LOG.warn("Skipping {} bytes at offset {} of log file {}: {}", s.length(), s.offset(), source, s.problem());
    }
    return contents.blocks();
  }

  /**
   * The intact blocks of the log file at {@code path} and the byte ranges skipped between them, nothing
   * logged: for a caller that judges a torn range itself (the metadata table's reader, for which a torn
   * block of a completed instant is damage, not a torn write).
   */
  public static Contents scan(FileSystem fs, Path path) throws IOException {
    return scan(fs, fs.getFileStatus(path));
  }

  /** {@link #scan(FileSystem, Path)} of a log file whose status a listing gave: no request to learn it again. */
  public static Contents scan(FileSystem fs, FileStatus status) throws IOException {
    return scan(bytes(fs, status), status.getPath().toString());
  }

  private static byte[] bytes(FileSystem fs, FileStatus status) throws IOException {
    Path path = status.getPath();
    long length = status.getLen();
    if (length > Integer.MAX_VALUE - 16) {
      throw new IOException("log file " + path + " is " + length + " bytes; files over 2 GiB are " + "not supported");
    }
    byte[] data = new byte[(int) length];
    try (FSDataInputStream in = Opened.withStatus(fs, status)) {
      in.readFully(0, data);
    }
    return data;
  }

  /** {@link #scan(FileSystem, Path)} of a whole log file held in memory; {@code source} names it in messages. */
  public static Contents scan(byte[] data, String source) {
    List<LogBlock> blocks = new ArrayList<>();
    List<Skipped> skipped = new ArrayList<>();
    int pos = 0;
    while (pos < data.length) {
      String problem;
      if (!magicAt(data, pos)) {
        problem = "no #HUDI# magic";
      } else {
        try {
          BlockParser parser = new BlockParser(data, pos, source);
          blocks.add(parser.parse());
          pos = parser.end;
          continue;
        } catch (CorruptBlockException e) {
          problem = e.getMessage();
        }
      }
      int next = indexOfMagic(data, pos + 1);
      int resume = next < 0 ? data.length : next;
      skipped.add(new Skipped(pos, resume - pos, problem, tornHeader(data, pos)));
      pos = resume;
    }
    return new Contents(List.copyOf(blocks), List.copyOf(skipped));
  }

  /** What {@link #scan} found in a log file: its intact blocks and the ranges skipped, both in file order. */
  public record Contents(List<LogBlock> blocks, List<Skipped> skipped) {}

  /**
   * A byte range that is not a complete block.
   *
   * @param header the header entries of the block it starts with, by raw key id, when that header can be
   *     read whole (magic, version 1, an entry count and entries within the file); null otherwise
   */
  public record Skipped(long offset, long length, String problem, Map<Integer, String> header) {
    /** The header value for {@code key} when the header could be read, else null. */
    public String header(HeaderKey key) {
      return header == null ? null : header.get(key.ordinal());
    }
  }

  /**
   * The header of a block whose magic is at {@code pos}, read without trusting the block length (the
   * block may be cut off after it), or null when it does not lie whole within the file.
   */
  private static Map<Integer, String> tornHeader(byte[] data, int pos) {
    if (!magicAt(data, pos)) {
      return null;
    }
    ByteBuffer buf = ByteBuffer.wrap(data);
    int at = pos + MAGIC.length + 8;
    if (at + 12 > data.length || buf.getInt(at) != LOG_FORMAT_VERSION) {
      return null;
    }
    at += 8; // version, type
    int count = buf.getInt(at);
    at += 4;
    if (count < 0 || count > (data.length - at) / 8) {
      return null;
    }
    Map<Integer, String> header = new HashMap<>();
    for (int i = 0; i < count; i++) {
      if (at + 8 > data.length) {
        return null;
      }
      int key = buf.getInt(at);
      int length = buf.getInt(at + 4);
      at += 8;
      if (length < 0 || length > data.length - at) {
        return null;
      }
      header.put(key, new String(data, at, length, StandardCharsets.UTF_8));
      at += length;
    }
    return header;
  }

  static boolean magicAt(byte[] data, int pos) {
    if (pos < 0 || pos + MAGIC.length > data.length) {
      return false;
    }
    for (int i = 0; i < MAGIC.length; i++) {
      if (data[pos + i] != MAGIC[i]) {
        return false;
      }
    }
    return true;
  }

  static int indexOfMagic(byte[] data, int from) {
    for (int pos = Math.max(from, 0); pos + MAGIC.length <= data.length; pos++) {
      if (magicAt(data, pos)) {
        return pos;
      }
    }
    return -1;
  }

  /** A byte range that is not a complete block; the reader skips it. */
  private static final class CorruptBlockException extends Exception {

    private static final long serialVersionUID = 1L;

    CorruptBlockException(String message) {
      super(message);
    }
  }

  /** Reads one block whose magic starts at {@code start}; {@code end} is set once it parsed. */
  private static final class BlockParser {

    private final byte[] data;
    private final int start;
    private final String source;
    private final ByteBuffer buf;
    private int end;

    BlockParser(byte[] data, int start, String source) {
      this.data = data;
      this.start = start;
      this.source = source;
      this.buf = ByteBuffer.wrap(data); // big-endian, like Java's DataOutputStream
    }

    LogBlock parse() throws CorruptBlockException {
      int bodyStart = start + MAGIC.length + 8;
      if (bodyStart > data.length) {
        throw new CorruptBlockException("block header cut off by end of file");
      }
      long blockLength = buf.getLong(start + MAGIC.length);
      if (blockLength < MIN_BLOCK_LENGTH || blockLength > data.length - bodyStart) {
        throw new CorruptBlockException(
          "block length " + blockLength + " runs past end of file (" + data.length + " bytes)"
        );
      }
      int trailerPos = bodyStart + (int) blockLength - 8;
      long totalLength = buf.getLong(trailerPos);
      if (totalLength != blockLength + MAGIC.length) {
        throw new CorruptBlockException(
          "trailing block length " + totalLength + " does not match leading block length " + blockLength + " + 6"
        );
      }
      buf.limit(trailerPos).position(bodyStart);
      String where = "block at offset " + start + " of " + source;
      int version = readInt();
      if (version != LOG_FORMAT_VERSION) {
        // another layout: the fields below would not parse
        throw new LogFormatException(
          "unsupported log format version " + version + " in " + where + " (only " + LOG_FORMAT_VERSION + " is read)"
        );
      }
      int typeId = readInt();
      Map<Integer, String> rawHeader = readMap();
      byte[] content = readBytes(readLong(), "content");
      Map<Integer, String> footer = readMap();
      if (buf.position() != trailerPos) {
        throw new CorruptBlockException(
          "block fields end at offset " + buf.position() + " but the declared length ends at " + trailerPos
        );
      }
      end = trailerPos + 8;
      // The framing is intact: an id this reader does not know is not a torn write but an error.
      try {
        LogBlockType type = LogBlockType.fromId(typeId);
        if (type == LogBlockType.CORRUPT) {
          throw new LogFormatException("block type id " + typeId + " (CORRUPT) is a reader placeholder, never written");
        }
        Map<HeaderKey, String> header = new EnumMap<>(HeaderKey.class);
        for (Map.Entry<Integer, String> e : rawHeader.entrySet()) {
          header.put(HeaderKey.fromId(e.getKey()), e.getValue());
        }
        return new LogBlock(source, start, type, header, footer, content);
      } catch (LogFormatException e) {
        throw new LogFormatException(where + ": " + e.getMessage(), e);
      }
    }

    /** Header/footer encoding: int32 count, then (int32 key, int32 length, UTF-8 value). */
    private Map<Integer, String> readMap() throws CorruptBlockException {
      int count = readInt();
      if (count < 0 || count > buf.remaining() / 8) {
        throw new CorruptBlockException("metadata map entry count " + count + " is impossible");
      }
      Map<Integer, String> map = new HashMap<>();
      for (int i = 0; i < count; i++) {
        int key = readInt();
        byte[] value = readBytes(readInt(), "metadata value");
        map.put(key, new String(value, StandardCharsets.UTF_8));
      }
      return map;
    }

    private byte[] readBytes(long length, String what) throws CorruptBlockException {
      if (length < 0 || length > buf.remaining()) {
        throw new CorruptBlockException(
          what + " length " + length + " exceeds the " + buf.remaining() + " bytes left in the block"
        );
      }
      byte[] out = new byte[(int) length];
      buf.get(out);
      return out;
    }

    private int readInt() throws CorruptBlockException {
      need(4);
      return buf.getInt();
    }

    private long readLong() throws CorruptBlockException {
      need(8);
      return buf.getLong();
    }

    private void need(int bytes) throws CorruptBlockException {
      if (buf.remaining() < bytes) {
        throw new CorruptBlockException("block fields run past the declared block length");
      }
    }
  }
}
