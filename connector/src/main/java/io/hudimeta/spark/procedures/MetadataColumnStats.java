package io.hudimeta.spark.procedures;

import io.hudimeta.HudiException;
import io.hudimeta.metadata.ColumnStat;
import io.hudimeta.metadata.MetadataKeys;
import io.hudimeta.metadata.MetadataRecord;
import io.hudimeta.metadata.MetadataTable;
import io.hudimeta.table.FileSlice;
import io.hudimeta.table.TableConfig;
import io.hudimeta.table.Timeline;
import io.hudimeta.view.SyncedView;
import io.hudimeta.view.TableViews;
import io.hudimeta.view.ViewStorageConfig;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;

/**
 * {@code show_metadata_table_column_stats}, as Hudi 1.2's: the column_stats records of the columns named by
 * {@code targetColumns} (comma-separated; none named, no rows) for the base files of the latest file slices
 * (of {@code partition}s, comma-separated, or all), one row per file and column, sorted by column; values as
 * Hudi prints its stats wrappers. Hudi's {@code filter} (an expression over the rows) is refused when given.
 */
final class MetadataColumnStats {

  private MetadataColumnStats() {}

  static List<Object[]> rows(String basePath, Args args) {
    String filter = args.string("filter");
    if (filter != null && !filter.isEmpty()) {
      throw new HudiException(
        "CALL show_metadata_table_column_stats: filter is not supported; filter the rows in SQL " +
          "(SELECT ... FROM the procedure's result) instead"
      );
    }
    List<String> columns = names(args.string("targetColumns"));
    List<Object[]> rows = new ArrayList<>();
    if (columns.isEmpty()) {
      return rows;
    }
    Set<String> files = latestBaseFiles(basePath, names(args.string("partition")));
    Path base = new Path(basePath);
    FileSystem fs = FsView.fileSystem(base);
    TableConfig config = TableConfig.load(fs, base);
    Optional<MetadataTable> opened = MetadataTable.open(fs, base, config, Timeline.load(fs, base, config));
    if (opened.isEmpty() || !opened.get().hasPartition(MetadataTable.COLUMN_STATS)) {
      opened.ifPresent(MetadataTable::close);
      throw new HudiException(
        "CALL show_metadata_table_column_stats: the table at " +
          basePath +
          " has no column_stats index; build it with `pyhudi index create " +
          basePath +
          " --type column_stats` (or write with hoodie.metadata.index.column.stats.enable=true)"
      );
    }
    try (MetadataTable mdt = opened.get()) {
      List<String> prefixes = columns.stream().map(MetadataKeys::hashId64).toList();
      for (MetadataRecord r : mdt.scanPrefixes(MetadataTable.COLUMN_STATS, prefixes).values()) {
        ColumnStat c = r.columnStat();
        if (c != null && files.contains(c.fileName())) {
          rows.add(new Object[] { c.fileName(), c.columnName(), text(c.min()), text(c.max()), c.nullCount() });
        }
      }
    }
    rows.sort(Comparator.comparing(r -> (String) r[1])); // stable: key order within a column
    return rows;
  }

  private static Set<String> latestBaseFiles(String basePath, List<String> partitions) {
    Path base = new Path(basePath);
    SyncedView view = TableViews.synced(FsView.fileSystem(base), base, ViewStorageConfig.of(Map.of()));
    Set<String> out = new HashSet<>();
    for (String partition : partitions.isEmpty() ? view.partitions() : partitions) {
      for (FileSlice s : view.latestFileSlices(partition, null)) {
        if (s.baseFile() != null) {
          out.add(s.baseFile().name());
        }
      }
    }
    return out;
  }

  private static List<String> names(String given) {
    return given == null
      ? List.of()
      : Arrays.stream(given.split(","))
          .map(String::trim)
          .filter(c -> !c.isEmpty())
          .toList();
  }

  /** A stat value as Hudi's procedure prints it: String.valueOf of the wrapper's value, bytes as Arrays.toString. */
  private static String text(Object value) {
    if (value instanceof ByteBuffer b) {
      return text(Arrays.copyOfRange(b.array(), b.arrayOffset() + b.position(), b.arrayOffset() + b.limit()));
    }
    return value instanceof byte[] b ? Arrays.toString(b) : String.valueOf(value);
  }
}
