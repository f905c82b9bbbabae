package io.hudimeta.spark;

import java.util.EnumSet;
import java.util.Set;

import org.apache.spark.sql.connector.catalog.SupportsRead;
import org.apache.spark.sql.connector.catalog.TableCapability;
import org.apache.spark.sql.connector.read.ScanBuilder;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;

/** A Hudi table as Spark sees it: its schema and a way to scan it. */
final class HudiMetaTable implements SupportsRead {
  private final TableSnapshot snapshot;

  HudiMetaTable(TableSnapshot snapshot) {
    this.snapshot = snapshot;
  }

  @Override
  public String name() {
    return "hudi-meta:" + snapshot.basePath();
  }

  @Override
  public StructType schema() {
    return snapshot.schema();
  }

  @Override
  public Set<TableCapability> capabilities() {
    return EnumSet.of(TableCapability.BATCH_READ);
  }

  @Override
  public ScanBuilder newScanBuilder(CaseInsensitiveStringMap options) {
    return new HudiScanBuilder(snapshot);
  }
}
