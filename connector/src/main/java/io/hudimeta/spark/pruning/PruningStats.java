package io.hudimeta.spark.pruning;

import org.apache.spark.sql.connector.metric.CustomMetric;
import org.apache.spark.sql.connector.metric.CustomTaskMetric;

/**
 * What each pruning step of one scan plan left: partitions listed, after path-based partition
 * pruning and after partition_stats; file slices and files before and after column_stats, then after
 * record_index. Shown in the scan's description and reported as driver-side SQL metrics.
 *
 * @param skipping    how data skipping applied ("column_stats+partition_stats", "column_stats", "off(...)";
 *                    "record_index" when the record index answered first: partitions holding the keys listed,
 *                    the stats not read, so the counts "after partition_stats / column_stats" are those)
 * @param recordIndex how record-index pruning applied ({@link RecordIndexPruning#describe()})
 */
public record PruningStats(
  String skipping,
  long partitionsListed,
  long partitionsAfterPath,
  long partitionsAfterStats,
  long slicesBefore,
  long slicesAfter,
  long filesBefore,
  long filesAfter,
  String recordIndex,
  long recordIndexKeys,
  long slicesAfterRecordIndex,
  long filesAfterRecordIndex
) {
  public static final PruningStats NOT_PLANNED = new PruningStats(
    "not planned",
    0,
    0,
    0,
    0,
    0,
    0,
    0,
    "record_index: not planned",
    0,
    0,
    0
  );

  private static final String[][] METRICS = {
    { "partitionsListed", "partitions listed" },
    { "partitionsAfterPathPruning", "partitions after path pruning" },
    { "partitionsAfterPartitionStats", "partitions after partition_stats" },
    { "fileSlicesBeforeSkipping", "file slices before column_stats" },
    { "fileSlicesAfterSkipping", "file slices after column_stats" },
    { "filesBeforeSkipping", "files before column_stats" },
    { "filesAfterSkipping", "files after column_stats" },
    { "recordIndexKeys", "record keys looked up in record_index" },
    { "fileSlicesAfterRecordIndex", "file slices after record_index" },
    { "filesAfterRecordIndex", "files after record_index" },
  };

  /** The metrics a scan declares, in the order of {@link #driverMetrics()}. */
  public static CustomMetric[] metrics() {
    CustomMetric[] out = new CustomMetric[METRICS.length];
    for (int i = 0; i < METRICS.length; i++) {
      out[i] = new PruningMetric(METRICS[i][0], METRICS[i][1]);
    }
    return out;
  }

  public CustomTaskMetric[] driverMetrics() {
    long[] values = {
      partitionsListed,
      partitionsAfterPath,
      partitionsAfterStats,
      slicesBefore,
      slicesAfter,
      filesBefore,
      filesAfter,
      recordIndexKeys,
      slicesAfterRecordIndex,
      filesAfterRecordIndex,
    };
    CustomTaskMetric[] out = new CustomTaskMetric[METRICS.length];
    for (int i = 0; i < METRICS.length; i++) {
      out[i] = new Value(METRICS[i][0], values[i]);
    }
    return out;
  }

  /**
   * e.g. "dataSkipping=column_stats partitions 3 -> path 3 -> partition_stats 3, fileSlices 5 -> column_stats 2,
   * files 7 -> column_stats 3, record_index: 1 key -> 1 file group, 1 of 2 file slices pruned".
   */
  public String describe() {
    return (
      "dataSkipping=" +
      skipping +
      " partitions " +
      partitionsListed +
      " -> path " +
      partitionsAfterPath +
      " -> partition_stats " +
      partitionsAfterStats +
      ", fileSlices " +
      slicesBefore +
      " -> column_stats " +
      slicesAfter +
      ", files " +
      filesBefore +
      " -> column_stats " +
      filesAfter +
      ", " +
      recordIndex
    );
  }

  private record Value(String name, long value) implements CustomTaskMetric {}
}
