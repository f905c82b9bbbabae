package io.hudimeta.metadata;

import io.hudimeta.table.Instant;
import java.io.Serializable;
import java.util.Map;

/**
 * {@link MetadataTable}'s block rule fixed at one moment, so executors judge log blocks without the
 * timelines: the answer for every instant either timeline knows (or a rollback names) is computed on
 * the driver by the table itself; any other instant is one neither timeline holds, for which the
 * table's rule reduces to the archived case below.
 */
final class InstantValidity implements SliceReader.BlockRule, Serializable {

  private static final long serialVersionUID = 1L;
  static final byte PLAIN = 1;
  static final byte LOG_COMPACTED = 2;

  /** instant -> {@link #PLAIN} and/or {@link #LOG_COMPACTED} when a block of that kind is valid. */
  private final Map<String, Byte> known;
  /** The MDT timeline's first completed commit-like instant: older unknown ones were archived there. */
  private final String firstMdtCommit;
  private final String firstDataInstant;

  InstantValidity(Map<String, Byte> known, String firstMdtCommit, String firstDataInstant) {
    this.known = Map.copyOf(known);
    this.firstMdtCommit = firstMdtCommit;
    this.firstDataInstant = firstDataInstant;
  }

  @Override
  public boolean isValid(String instant, boolean logCompacted) {
    if (instant == null) {
      return false;
    }
    Byte bits = known.get(instant);
    if (bits != null) {
      return (bits & (logCompacted ? LOG_COMPACTED : PLAIN)) != 0;
    }
    // on neither active timeline: committed on the MDT only if archived there, a deltacommit then
    boolean archived = firstMdtCommit != null && instant.compareTo(firstMdtCommit) < 0;
    return (
      archived &&
      BlockValidity.isValid(
        instant,
        logCompacted,
        Instant.DELTA_COMMIT,
        BlockValidity.DataState.ABSENT,
        firstDataInstant
      )
    );
  }
}
