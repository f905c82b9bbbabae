package io.hudimeta.spark.cdc;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.lit;
import static org.apache.spark.sql.functions.struct;
import static org.apache.spark.sql.functions.substring_index;

import io.hudimeta.log.LogBlock;
import io.hudimeta.log.LogBlockType;
import io.hudimeta.log.LogFileReader;
import io.hudimeta.spark.options.ReadOptions;
import io.hudimeta.spark.plan.TableSnapshot;
import io.hudimeta.table.CommitMetadata;
import io.hudimeta.table.Instant;
import io.hudimeta.table.MetaFields;
import io.hudimeta.table.TableConfig;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.apache.hadoop.fs.Path;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.catalyst.CatalystTypeConverters;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.classic.SparkSession;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;

/**
 * Apache Hudi's AS_IS case of a CDC query: on a table that logs before and after images
 * ({@code hoodie.table.cdc.supplemental.logging.mode=DATA_BEFORE_AFTER}), a commit whose every write
 * stat either names its CDC log files ({@code cdcStats}) or created a file group (its records all
 * inserts) has its changes read from those log files and the new groups alone: no read of the table
 * as it was before the commit, which cleaning may have removed. docs/cdc.md.
 */
final class CdcLogReader {

  private CdcLogReader() {}

  /** The changes of {@code commit} as its CDC log files hold them, or null when it is not such a commit. */
  static Dataset<Row> changes(TableSnapshot snapshot, Instant commit, CommitMetadata meta) {
    if (!logsImages(snapshot.config()) || !meta.partitionToReplaceFileIds().isEmpty()) {
      return null;
    }
    List<String> logs = new ArrayList<>();
    Set<String> created = new TreeSet<>();
    Set<String> partitions = new TreeSet<>();
    for (CommitMetadata.WriteStat s : meta.allWriteStats()) {
      if (!s.cdcStats().isEmpty()) {
        logs.addAll(s.cdcStats().keySet());
      } else if (createdGroup(s)) {
        created.add(s.fileId());
        partitions.add(s.partitionPath() == null ? "" : s.partitionPath());
      } else {
        return null;
      }
    }
    String time = commit.requestedTime();
    Dataset<Row> after = SparkSession.active()
      .read()
      .format(ReadOptions.FORMAT)
      .options(snapshot.readOptions().snapshotAsOf(time))
      .load();
    StructType data = TableSnapshot.dataSchema(after.schema());
    Dataset<Row> inserts = after
      .where(col(MetaFields.PARTITION_PATH).isin(partitions.toArray()))
      .where(substring_index(col(MetaFields.FILE_NAME), "_", 1).isin(created.toArray()))
      .select(
        lit("i").as("op"),
        lit(time).as("ts_ms"),
        lit(null).cast(DataTypes.StringType).as("before"),
        image(after.schema()).as("after")
      );
    return inserts.union(logged(snapshot, logs, data));
  }

  /** Is the table's change data logged with both images (Hudi 0.13's spelling taken too)? */
  private static boolean logsImages(TableConfig config) {
    String mode = config.get("hoodie.table.cdc.supplemental.logging.mode", "DATA_BEFORE_AFTER");
    return config.cdcEnabled() && mode.toUpperCase().replace("CDC_", "").equals("DATA_BEFORE_AFTER");
  }

  /** A base file of a new file group, all its records inserts (Hudi's BASE_FILE_INSERT case). */
  private static boolean createdGroup(CommitMetadata.WriteStat s) {
    String name = s.fileName();
    return (
      name != null &&
      !name.startsWith(".") &&
      s.numUpdateWrites() == 0 &&
      s.numDeletes() == 0 &&
      s.numWrites() == s.numInserts()
    );
  }

  /** The records of the CDC log files, their images as JSON of the data columns. */
  private static Dataset<Row> logged(TableSnapshot snapshot, List<String> files, StructType data) {
    StructType type = new StructType()
      .add("op", DataTypes.StringType)
      .add("ts_ms", DataTypes.StringType)
      .add("before", data)
      .add("after", data);
    List<Row> rows = new ArrayList<>();
    for (String file : files) {
      for (LogBlock block : read(snapshot, file)) {
        if (block.type() == LogBlockType.CDC_DATA) {
          for (InternalRow r : block.cdcRows(type)) {
            rows.add((Row) CatalystTypeConverters.convertToScala(r, type));
          }
        }
      }
    }
    return SparkSession.active()
      .createDataFrame(rows, type)
      .select(
        col("op"),
        col("ts_ms"),
        CdcImages.text(col("before"), data).as("before"),
        CdcImages.text(col("after"), data).as("after")
      );
  }

  private static List<LogBlock> read(TableSnapshot snapshot, String file) {
    Path path = new Path(snapshot.basePath(), file);
    try {
      return LogFileReader.read(snapshot.fileSystem(), path);
    } catch (IOException e) {
      throw new UncheckedIOException("hudi-meta: cannot read the CDC log file " + path, e);
    }
  }

  /** A snapshot row's CDC image: its data columns (Hudi's meta columns left out) in Hudi's text, one form for logged and inferred changes. */
  static Column image(StructType snapshotSchema) {
    StructType dataType = TableSnapshot.dataSchema(snapshotSchema);
    StructField[] data = dataType.fields();
    Column[] columns = new Column[data.length];
    for (int i = 0; i < data.length; i++) {
      columns[i] = col(data[i].name());
    }
    return CdcImages.text(struct(columns), dataType);
  }
}
