package io.hudimeta.spark;

import io.hudimeta.log.DeleteRecord;
import io.hudimeta.log.LogBlock;
import io.hudimeta.log.LogFileReader;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.spark.sql.types.StructType;

/**
 * Reads a file slice's log files into a {@link LogRecordBuffer}. Blocks of instants that are not
 * visible (inflight, failed, after the query instant) are skipped, and a rollback command block
 * drops the earlier blocks of the instant it rolls back.
 */
final class LogScanner {

  private LogScanner() {}

  static LogRecordBuffer scan(
    Configuration conf,
    String[] logFiles,
    StructType mergeSchema,
    MergeSpec spec,
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
    LogRecordBuffer buffer = new LogRecordBuffer(spec);
    for (LogBlock b : blocks) {
      String instant = b.instantTime();
      if (b.isRollback() || rolledBack.contains(instant) || !visibleInstants.contains(instant)) {
        continue;
      }
      apply(b, buffer, mergeSchema, spec);
    }
    return buffer;
  }

  private static List<LogBlock> read(Configuration conf, String file) {
    try {
      Path path = new Path(file);
      return LogFileReader.read(path.getFileSystem(conf), path);
    } catch (IOException e) {
      throw new UncheckedIOException("hudi-meta: cannot read log file " + file, e);
    }
  }

  private static void apply(LogBlock block, LogRecordBuffer buffer, StructType mergeSchema, MergeSpec spec) {
    block.checkSupported();
    switch (block.type()) {
      case AVRO_DATA:
        block.avroRows(mergeSchema).forEach(buffer::addRecord);
        break;
      case PARQUET_DATA:
        block.parquetRows(mergeSchema).forEach(buffer::addRecord);
        break;
      case DELETE:
        for (DeleteRecord d : block.deleteRecords()) {
          buffer.addDelete(d.recordKey(), OrderingValues.normalize(d.orderingValue(), spec.orderingType));
        }
        break;
      default:
        throw new UnsupportedOperationException(
          "hudi-meta: log block type " + block.type() + " in " + block.source() + " is not supported in data tables"
        );
    }
  }
}
