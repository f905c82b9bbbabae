package io.hudimeta.spark.source;

import io.hudimeta.spark.merge.LogCompactionReader;
import io.hudimeta.spark.merge.MergeSpec;
import io.hudimeta.spark.merge.RowFilter;
import io.hudimeta.spark.plan.SliceSplit;
import io.hudimeta.spark.plan.TableSnapshot;
import io.hudimeta.spark.pruning.PruningStats;
import io.hudimeta.spark.streaming.HudiMicroBatchStream;
import io.hudimeta.table.MetaFields;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.sql.classic.SparkSession;
import org.apache.spark.sql.connector.metric.CustomMetric;
import org.apache.spark.sql.connector.metric.CustomTaskMetric;
import org.apache.spark.sql.connector.read.Batch;
import org.apache.spark.sql.connector.read.InputPartition;
import org.apache.spark.sql.connector.read.PartitionReaderFactory;
import org.apache.spark.sql.connector.read.Scan;
import org.apache.spark.sql.connector.read.streaming.MicroBatchStream;
import org.apache.spark.sql.sources.Filter;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;

/** A planned scan: the file slices to read and how to read them. */
final class HudiScan implements Scan, Batch {

  private final TableSnapshot snapshot;
  private final StructType required;
  private final Filter[] filters;
  private List<SliceSplit> splits;
  private String planStats = "";
  private PruningStats pruning = PruningStats.NOT_PLANNED;

  HudiScan(TableSnapshot snapshot, StructType required, Filter[] filters) {
    this.snapshot = snapshot;
    this.required = required;
    this.filters = filters;
  }

  @Override
  public StructType readSchema() {
    return required;
  }

  /** Planned (so with the pruning counts): Spark shows it in explain() and the SQL UI. */
  @Override
  public String description() {
    splits();
    return "hudi-meta " + snapshot.describe() + " " + planStats + " " + pruning.describe();
  }

  @Override
  public CustomMetric[] supportedCustomMetrics() {
    return PruningStats.metrics();
  }

  @Override
  public CustomTaskMetric[] reportDriverMetrics() {
    splits();
    return pruning.driverMetrics();
  }

  @Override
  public Batch toBatch() {
    return this;
  }

  /** {@code readStream.format("hudi-meta")}: the table's commits, micro-batch by micro-batch. */
  @Override
  public MicroBatchStream toMicroBatchStream(String checkpointLocation) {
    return new HudiMicroBatchStream(snapshot.readOptions(), batch -> new HudiScan(batch, required, filters));
  }

  private List<SliceSplit> splits() {
    if (splits == null) {
      splits = snapshot.plan(filters);
      planStats = snapshot.planStats();
      pruning = snapshot.pruningStats();
    }
    return splits;
  }

  @Override
  public InputPartition[] planInputPartitions() {
    return splits().toArray(new InputPartition[0]);
  }

  @Override
  public PartitionReaderFactory createReaderFactory() {
    boolean anyLogs = splits().stream().anyMatch(SliceSplit::hasLogs);
    StructType mergeSchema = mergeSchema();
    MergeSpec spec = new MergeSpec(
      mergeSchema,
      snapshot.recordKeyColumn(),
      snapshot.orderingField(),
      snapshot.eventTimeOrdering()
    );
    RowFilter rowFilter =
      snapshot.commitTimeFilter() == null
        ? RowFilter.ALL
        : new RowFilter(mergeSchema.fieldIndex(MetaFields.COMMIT_TIME), snapshot.commitTimeFilter());
    SparkSession session = SparkSession.active();
    var requiredConf = ParquetConf.broadcast(session, required);
    // one broadcast when merging needs no extra column (a full scan): each costs the Hadoop conf's serialisation
    var mergeConf = mergeSchema.equals(required) ? requiredConf : ParquetConf.broadcast(session, mergeSchema);
    return new HudiReaderFactory(
      requiredConf,
      mergeConf,
      snapshot.schema(),
      required,
      mergeSchema,
      filters,
      spec,
      snapshot.visibleInstants(),
      rowFilter,
      anyLogs,
      snapshot.driftedColumns(),
      snapshot.readsLogCompaction()
    );
  }

  /** The requested columns, then whatever merging needs that was not requested. */
  private StructType mergeSchema() {
    StructType read = snapshot.readsLogCompaction() ? LogCompactionReader.withoutAddedColumns(required) : required;
    List<StructField> fields = new ArrayList<>(List.of(read.fields()));
    List<String> extra = new ArrayList<>();
    extra.add(snapshot.recordKeyColumn());
    if (snapshot.orderingField() != null) {
      extra.add(snapshot.orderingField());
    }
    extra.add(MergeSpec.IS_DELETED);
    if (snapshot.commitTimeFilter() != null) {
      extra.add(MetaFields.COMMIT_TIME);
    }
    StructType table = snapshot.schema();
    for (String name : extra) {
      boolean inTable = List.of(table.fieldNames()).contains(name);
      boolean present = fields.stream().anyMatch(f -> f.name().equals(name));
      if (inTable && !present) {
        fields.add(table.apply(name));
      }
    }
    return DataTypes.createStructType(fields);
  }
}
