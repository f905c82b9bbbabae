package io.hudimeta.table;

import java.io.Serializable;
import java.util.Comparator;

/**
 * A log file {@code .<fileId>_<instantTime>.log.<version>_<writeToken>[.cdc|-cdc]} (docs/format.md §1.1).
 *
 * @param instantTime layout 2 (v8+): requested time of the deltacommit that wrote it;
 *                    layout 1 (v6): base instant of its file slice
 * @param writeToken  {@code <task>-<stage>-<attempt>}, null in very old names without one
 * @param suffix      {@code ""}, or {@code ".cdc"}/{@code "-cdc"} for change-data files
 * @param size        bytes, or -1 when the listing did not say
 */
public record LogFile(
  String name,
  String fileId,
  String instantTime,
  int version,
  String writeToken,
  String suffix,
  long size
) implements Serializable, Comparable<LogFile> {
  /** Hudi's LogFileComparator order: instant time, then version, then write token, then suffix. */
  public static final Comparator<LogFile> ORDER = Comparator.comparing(LogFile::instantTime)
    .thenComparingInt(LogFile::version)
    .thenComparing(LogFile::writeToken, Comparator.nullsFirst(Comparator.naturalOrder()))
    .thenComparing(LogFile::suffix);

  public boolean isCdc() {
    return !suffix.isEmpty();
  }

  @Override
  public int compareTo(LogFile other) {
    return ORDER.compare(this, other);
  }
}
