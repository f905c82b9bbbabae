package io.hudimeta.spark.sql;

import io.hudimeta.spark.source.HudiMetaSource;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.catalyst.TableIdentifier;
import org.apache.spark.sql.catalyst.analysis.EliminateSubqueryAliases;
import org.apache.spark.sql.catalyst.analysis.UnresolvedRelation;
import org.apache.spark.sql.catalyst.catalog.CatalogTable;
import org.apache.spark.sql.catalyst.plans.logical.Assignment;
import org.apache.spark.sql.catalyst.plans.logical.InsertAction;
import org.apache.spark.sql.catalyst.plans.logical.InsertStarAction;
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan;
import org.apache.spark.sql.catalyst.plans.logical.MergeAction;
import org.apache.spark.sql.catalyst.plans.logical.MergeIntoTable;
import org.apache.spark.sql.catalyst.plans.logical.UpdateAction;
import org.apache.spark.sql.catalyst.plans.logical.UpdateStarAction;
import org.apache.spark.sql.catalyst.rules.Rule;
import scala.Option;
import scala.collection.immutable.Seq;

/**
 * Keeps Spark from expanding MERGE's {@code UPDATE SET *} / {@code INSERT *} over a hudi-meta
 * table: Spark would expand them over every target column, the _hoodie_ meta columns included,
 * which no source has. Runs before resolution (a hint rule) and leaves an empty-assignment marker
 * that {@link MergePlan} expands over the data columns once both sides are resolved.
 */
public final class MergeStarMarkers extends Rule<LogicalPlan> {

  private final SparkSession session;

  public MergeStarMarkers(SparkSession session) {
    this.session = session;
  }

  @Override
  public LogicalPlan apply(LogicalPlan plan) {
    if (!(plan instanceof MergeIntoTable m) || !isHudiTable(m.targetTable())) {
      return plan;
    }
    List<MergeAction> matched = mark(Catalyst.list(m.matchedActions()));
    List<MergeAction> notMatched = mark(Catalyst.list(m.notMatchedActions()));
    return copy(m, Catalyst.seq(matched), Catalyst.seq(notMatched));
  }

  private static List<MergeAction> mark(List<MergeAction> actions) {
    List<MergeAction> out = new ArrayList<>();
    Seq<Assignment> none = Catalyst.seq(List.of());
    for (MergeAction a : actions) {
      if (a instanceof UpdateStarAction u) {
        out.add(new UpdateAction(u.condition(), none, true));
      } else if (a instanceof InsertStarAction i) {
        out.add(new InsertAction(i.condition(), none));
      } else {
        out.add(a);
      }
    }
    return out;
  }

  static boolean hasMarkers(MergeIntoTable m) {
    List<MergeAction> actions = Catalyst.list(m.matchedActions());
    actions.addAll(Catalyst.list(m.notMatchedActions()));
    for (MergeAction a : actions) {
      if (isMarker(a)) {
        return true;
      }
    }
    return false;
  }

  private static boolean isMarker(MergeAction a) {
    return (
      (a instanceof UpdateAction u && u.fromStar() && u.assignments().isEmpty()) ||
      (a instanceof InsertAction i && i.assignments().isEmpty())
    );
  }

  /** {@code m} with its markers replaced by {@code star}, the assignments of every data column. */
  static LogicalPlan expand(MergeIntoTable m, Seq<Assignment> star) {
    List<MergeAction> matched = new ArrayList<>();
    for (MergeAction a : Catalyst.list(m.matchedActions())) {
      matched.add(isMarker(a) ? new UpdateAction(a.condition(), star, true) : a);
    }
    List<MergeAction> notMatched = new ArrayList<>();
    for (MergeAction a : Catalyst.list(m.notMatchedActions())) {
      notMatched.add(isMarker(a) ? new InsertAction(a.condition(), star) : a);
    }
    return copy(m, Catalyst.seq(matched), Catalyst.seq(notMatched));
  }

  private static MergeIntoTable copy(MergeIntoTable m, Seq<MergeAction> matched, Seq<MergeAction> notMatched) {
    return new MergeIntoTable(
      m.targetTable(),
      m.sourceTable(),
      m.mergeCondition(),
      matched,
      notMatched,
      m.notMatchedBySourceActions(),
      m.withSchemaEvolution()
    );
  }

  /** Is the MERGE target a hudi-meta table of the session catalog? (Nothing is resolved yet.) */
  private boolean isHudiTable(LogicalPlan target) {
    if (Catalyst.hudiRelation(target) != null) {
      return true;
    }
    if (!(EliminateSubqueryAliases.apply(target) instanceof UnresolvedRelation r)) {
      return false;
    }
    List<String> parts = Catalyst.list(r.multipartIdentifier());
    if (parts.size() == 3 && parts.get(0).equalsIgnoreCase("spark_catalog")) {
      parts = parts.subList(1, 3);
    }
    if (parts.isEmpty() || parts.size() > 2) {
      return false;
    }
    Option<String> db = parts.size() == 2 ? Option.apply(parts.get(0)) : Option.empty();
    TableIdentifier id = new TableIdentifier(parts.get(parts.size() - 1), db);
    try {
      var catalog = ((org.apache.spark.sql.classic.SparkSession) session).sessionState().catalog();
      if (catalog.isTempView(id) || !catalog.tableExists(id)) {
        return false;
      }
      CatalogTable table = catalog.getTableMetadata(id);
      return table.provider().isDefined() && HudiMetaSource.SHORT_NAME.equalsIgnoreCase(table.provider().get());
    } catch (Exception e) {
      return false; // not a table this session can see: Spark reports that itself
    }
  }
}
