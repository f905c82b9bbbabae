package io.hudimeta.spark.pruning;

import io.hudimeta.metadata.ColumnStat;
import io.hudimeta.metadata.MetadataDamage;
import io.hudimeta.metadata.MetadataTable;
import io.hudimeta.spark.options.ReadOptions;
import io.hudimeta.table.TableConfig;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.spark.sql.sources.Filter;
import org.apache.spark.sql.types.StructType;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Data skipping from the metadata table's statistics: drops data partitions whose
 * {@code partition_stats} and file slices whose files' {@code column_stats} prove that no row can
 * satisfy the pushed filters. Anything the statistics cannot decide (no stats, an unknown column,
 * a type or value it cannot place) keeps the partition or slice: Spark re-applies every filter. A
 * statistics partition found damaged ({@link MetadataDamage}) prunes nothing for the rest of the plan.
 *
 * <p>A filter is judged per file (or partition) by {@link StatsEvaluator}: may some row make it TRUE,
 * and may some row make it FALSE.
 *
 * <p>Merge-on-read: a slice's merged rows are whole records from its base file or one of its log files
 * (the reader merges whole records), so a slice is kept when any of its files may match, or lacks stats.
 * For a table with a custom merge mode, whose merges could mix columns of several records, slices with
 * log files are always kept.
 */
public final class DataSkipping {

  private static final Logger LOG = LoggerFactory.getLogger(DataSkipping.class);

  private final MetadataTable mdt;
  private final StructType schema;
  private final Filter[] filters;
  private final Set<String> columns;
  private final boolean usePartitionStats;
  private final boolean wholeRecordMerges;
  private String mode;
  /** The statistics partitions found damaged in this plan: their pruning is off for the rest of it. */
  private boolean partitionStatsDamaged;
  private boolean columnStatsDamaged;

  private DataSkipping(
    MetadataTable mdt,
    StructType schema,
    Filter[] filters,
    Set<String> columns,
    boolean usePartitionStats,
    boolean wholeRecordMerges,
    String mode
  ) {
    this.mdt = mdt;
    this.schema = schema;
    this.filters = filters;
    this.columns = columns;
    this.usePartitionStats = usePartitionStats;
    this.wholeRecordMerges = wholeRecordMerges;
    this.mode = mode;
  }

  /**
   * The skipping a query may do.
   *
   * @param enabled            {@code hoodie.enable.data.skipping}
   * @param mdt                the metadata table the plan lists files from, or null when it lists storage
   * @param latestSnapshot     whether the query reads the latest snapshot (partition_stats describe only that)
   */
  public static DataSkipping of(
    boolean enabled,
    MetadataTable mdt,
    TableConfig config,
    StructType schema,
    Filter[] filters,
    boolean latestSnapshot
  ) {
    if (!enabled) {
      return off(schema, "off(" + ReadOptions.DATA_SKIPPING + "=false)");
    }
    if (mdt == null) {
      return off(schema, "off(storage-listing)");
    }
    if (!mdt.hasPartition(MetadataTable.COLUMN_STATS)) {
      return off(schema, "off(no-column_stats)");
    }
    boolean partitionStats = latestSnapshot && mdt.hasPartition(MetadataTable.PARTITION_STATS);
    Set<String> columns = new LinkedHashSet<>();
    StatsEvaluator.Columns collect = new StatsEvaluator.Columns(schema, config.populateMetaFields(), columns);
    for (Filter f : filters) {
      collect.visit(f);
    }
    boolean wholeRecords = config.recordMergeMode() != TableConfig.MergeMode.CUSTOM;
    String mode = partitionStats ? "column_stats+partition_stats" : "column_stats";
    return new DataSkipping(mdt, schema, filters, columns, partitionStats, wholeRecords, mode);
  }

  private static DataSkipping off(StructType schema, String why) {
    return new DataSkipping(null, schema, new Filter[0], Set.of(), false, true, why);
  }

  /**
   * How skipping applies, for the scan's description ("off(...)" when it does not; "off(damaged-column_stats)",
   * "column_stats+off(damaged-partition_stats)"... when a statistics partition was found damaged).
   */
  public String mode() {
    return mode;
  }

  private boolean active() {
    return mdt != null && !columns.isEmpty();
  }

  /** The partitions whose partition_stats do not rule the filters out, in their order. */
  public List<String> prunePartitions(List<String> partitions) {
    if (!active() || !usePartitionStats || partitionStatsDamaged || partitions.isEmpty()) {
      return partitions;
    }
    Map<String, Map<String, ColumnStat>> stats;
    try {
      stats = mdt.partitionStats(partitions, columns);
    } catch (RuntimeException e) {
      MetadataDamage damage = MetadataDamage.in(e);
      if (damage == null) {
        LOG.warn("Not pruning partitions of {}: partition_stats cannot be read", mdt.dataBasePath(), e);
      } else {
        damage.report("Not pruning partitions of " + mdt.dataBasePath() + " by partition_stats in this query");
        partitionStatsDamaged = true;
        mode = columnStatsDamaged
          ? "off(damaged-column_stats+partition_stats)"
          : "column_stats+off(damaged-partition_stats)";
      }
      return partitions;
    }
    List<String> kept = new ArrayList<>();
    for (String partition : partitions) {
      Map<String, ColumnStat> s = stats.get(partition);
      if (s == null || mayMatch(s)) {
        kept.add(partition);
      }
    }
    return kept;
  }

  /** The splits of which some file may hold a matching row (per column_stats), in their order. */
  public <S extends PrunableSlice> List<S> pruneSlices(List<S> splits) {
    if (!active() || columnStatsDamaged || splits.isEmpty()) {
      return splits;
    }
    Map<String, List<S>> byPartition = new LinkedHashMap<>();
    for (S s : splits) {
      byPartition.computeIfAbsent(s.partitionPath(), k -> new ArrayList<>()).add(s);
    }
    Set<S> kept = new LinkedHashSet<>();
    for (Map.Entry<String, List<S>> e : byPartition.entrySet()) {
      Map<String, Map<String, ColumnStat>> stats;
      try {
        stats = mdt.columnStats(e.getKey(), columns);
      } catch (RuntimeException ex) {
        MetadataDamage damage = MetadataDamage.in(ex);
        if (damage != null) {
          damage.report("Not skipping files of " + mdt.dataBasePath() + " by column_stats in this query");
          columnStatsDamaged = true;
          mode = partitionStatsDamaged
            ? "off(damaged-column_stats+partition_stats)"
            : usePartitionStats
              ? "partition_stats+off(damaged-column_stats)"
              : "off(damaged-column_stats)";
          return splits; // every candidate kept: no file is judged by a partition that lacks records
        }
        LOG.warn(
          "Not skipping files of partition '{}' of {}: column_stats cannot be read",
          e.getKey(),
          mdt.dataBasePath(),
          ex
        );
        kept.addAll(e.getValue());
        continue;
      }
      for (S s : e.getValue()) {
        if (mayMatch(s, stats)) {
          kept.add(s);
        }
      }
    }
    List<S> out = new ArrayList<>();
    for (S s : splits) {
      if (kept.contains(s)) {
        out.add(s);
      }
    }
    return out;
  }

  private boolean mayMatch(PrunableSlice split, Map<String, Map<String, ColumnStat>> stats) {
    if (split.logFiles().length > 0 && !wholeRecordMerges) {
      return true;
    }
    List<String> files = new ArrayList<>();
    if (split.baseFile() != null) {
      files.add(fileName(split.baseFile()));
    }
    for (String log : split.logFiles()) {
      files.add(fileName(log));
    }
    for (String file : files) {
      Map<String, ColumnStat> s = stats.get(file);
      if (s == null || mayMatch(s)) {
        return true; // no stats for a file, or the file may hold a matching row
      }
    }
    return false;
  }

  private static String fileName(String path) {
    return path.substring(path.lastIndexOf('/') + 1);
  }

  /** Whether some row described by these stats may satisfy every filter. */
  boolean mayMatch(Map<String, ColumnStat> stats) {
    StatsEvaluator evaluator = new StatsEvaluator(stats, schema);
    for (Filter f : filters) {
      if ((evaluator.visit(f) & StatsEvaluator.MAY_TRUE) == 0) {
        return false;
      }
    }
    return true;
  }

  /** {@link StatsEvaluator#MAY_TRUE} and/or {@link StatsEvaluator#MAY_FALSE} for filter {@code f} over rows with these stats. */
  static int eval(Filter f, Map<String, ColumnStat> stats, StructType schema) {
    return new StatsEvaluator(stats, schema).visit(f);
  }
}
