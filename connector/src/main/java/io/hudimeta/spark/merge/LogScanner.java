package io.hudimeta.spark.merge;

import io.hudimeta.log.DeleteRecord;
import io.hudimeta.log.HeaderKey;
import io.hudimeta.log.LogBlock;
import io.hudimeta.log.LogFileReader;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.types.StructType;

/**
 * Reads a file slice's log files into a {@link LogRecordBuffer}, as Apache Hudi's log record scanner
 * does (its optimized scan, which hudi-rs follows too). Blocks of instants that are not visible (inflight,
 * failed, after the query instant) are skipped, and a rollback command block drops the blocks of the
 * instant it rolls back. A log compaction's blocks (header COMPACTED_BLOCK_TIMES) stand for the instants
 * they list: those instants' own blocks are skipped and the compacted ones are merged where the newest of
 * them was, so a write that landed between the compacted instants and the log compaction still wins.
 */
public final class LogScanner {

  private LogScanner() {}

  /** What a scan merged, and Hudi's "valid block instants": the instants whose blocks went in, newest first. */
  public static final class Result {

    final LogRecordBuffer buffer;
    final List<String> validInstants;

    private Result(LogRecordBuffer buffer, List<String> validInstants) {
      this.buffer = buffer;
      this.validInstants = validInstants;
    }
  }

  /**
   * The slice's log records; blocks whose RECORD_POSITIONS refer to the base file written at {@code baseInstant}
   * (null: no base file) keep their positions, for a positional merge.
   */
  public static LogRecordBuffer scan(
    Configuration conf,
    String[] logFiles,
    StructType mergeSchema,
    MergeSpec spec,
    Set<String> visibleInstants,
    String baseInstant
  ) {
    return scanBlocks(conf, logFiles, mergeSchema, spec, visibleInstants, baseInstant).buffer;
  }

  /** The log records merged by key (what a log compaction writes has no base file), with the valid instants. */
  public static Result scanWithInstants(
    Configuration conf,
    String[] logFiles,
    StructType mergeSchema,
    MergeSpec spec,
    Set<String> visibleInstants
  ) {
    return scanBlocks(conf, logFiles, mergeSchema, spec, visibleInstants, null);
  }

  private static Result scanBlocks(
    Configuration conf,
    String[] logFiles,
    StructType mergeSchema,
    MergeSpec spec,
    Set<String> visibleInstants,
    String baseInstant
  ) {
    Map<String, List<LogBlock>> byInstant = visibleBlocks(conf, logFiles, visibleInstants);
    List<String> order = mergeOrder(byInstant);
    LogRecordBuffer buffer = new LogRecordBuffer(spec);
    for (int i = order.size() - 1; i >= 0; i--) {
      for (LogBlock b : byInstant.get(order.get(i))) {
        apply(b, buffer, mergeSchema, spec, baseInstant);
      }
    }
    return new Result(buffer, order);
  }

  /** The visible blocks, by instant in order of first appearance; rolled-back instants left out. */
  private static Map<String, List<LogBlock>> visibleBlocks(
    Configuration conf,
    String[] logFiles,
    Set<String> visibleInstants
  ) {
    List<LogBlock> blocks = new ArrayList<>();
    for (String file : logFiles) {
      blocks.addAll(read(conf, file));
    }
    Set<String> rolledBack = new HashSet<>();
    for (LogBlock b : blocks) {
      if (b.isRollback()) {
        rolledBack.add(b.rollbackTargetInstant());
      }
    }
    Map<String, List<LogBlock>> byInstant = new LinkedHashMap<>();
    for (LogBlock b : blocks) {
      String instant = b.instantTime();
      if (b.isRollback() || rolledBack.contains(instant) || !visibleInstants.contains(instant)) {
        continue;
      }
      byInstant.computeIfAbsent(instant, t -> new ArrayList<>()).add(b);
    }
    return byInstant;
  }

  /**
   * The instants whose blocks are merged, newest first. Walking from the newest instant back, a log
   * compaction maps the instants it lists to itself (or to the later log compaction that took it in), and
   * its blocks are merged at the place of the newest instant it replaced.
   */
  private static List<String> mergeOrder(Map<String, List<LogBlock>> byInstant) {
    List<String> instants = new ArrayList<>(byInstant.keySet());
    Map<String, String> compactedInto = new HashMap<>();
    List<String> order = new ArrayList<>();
    for (int i = instants.size() - 1; i >= 0; i--) {
      String instant = instants.get(i);
      String replaced = byInstant.get(instant).get(0).header(HeaderKey.COMPACTED_BLOCK_TIMES);
      String target = compactedInto.getOrDefault(instant, instant);
      if (replaced != null) {
        for (String t : replaced.split(",")) {
          compactedInto.put(t.trim(), target);
        }
      } else if (!order.contains(target)) {
        order.add(target);
      }
    }
    return order;
  }

  private static List<LogBlock> read(Configuration conf, String file) {
    try {
      Path path = new Path(file);
      return LogFileReader.read(path.getFileSystem(conf), path);
    } catch (IOException e) {
      throw new UncheckedIOException("hudi-meta: cannot read log file " + file, e);
    }
  }

  private static void apply(
    LogBlock block,
    LogRecordBuffer buffer,
    StructType mergeSchema,
    MergeSpec spec,
    String baseInstant
  ) {
    block.checkSupported();
    switch (block.type()) {
      case AVRO_DATA:
        addRecords(block, block.avroRows(mergeSchema), buffer, baseInstant);
        break;
      case PARQUET_DATA:
        addRecords(block, block.parquetRows(mergeSchema), buffer, baseInstant);
        break;
      case DELETE:
        addDeletes(block, block.deleteRecords(), buffer, spec, baseInstant);
        break;
      default:
        throw new UnsupportedOperationException(
          "hudi-meta: log block type " + block.type() + " in " + block.source() + " is not supported in data tables"
        );
    }
  }

  /** Hudi's writer puts a block's records in position order: the i-th record is at the i-th position. */
  private static void addRecords(LogBlock block, List<InternalRow> rows, LogRecordBuffer buffer, String baseInstant) {
    long[] positions = block.recordPositions(baseInstant, rows.size());
    for (int i = 0; i < rows.size(); i++) {
      buffer.addRecord(rows.get(i), positions == null ? LogRecordBuffer.NO_POSITION : positions[i]);
    }
  }

  private static void addDeletes(
    LogBlock block,
    List<DeleteRecord> deletes,
    LogRecordBuffer buffer,
    MergeSpec spec,
    String baseInstant
  ) {
    long[] positions = block.recordPositions(baseInstant, deletes.size());
    for (int i = 0; i < deletes.size(); i++) {
      DeleteRecord d = deletes.get(i);
      long position = positions == null ? LogRecordBuffer.NO_POSITION : positions[i];
      buffer.addDelete(d.recordKey(), OrderingValues.normalize(d.orderingValue(), spec.orderingType), position);
    }
  }
}
