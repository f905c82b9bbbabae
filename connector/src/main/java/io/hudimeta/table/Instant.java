package io.hudimeta.table;

import java.io.Serializable;

/**
 * One action on the timeline, in the latest state its files show.
 *
 * @param requestedTime  instant time the action was started with (17 digits, sometimes 14 in old tables)
 * @param completionTime completion time from a layout-2 file name {@code <t>_<c>.<action>}; null for
 *                       layout 1 and for pending instants
 * @param action         action of the file that holds the latest state: a completed compaction shows as
 *                       {@code commit} and a completed clustering as {@code replacecommit}, as in Hudi
 * @param state          REQUESTED, INFLIGHT or COMPLETED
 * @param fileName       name of that file inside the timeline directory
 */
public record Instant(
  String requestedTime,
  String completionTime,
  String action,
  State state,
  String fileName
) implements Serializable, Comparable<Instant> {
  public enum State {
    REQUESTED,
    INFLIGHT,
    COMPLETED,
  }

  public static final String COMMIT = "commit";
  public static final String DELTA_COMMIT = "deltacommit";
  public static final String REPLACE_COMMIT = "replacecommit";
  public static final String COMPACTION = "compaction";
  public static final String LOG_COMPACTION = "logcompaction";
  public static final String CLUSTERING = "clustering";
  public static final String CLEAN = "clean";
  public static final String ROLLBACK = "rollback";
  public static final String RESTORE = "restore";
  public static final String SAVEPOINT = "savepoint";
  public static final String INDEXING = "indexing";
  public static final String SCHEMA_COMMIT = "schemacommit";

  public boolean isCompleted() {
    return state == State.COMPLETED;
  }

  /** commit, deltacommit or replacecommit: the actions whose completion publishes data files. */
  public boolean isCommitLike() {
    return action.equals(COMMIT) || action.equals(DELTA_COMMIT) || action.equals(REPLACE_COMMIT);
  }

  /** Ordered by requested time, the order of Hudi's timeline. */
  @Override
  public int compareTo(Instant other) {
    return requestedTime.compareTo(other.requestedTime);
  }
}
