package io.hudimeta.spark.streaming;

import io.hudimeta.spark.options.Instants;
import io.hudimeta.spark.options.ReadOptions;
import io.hudimeta.spark.plan.TableSnapshot;
import java.util.function.Function;
import org.apache.spark.sql.connector.read.Batch;
import org.apache.spark.sql.connector.read.InputPartition;
import org.apache.spark.sql.connector.read.PartitionReaderFactory;
import org.apache.spark.sql.connector.read.Scan;
import org.apache.spark.sql.connector.read.streaming.MicroBatchStream;
import org.apache.spark.sql.connector.read.streaming.Offset;

/**
 * A streaming read of a Hudi table: offsets are commit times (completion times on layout 2, the time
 * incremental queries range over), and each micro-batch is the incremental query of the commits in
 * (start, end], read by the same planning and readers as a batch query.
 */
public final class HudiMicroBatchStream implements MicroBatchStream {

  private static final String EARLIEST = "00000000000000000";

  private final ReadOptions options;
  private final Function<TableSnapshot, Scan> scans;
  private Batch planned; // the batch last planned: Spark asks it for the reader factory next

  /**
   * @param scans how the scan that started the stream scans one micro-batch's snapshot, as it scans its own
   *     (its columns, its filters): the scans make the stream, so they hand it in
   */
  public HudiMicroBatchStream(ReadOptions options, Function<TableSnapshot, Scan> scans) {
    this.options = options;
    this.scans = scans;
  }

  /** A commit time as a streaming offset (its JSON, a quoted string, is what the checkpoint keeps). */
  static final class CommitOffset extends Offset {

    final String time;

    CommitOffset(String time) {
      this.time = time;
    }

    @Override
    public String json() {
      return "\"" + time + "\"";
    }
  }

  @Override
  public Offset initialOffset() {
    return switch (options.streamStart.toLowerCase(java.util.Locale.ROOT)) {
      case "earliest" -> new CommitOffset(EARLIEST);
      case "latest" -> latestOffset();
      default -> new CommitOffset(Instants.normalize(options.streamStart, ReadOptions.STREAM_START));
    };
  }

  @Override
  public Offset latestOffset() {
    String latest = TableSnapshot.load(options).latestCommitTime();
    return new CommitOffset(latest == null ? EARLIEST : latest);
  }

  @Override
  public InputPartition[] planInputPartitions(Offset start, Offset end) {
    ReadOptions batch = options.incremental(((CommitOffset) start).time, ((CommitOffset) end).time);
    Scan scan = scans.apply(TableSnapshot.load(batch));
    planned = scan.toBatch();
    return planned.planInputPartitions();
  }

  @Override
  public PartitionReaderFactory createReaderFactory() {
    return planned.createReaderFactory();
  }

  @Override
  public Offset deserializeOffset(String json) {
    return new CommitOffset(json.trim().replace("\"", ""));
  }

  @Override
  public void commit(Offset end) {}

  @Override
  public void stop() {}
}
