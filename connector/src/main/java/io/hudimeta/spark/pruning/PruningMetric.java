package io.hudimeta.spark.pruning;

import org.apache.spark.sql.connector.metric.CustomSumMetric;

/**
 * A count of the scan's planning (see {@link PruningStats}) as a Spark SQL metric of the BatchScan
 * node. Public with a no-argument constructor: Spark instantiates the class by name to aggregate
 * values (a sum, whatever the name).
 */
public final class PruningMetric extends CustomSumMetric {

  private final String name;
  private final String description;

  public PruningMetric() {
    this("pruningCount", "pruning count");
  }

  PruningMetric(String name, String description) {
    this.name = name;
    this.description = description;
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public String description() {
    return description;
  }
}
