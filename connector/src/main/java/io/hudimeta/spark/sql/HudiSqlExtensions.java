package io.hudimeta.spark.sql;

import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.SparkSessionExtensions;
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan;
import org.apache.spark.sql.catalyst.rules.Rule;
import scala.runtime.AbstractFunction1;
import scala.runtime.BoxedUnit;

/**
 * SQL DML on hudi-meta tables (UPDATE, DELETE, MERGE INTO, positional INSERT). Enable with
 * spark.sql.extensions=io.hudimeta.spark.sql.HudiSqlExtensions (pyhudi.spark_session does).
 */
public final class HudiSqlExtensions extends AbstractFunction1<SparkSessionExtensions, BoxedUnit> {

  @Override
  public BoxedUnit apply(SparkSessionExtensions extensions) {
    extensions.injectHintResolutionRule(rule(MergeStarMarkers::new));
    extensions.injectResolutionRule(rule(session -> new DmlRewrite()));
    extensions.injectResolutionRule(rule(session -> new CatalogReadColumns()));
    return BoxedUnit.UNIT;
  }

  private static AbstractFunction1<SparkSession, Rule<LogicalPlan>> rule(
    java.util.function.Function<SparkSession, Rule<LogicalPlan>> make
  ) {
    return new AbstractFunction1<>() {
      @Override
      public Rule<LogicalPlan> apply(SparkSession session) {
        return make.apply(session);
      }
    };
  }
}
