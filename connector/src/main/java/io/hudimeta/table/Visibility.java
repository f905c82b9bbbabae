package io.hudimeta.table;

import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;

/**
 * Which instants a reader may trust, as of an instant time. Obtain one with {@link Timeline#visibility}.
 *
 * <p>As-of semantics follow Hudi's time travel ({@code as.of.instant}) and hudi-rs: they compare
 * <em>requested</em> times. As of T, an instant is committed when it is a completed commit, deltacommit
 * or replacecommit (compaction and clustering complete as those) requested at or before T and not
 * rolled back. Completion times only decide which file slice a layout-2 log file belongs to.
 *
 * <p>Instants older than the first active commit count as committed (they were archived), unless the
 * active timeline shows them pending or a rollback undid them.
 */
public final class Visibility {

  private final Timeline timeline;
  private final String asOf;
  private final Set<String> committed = new HashSet<>();
  private final Set<String> uncommitted = new HashSet<>();
  private final String firstCommit;
  private final Map<FileGroupId, String> pendingCompactions = new HashMap<>();
  private final Map<FileGroupId, String> replaced;

  Visibility(Timeline timeline, String asOf) {
    if (asOf != null && !asOf.matches("\\d+")) {
      throw new IllegalArgumentException(
        "as-of instant must be an instant time of digits like 20240101120000123 " +
          "(yyyyMMddHHmmssSSS), got '" +
          asOf +
          "'"
      );
    }
    this.timeline = timeline;
    this.asOf = asOf;
    Set<String> rolledBack = timeline.rolledBackInstants();
    uncommitted.addAll(rolledBack);
    String first = null;
    for (Instant i : timeline.all()) {
      if (!i.isCompleted()) {
        uncommitted.add(i.requestedTime());
      } else if (i.isCommitLike()) {
        first = first == null ? i.requestedTime() : first;
        if (atOrBeforeAsOf(i.requestedTime()) && !rolledBack.contains(i.requestedTime())) {
          committed.add(i.requestedTime());
        }
      }
    }
    this.firstCommit = first;
    for (CompactionOperation op : timeline.pendingCompactions()) {
      if (atOrBeforeAsOf(op.instantTime())) {
        pendingCompactions.put(op.fileGroupId(), op.instantTime());
      }
    }
    this.replaced = timeline.replacedFileGroups(asOf);
  }

  /** The as-of instant time; null for the latest state. */
  public String asOf() {
    return asOf;
  }

  public Timeline timeline() {
    return timeline;
  }

  private boolean atOrBeforeAsOf(String instantTime) {
    return asOf == null || instantTime.compareTo(asOf) <= 0;
  }

  /** Whether data written by this instant (file-name instant, log block INSTANT_TIME) is visible. */
  public boolean isCommitted(String instantTime) {
    if (!atOrBeforeAsOf(instantTime)) {
      return false;
    }
    if (committed.contains(instantTime)) {
      return true;
    }
    return !uncommitted.contains(instantTime) && firstCommit != null && instantTime.compareTo(firstCommit) < 0;
  }

  /** Completion time of a completed layout-2 instant, else null. */
  public String completionTime(String instantTime) {
    return timeline.completionTime(instantTime);
  }

  /** Instant of the pending compaction planned on this file group (requested at or before as-of), or null. */
  public String pendingCompaction(FileGroupId id) {
    return pendingCompactions.get(id);
  }

  public boolean isReplaced(FileGroupId id) {
    return replaced.containsKey(id);
  }

  /** Replaced file groups mapped to the replacecommit that replaced them. */
  public Map<FileGroupId, String> replacedFileGroups() {
    return replaced;
  }
}
