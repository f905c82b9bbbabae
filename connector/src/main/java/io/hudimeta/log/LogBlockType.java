package io.hudimeta.log;

/**
 * Kind of a log block. The declaration order is the on-disk id: Hudi writes the 0-based ordinal of
 * its block-type enum (docs/format.md §1.4), so new constants may only ever be appended.
 */
public enum LogBlockType {
  COMMAND,
  DELETE,
  /** Never written; Hudi's reader uses it for unreadable byte ranges. */
  CORRUPT,
  AVRO_DATA,
  HFILE_DATA,
  PARQUET_DATA,
  CDC_DATA;

  private static final LogBlockType[] BY_ID = values();

  /** The type written as {@code id}; fails on ids this reader does not know. */
  public static LogBlockType fromId(int id) {
    if (id < 0 || id >= BY_ID.length) {
      throw new LogFormatException(
        "unknown log block type id " + id + " (known: 0.." + (BY_ID.length - 1) + "); written by a newer Hudi?"
      );
    }
    return BY_ID[id];
  }
}
