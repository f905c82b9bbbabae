package io.hudimeta.table;

/**
 * How far back a table can still be read after its cleans. Apache Hudi's cleaner with the
 * KEEP_LATEST_COMMITS or KEEP_LATEST_BY_HOURS policy deletes file slices older than the earliest commit
 * it retains, and records that commit as {@code earliestCommitToRetain} in the completed clean's
 * HoodieCleanMetadata: the latest completed clean's value is the earliest instant still readable.
 * KEEP_LATEST_FILE_VERSIONS records none (it keeps slices per file group, not a range of the
 * timeline): then there is no horizon and nothing is checked.
 */
public final class CleanHorizon {

  private final String clean;
  private final String earliestReadable;

  private CleanHorizon(String clean, String earliestReadable) {
    this.clean = clean;
    this.earliestReadable = earliestReadable;
  }

  /** The horizon the latest completed clean on this timeline left. */
  public static CleanHorizon of(Timeline timeline) {
    Instant last = null;
    for (Instant i : timeline.completed()) {
      if (i.action().equals(Instant.CLEAN) && (last == null || i.compareTo(last) > 0)) {
        last = i;
      }
    }
    if (last == null) {
      return new CleanHorizon(null, null);
    }
    String earliest = timeline.metadata(last).path("earliestCommitToRetain").asText("").trim();
    return new CleanHorizon(last.requestedTime(), earliest.isEmpty() ? null : earliest);
  }

  /** Requested time of the earliest instant still readable; null when no clean bounds it. */
  public String earliestReadable() {
    return earliestReadable;
  }

  /** Requested time of the clean that set the horizon; null when the table has no completed clean. */
  public String clean() {
    return clean;
  }

  /**
   * Refuses a query that needs files a clean deleted: a time travel ({@code asOf}) to before the
   * horizon, or an incremental query whose range from {@code incrementalBegin} (exclusive) holds
   * commits older than the horizon. Reads only the latest clean's metadata, and only when the query
   * asks for a past instant.
   *
   * @param asOfOption  the read option {@code asOf} came from, named in the message
   * @param beginOption the read option {@code incrementalBegin} came from
   * @throws IllegalArgumentException naming the instant asked for, the earliest one still readable
   *     and the fix
   */
  public static void check(
    Timeline timeline,
    String asOf,
    String incrementalBegin,
    String path,
    String asOfOption,
    String beginOption
  ) {
    if (asOf == null && incrementalBegin == null) {
      return;
    }
    CleanHorizon horizon = of(timeline);
    String earliest = horizon.earliestReadable;
    if (earliest == null) {
      return;
    }
    if (incrementalBegin != null) {
      boolean cleaned = false;
      for (Instant commit : timeline.commitsBetween(incrementalBegin, asOf)) {
        cleaned |= commit.requestedTime().compareTo(earliest) < 0;
      }
      if (cleaned) {
        throw horizon.error(
          beginOption,
          incrementalBegin,
          path,
          "start the incremental query at " + earliest + " or later"
        );
      }
    } else if (asOf.compareTo(earliest) < 0) {
      throw horizon.error(asOfOption, asOf, path, "read as of " + earliest + " or later");
    }
  }

  private IllegalArgumentException error(String option, String asked, String path, String fix) {
    return new IllegalArgumentException(
      "hudi-meta: " +
        option +
        "=" +
        asked +
        " asks for an instant older than " +
        earliestReadable +
        ", the earliest instant still readable in " +
        path +
        ": clean " +
        clean +
        " deleted the file versions older than it. To read this table: " +
        fix +
        ". To keep older instants readable, retain more commits with hoodie.cleaner.commits.retained " +
        "(or hoodie.cleaner.hours.retained) before the next clean."
    );
  }
}
