package io.hudimeta.spark.merge;

import java.io.Serializable;
import java.util.Set;
import org.apache.spark.sql.catalyst.InternalRow;

/** Keeps the rows an incremental query asks for: those whose _hoodie_commit_time is in range. */
public final class RowFilter implements Serializable {

  public static final RowFilter ALL = new RowFilter(-1, null);

  private final int commitTimeIndex;
  private final Set<String> commitTimes;

  public RowFilter(int commitTimeIndex, Set<String> commitTimes) {
    this.commitTimeIndex = commitTimeIndex;
    this.commitTimes = commitTimes;
  }

  public boolean keepsAll() {
    return commitTimes == null;
  }

  boolean keep(InternalRow row) {
    if (commitTimes == null) {
      return true;
    }
    return !row.isNullAt(commitTimeIndex) && commitTimes.contains(row.getUTF8String(commitTimeIndex).toString());
  }
}
