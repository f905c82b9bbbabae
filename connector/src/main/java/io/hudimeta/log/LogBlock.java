package io.hudimeta.log;

import io.hudimeta.avro.AvroSchemas;
import java.io.ByteArrayInputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.util.Base64;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericRecord;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.types.StructType;
import org.roaringbitmap.longlong.Roaring64NavigableMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One intact block of a log file: its framing fields plus typed access to its content.
 *
 * <p>Decoding is on demand through the typed accessors ({@link #avroRecords}, {@link
 * #deleteRecords}, {@link #parquetRows}, ...); each one checks the block type first. Callers that
 * merge records should call {@link #checkSupported()} first: partial-update and CDC blocks decode
 * but cannot be merged as full records.
 */
public final class LogBlock {

  private static final Logger LOG = LoggerFactory.getLogger(LogBlock.class);

  /** The only command type Hudi defines (ordinal 0 of its command enum). */
  private static final String ROLLBACK_COMMAND = "0";

  private final String source;
  private final long offset;
  private final LogBlockType type;
  private final Map<HeaderKey, String> header;
  private final Map<Integer, String> footer;
  private final byte[] content;

  LogBlock(
    String source,
    long offset,
    LogBlockType type,
    Map<HeaderKey, String> header,
    Map<Integer, String> footer,
    byte[] content
  ) {
    this.source = source;
    this.offset = offset;
    this.type = type;
    this.header = Collections.unmodifiableMap(header);
    this.footer = Collections.unmodifiableMap(footer);
    this.content = content;
  }

  public LogBlockType type() {
    return type;
  }

  /** Header entries; on-disk order is arbitrary (a Java HashMap), so this is a map. */
  public Map<HeaderKey, String> header() {
    return header;
  }

  /** The header value for {@code key}, or null. */
  public String header(HeaderKey key) {
    return header.get(key);
  }

  /** Footer entries by raw key id (Hudi defines no footer keys; every fixture footer is empty). */
  public Map<Integer, String> footer() {
    return footer;
  }

  /** The block content (field 7 of the framing). Shared, not copied: do not modify. */
  public byte[] content() {
    return content;
  }

  /** Instant that wrote this block (header INSTANT_TIME), or null if absent. */
  public String instantTime() {
    return header.get(HeaderKey.INSTANT_TIME);
  }

  /** Byte offset of the block's magic within its file. */
  public long offset() {
    return offset;
  }

  /** Name of the file the block came from, for messages. */
  public String source() {
    return source;
  }

  /** True when the header marks the records as a partial update (IS_PARTIAL=true). */
  public boolean isPartial() {
    return Boolean.parseBoolean(header.get(HeaderKey.IS_PARTIAL));
  }

  /** Why a merging reader cannot use this block, or null when it can. */
  public String unsupportedReason() {
    if (type == LogBlockType.CDC_DATA) {
      return "CDC log blocks are not supported (" + this + ")";
    }
    if (isPartial()) {
      return "partial-update log blocks (IS_PARTIAL=true) are not supported (" + this + ")";
    }
    return null;
  }

  /** Throws UnsupportedOperationException naming the block when {@link #unsupportedReason} says so. */
  public void checkSupported() {
    String reason = unsupportedReason();
    if (reason != null) {
      throw new UnsupportedOperationException(reason);
    }
  }

  /** Avro data block records under the block's writer schema. */
  public List<GenericRecord> avroRecords() {
    return avroRecords(null);
  }

  /**
   * Avro data block records, resolved to {@code readerSchema} (null: the writer schema) by Avro
   * schema resolution, so added fields take their defaults (hence refused for partial updates).
   */
  public List<GenericRecord> avroRecords(Schema readerSchema) {
    requireType(LogBlockType.AVRO_DATA);
    if (readerSchema != null) {
      requireFullRecords();
    }
    return AvroBlockDecoder.records(this, readerSchema);
  }

  /**
   * Avro data block records converted to Spark rows of {@code requested} (matched by name;
   * columns the block lacks read as null, so partial-update blocks are refused).
   */
  public List<InternalRow> avroRows(StructType requested) {
    requireType(LogBlockType.AVRO_DATA);
    requireFullRecords();
    return AvroBlockDecoder.rows(this, requested);
  }

  /** CDC data block records (laid out as an Avro data block) converted to Spark rows of {@code requested}. */
  public List<InternalRow> cdcRows(StructType requested) {
    requireType(LogBlockType.CDC_DATA);
    return AvroBlockDecoder.rows(this, requested);
  }

  /** The writer schema from the SCHEMA header; fails if the header has none. */
  public Schema writerSchema() {
    String json = header.get(HeaderKey.SCHEMA);
    if (json == null) {
      throw new LogFormatException(this + " has no SCHEMA header");
    }
    try {
      return AvroSchemas.parse(json);
    } catch (RuntimeException e) {
      throw new LogFormatException(this + " has a SCHEMA header that is not an Avro schema: " + e.getMessage(), e);
    }
  }

  /** Entries of a delete block. */
  public List<DeleteRecord> deleteRecords() {
    requireType(LogBlockType.DELETE);
    return DeleteBlockDecoder.decode(this);
  }

  /**
   * Parquet data block rows of {@code requested}; columns absent from the file read as null, so
   * partial-update blocks are refused.
   */
  public List<InternalRow> parquetRows(StructType requested) {
    requireType(LogBlockType.PARQUET_DATA);
    requireFullRecords();
    return ParquetBlockReader.read(content, requested, toString());
  }

  /** HFile data block content: one complete HFile (docs/format.md §2.3). */
  public byte[] hfileContent() {
    requireType(LogBlockType.HFILE_DATA);
    return content;
  }

  /**
   * The base-file row positions of the block's {@code recordCount} records, ascending (the i-th record is at
   * the i-th), when RECORD_POSITIONS refers to the base file written at {@code baseInstant} (docs/format.md
   * §1.5a); else null, and the block is merged by key. A malformed header gives null too: positions only
   * speed a merge up, the keys stay the truth.
   */
  public long[] recordPositions(String baseInstant, int recordCount) {
    String encoded = header.get(HeaderKey.RECORD_POSITIONS);
    if (encoded == null || baseInstant == null) {
      return null;
    }
    if (!baseInstant.equals(header.get(HeaderKey.BASE_FILE_INSTANT_TIME_OF_RECORD_POSITIONS))) {
      return null; // positions into another base file (e.g. the one a compaction replaced)
    }
    try {
      long[] positions = decodePositions(encoded, recordCount);
      if (positions == null) {
        LOG.warn("{}: RECORD_POSITIONS does not hold one position per record; merging it by key", this);
      }
      return positions;
    } catch (IOException | RuntimeException e) {
      LOG.warn("{}: malformed RECORD_POSITIONS ({}); merging it by key", this, e.toString());
      return null;
    }
  }

  /** Base64 of a portable Roaring64NavigableMap; null unless it holds {@code expected} non-negative positions. */
  private static long[] decodePositions(String encoded, int expected) throws IOException {
    Roaring64NavigableMap bitmap = new Roaring64NavigableMap();
    byte[] bytes = Base64.getDecoder().decode(encoded);
    bitmap.deserializePortable(new DataInputStream(new ByteArrayInputStream(bytes)));
    if (bitmap.getLongCardinality() != expected) {
      return null;
    }
    long[] positions = bitmap.toArray();
    for (long p : positions) {
      if (p < 0) {
        return null; // above 2^63: no row position
      }
    }
    return positions;
  }

  /** True for a rollback command block. */
  public boolean isRollback() {
    return type == LogBlockType.COMMAND && ROLLBACK_COMMAND.equals(header.get(HeaderKey.COMMAND_BLOCK_TYPE));
  }

  /** The instant a rollback command block rolls back (header TARGET_INSTANT_TIME). */
  public String rollbackTargetInstant() {
    requireType(LogBlockType.COMMAND);
    if (!isRollback()) {
      throw new LogFormatException(
        this + " has unknown command type " + header.get(HeaderKey.COMMAND_BLOCK_TYPE) + " (only 0 = rollback exists)"
      );
    }
    String target = header.get(HeaderKey.TARGET_INSTANT_TIME);
    if (target == null) {
      throw new LogFormatException(this + " is a rollback without TARGET_INSTANT_TIME");
    }
    return target;
  }

  /** Filling a partial update's absent columns with nulls or defaults would corrupt the merge. */
  private void requireFullRecords() {
    if (isPartial()) {
      throw new UnsupportedOperationException(unsupportedReason());
    }
  }

  private void requireType(LogBlockType expected) {
    if (type != expected) {
      throw new IllegalStateException("expected a " + expected + " block but " + this + " is " + type);
    }
  }

  @Override
  public String toString() {
    return (
      type +
      " block at offset " +
      offset +
      " of " +
      source +
      " (instant " +
      instantTime() +
      ", " +
      content.length +
      " content bytes)"
    );
  }
}
