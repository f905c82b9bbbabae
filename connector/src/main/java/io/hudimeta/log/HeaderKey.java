package io.hudimeta.log;

/**
 * Keys of a log block header. The declaration order is the on-disk id (ordinal of Hudi's
 * {@code HeaderMetadataType}, docs/format.md §1.5); new constants may only be appended.
 */
public enum HeaderKey {
  /** Instant that wrote the block. */
  INSTANT_TIME,
  /** Command blocks: the instant being rolled back. */
  TARGET_INSTANT_TIME,
  /** Avro schema JSON of the block's records. */
  SCHEMA,
  /** Command blocks: ordinal of the command type, as a decimal string. */
  COMMAND_BLOCK_TYPE,
  /** Comma-separated instants replaced by a log-compacted block. */
  COMPACTED_BLOCK_TIMES,
  /** Base64 of a serialized 64-bit roaring bitmap of base-file row positions. */
  RECORD_POSITIONS,
  /** Opaque id used to drop blocks duplicated by task retries. */
  BLOCK_IDENTIFIER,
  /** "true" when SCHEMA holds only the columns of a partial update. */
  IS_PARTIAL,
  /** Instant of the base file that RECORD_POSITIONS refer to. */
  BASE_FILE_INSTANT_TIME_OF_RECORD_POSITIONS;

  private static final HeaderKey[] BY_ID = values();

  /** The key written as {@code id}; fails on ids this reader does not know. */
  public static HeaderKey fromId(int id) {
    if (id < 0 || id >= BY_ID.length) {
      throw new LogFormatException(
        "unknown log block header key id " + id + " (known: 0.." + (BY_ID.length - 1) + "); written by a newer Hudi?"
      );
    }
    return BY_ID[id];
  }
}
