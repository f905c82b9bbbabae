package io.hudimeta.spark.source;

import io.hudimeta.spark.cdc.CdcScan;
import io.hudimeta.spark.plan.TableSnapshot;
import org.apache.spark.sql.connector.read.Scan;
import org.apache.spark.sql.connector.read.ScanBuilder;
import org.apache.spark.sql.connector.read.SupportsPushDownFilters;
import org.apache.spark.sql.connector.read.SupportsPushDownRequiredColumns;
import org.apache.spark.sql.sources.Filter;
import org.apache.spark.sql.types.StructType;

/**
 * Takes the columns and filters Spark pushes. Filters prune partitions and Parquet row groups but
 * are all handed back as post-scan filters: pruning is a speed-up, never the source of truth.
 */
final class HudiScanBuilder implements ScanBuilder, SupportsPushDownRequiredColumns, SupportsPushDownFilters {

  private final TableSnapshot snapshot;
  private StructType required;
  private Filter[] pushed = new Filter[0];

  HudiScanBuilder(TableSnapshot snapshot) {
    this.snapshot = snapshot;
    this.required = snapshot.schema();
  }

  @Override
  public void pruneColumns(StructType requiredSchema) {
    this.required = requiredSchema;
  }

  @Override
  public Filter[] pushFilters(Filter[] filters) {
    this.pushed = filters;
    return filters;
  }

  @Override
  public Filter[] pushedFilters() {
    return pushed;
  }

  /** The scan of the snapshot: Hudi's CDC format of an incremental query, else the rows of its file slices. */
  @Override
  public Scan build() {
    return snapshot.readOptions().cdc ? new CdcScan(snapshot, required) : new HudiScan(snapshot, required, pushed);
  }
}
