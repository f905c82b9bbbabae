package io.hudimeta.index;

import io.hudimeta.table.CommitMetadata;
import io.hudimeta.table.Instant;
import io.hudimeta.table.Timeline;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * Whether a table may hold a record key more than once, from the operations of its commits (active and
 * archived): an insert or bulk_insert writes its keys without looking them up (Apache Hudi 1.1's INSERT INTO,
 * pyhudi's insert), an insert_overwrite replaces only the partitions it writes, so the same key can live in two
 * file groups while the record index names one. Only upserts, deletes and the table services keep keys unique, and
 * the first write of a table or one replacing all of it meets no key written before.
 * Record-index pruning is sound only then: a filter must never change what a query returns. Answers are kept
 * per timeline state (the history is read once per table state).
 */
public final class RepeatedKeys {

  private static final Set<String> KEEP_KEYS_UNIQUE = Set.of(
    "UPSERT",
    "UPSERT_PREPPED",
    "DELETE",
    "DELETE_PREPPED",
    "DELETE_PARTITION",
    "COMPACT",
    "LOG_COMPACT",
    "CLUSTER",
    "ALTER_SCHEMA",
    "INDEX"
  );
  private static final Map<String, String> KNOWN = Collections.synchronizedMap(
    new LinkedHashMap<>(16, 0.75f, true) {
      @Override
      protected boolean removeEldestEntry(Map.Entry<String, String> eldest) {
        return size() > 256;
      }
    }
  );
  private static final String NONE = "";

  private RepeatedKeys() {}

  /**
   * The first commit that may have written a key again, as "{@code <instant> <operation>}", or null when every
   * commit of the table (the history's included) looked its keys up.
   */
  public static String firstRepeating(Timeline timeline) {
    String state = timeline.directory() + "@" + timeline.hash() + "@" + timeline.archived().fileNames();
    String known = KNOWN.get(state);
    if (known == null) {
      known = scan(timeline);
      KNOWN.put(state, known);
    }
    return known.equals(NONE) ? null : known;
  }

  /**
   * Newest first, down to the write that replaced the whole table or was its first (neither meets keys written
   * before it: nothing is left of those); a first load that holds a key twice is not seen.
   */
  private static String scan(Timeline timeline) {
    List<Instant> commits = new ArrayList<>(timeline.archivedCommits(null));
    commits.addAll(timeline.completedCommits());
    Collections.reverse(commits);
    for (int n = 0; n < commits.size(); n++) {
      Instant i = commits.get(n);
      String operation = operation(timeline.commitMetadata(i));
      if (operation.equals("INSERT_OVERWRITE_TABLE") || n == commits.size() - 1) {
        return NONE;
      }
      if (!KEEP_KEYS_UNIQUE.contains(operation)) {
        return i.requestedTime() + " " + operation.toLowerCase(Locale.ROOT);
      }
    }
    return NONE;
  }

  private static String operation(CommitMetadata meta) {
    return meta.operationType() == null ? "UNKNOWN" : meta.operationType().toUpperCase(Locale.ROOT);
  }
}
