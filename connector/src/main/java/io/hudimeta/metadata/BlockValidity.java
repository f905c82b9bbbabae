package io.hudimeta.metadata;

/**
 * Whether readers may use a metadata-table log block written at an instant: the rule of {@link
 * MetadataTable}'s class comment as one pure function, so the Python writer's copy runs the same
 * conformance vectors (tests/conformance/metadata_block_validity.json).
 */
public final class BlockValidity {

  /** What the data timeline says of an instant: completed, still pending (or failed), or absent. */
  public enum DataState {
    COMPLETED,
    PENDING,
    ABSENT,
  }

  private static final int INSTANT_DIGITS = 17;

  private BlockValidity() {}

  /**
   * @param instant the block's instant time
   * @param logCompacted the block carries COMPACTED_BLOCK_TIMES (a log compaction's output)
   * @param mdtAction action of the instant as completed (and not rolled back) on the MDT timeline, null
   *     when it is not
   * @param data the instant on the data timeline
   * @param firstDataInstant the data timeline's first active instant (null when it has none)
   */
  public static boolean isValid(
    String instant,
    boolean logCompacted,
    String mdtAction,
    DataState data,
    String firstDataInstant
  ) {
    if (instant == null || mdtAction == null) {
      return false;
    }
    if (logCompacted || instant.startsWith(MetadataTable.INIT_INSTANT_PREFIX)) {
      return true; // the MDT's own writes need only complete on the MDT
    }
    if (!mdtAction.equals("deltacommit")) {
      return true; // MDT compaction
    }
    return switch (data) {
      case COMPLETED -> true;
      case PENDING -> false;
      // 0.x (v6) MDT-internal deltacommits: <instant> + 3-digit suffix; else archived on the data table
      case ABSENT -> instant.length() > INSTANT_DIGITS ||
        (firstDataInstant != null && instant.compareTo(firstDataInstant) < 0);
    };
  }
}
